#pragma once

// Parser of `lsid`. Pure: no I/O, safe from any thread.

#include <string_view>

#include "common/result.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace::lsf {

// Parses `lsid` output (format of IBM Spectrum LSF 10.1, older Platform LSF
// and OpenLava/volclava 2.2; see docs/lsf-formats.md "lsid"). `cluster_name`
// comes from "My cluster name is X", `master_name` from "My master name is X"
// (also accepted: "My management host name is X" and similar "My ... is X"
// lines naming the master or management host). `version` is the first other
// non-blank line that is not retry chatter ("IBM Spectrum LSF Standard
// 10.1.0.13, Jun 03 2022", "volclava project 2.2, Nov 30 2026"), empty if there
// is none. Fails with kParseError when the cluster or master line is missing
// (as when LIM is down and lsid printed only its version). Never throws.
Result<LsidInfo> ParseLsid(std::string_view text);

}  // namespace bplace::lsf
