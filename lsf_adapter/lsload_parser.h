#pragma once

// Parser of `lsload -w -I INDEX`. Pure: no I/O, safe from any thread.

#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace::lsf {

// Parses `lsload -w -I INDEX` output (format of LSF 10.1 and volclava 2.2;
// see docs/lsf-formats.md "lsload and elims") into one value of `index_name`
// per host, in the order printed. Columns are found by header name (HOST_NAME,
// status, `index_name`; others ignored); chatter before the header is skipped.
// A value with a leading '*' (over its threshold) is read without the star; a
// row that stops after its status (an unavail host, whose load columns are
// blank) or a "-" gives nullopt. Values must be plain numbers ("1.0", "3e+05");
// load indices printed with units ("79G", "22%") are rejected. Fails with
// kParseError: "no header", a header without status or `index_name` (naming
// it), or the line and problem of a bad row. Never throws.
Result<std::vector<LoadIndexValue>> ParseLsload(std::string_view text, std::string_view index_name);

}  // namespace bplace::lsf
