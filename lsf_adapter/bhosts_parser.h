#pragma once

// Parser of `bhosts -w` (and plain `bhosts`). Pure: no I/O, safe from any
// thread.

#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace::lsf {

// Parses the table of `bhosts -w` or plain `bhosts` (format of LSF 10.1 and
// OpenLava/volclava 2.2; see docs/lsf-formats.md "bhosts -w"). Lines before the
// header (retry chatter) are skipped; columns are found by header name
// (HOST_NAME STATUS JL/U MAX NJOBS RUN SSUSP USUSP RSV, any order, extra
// columns ignored); "-" in JL/U and MAX gives nullopt. STATUS is kept as
// printed (plain bhosts prints every closed state as "closed"). A header with
// no rows gives an empty vector. Fails with kParseError: "no header" for empty
// or header-less text, the missing column's name, or the line number and
// problem of a bad row. Never throws.
Result<std::vector<HostStatus>> ParseBhosts(std::string_view text);

}  // namespace bplace::lsf
