#pragma once

// Which LSF the daemon talks to, and the memory units its limits are in:
// the two facts that decide how a bsub command line must be spelled for it
// (docs/lsf-front-door.md "OpenLava-family clusters"). Pure functions.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace bplace::lsf {

// The family of scheduler behind the LSF commands.
enum class LsfFamily {
  kIbmLsf,    // IBM Spectrum LSF (10.1) and Platform LSF: the formats bplace speaks
  kOpenlava,  // OpenLava and its descendants (volclava 2.2): an older bsub and bjobs
};

// The family named by `lsid`'s version line (LsidInfo::version): a line
// starting "openlava" or "volclava" (any case; "volclava project 2.2, Nov 30
// 2026", "openLava project 4.0.0, ...") is kOpenlava, anything else (IBM's
// and Platform's banners, and an empty line: lsid has not answered) is
// kIbmLsf, whose behaviour needs no compensation.
LsfFamily FamilyOfLsidVersion(std::string_view version);

// A memory unit of LSF: KB, MB, GB, TB, PB, EB or ZB, each 1024 of the one
// before (LSF 10.1 lsf.conf(5) LSF_UNIT_FOR_LIMITS).
enum class MemoryUnit { kKB, kMB, kGB, kTB, kPB, kEB, kZB };

// "KB" ... "ZB".
std::string_view MemoryUnitName(MemoryUnit unit);

// The units a bare number means in a memory limit (bsub -M) and in a
// resource requirement's mem, swp and tmp (bsub -R rusage[mem=N],
// select[mem>N]). LSF 10.1 lsf.conf(5): without LSF_UNIT_FOR_LIMITS,
// limits are in KB and resource requirements in MB; with it, both are in
// its unit. OpenLava (which has no such parameter) uses the same defaults.
struct LimitUnits {
  MemoryUnit limits = MemoryUnit::kKB;
  MemoryUnit resources = MemoryUnit::kMB;
  bool from_lsf_conf = false;  // LSF_UNIT_FOR_LIMITS was set
};

// The units `lsf_conf` (the text of lsf.conf) sets: its last
// LSF_UNIT_FOR_LIMITS=UNIT line (blanks around '=' allowed, the value
// possibly quoted, any case; '#' lines are comments), else the defaults.
// Errors: kParseError naming the value when it is not a unit LSF knows.
Result<LimitUnits> LimitUnitsFromLsfConf(std::string_view lsf_conf);

// A memory amount as bsub reads one ("100MB", "2G", "1.5gb", "512"): a
// number, then optionally a unit letter K M G T P E Z (any case) and an
// optional B; a bare number is in `bare_unit`. Returns the amount in whole
// `to` units, rounded up (a job never gets less than it asked for), at
// least 1. Errors: kInvalidArgument naming `value` when it is not such an
// amount, is zero or negative, or does not fit in 64 bits.
Result<std::int64_t> MemoryInUnit(std::string_view value, MemoryUnit bare_unit, MemoryUnit to);

// `res_req` (a bsub -R string) with every mem, swp, swap and tmp value that
// carries a unit ("rusage[mem=2147MB]", "select[mem>2G]") written as a
// bare whole number of `to` units ("rusage[mem=2147]" for MB), the rest of
// the string unchanged. A value without a unit is left as it is (it is in
// the cluster's unit already). Errors: kInvalidArgument naming the value
// when one with a unit cannot be converted (MemoryInUnit).
Result<std::string> ResReqMemoryInUnit(std::string_view res_req, MemoryUnit to);

}  // namespace bplace::lsf
