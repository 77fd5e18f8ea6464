#pragma once

// A bkill command line as bkill reads it (LSF 10.1 bkill(1)), for the forms
// the front door answers: `bkill [-s SIGNAL] [-r | -d] ID...`, `bkill
// [-s SIGNAL] 0` and `bkill [-s SIGNAL] -J NAME`. Pure functions.

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/job_record.h"

namespace bplace::lsf {

// The words of a bkill command line after "bkill".
struct BkillCommandLine {
  std::vector<std::string> options;     // "-s" and its value, "-r", "-d", as given
  std::vector<JobId> ids;               // in the order given
  bool all_jobs = false;                // the id "0": every unfinished job of the user
  std::optional<std::string> job_name;  // -J NAME: the user's jobs of that name
};

// Reads `args`. Exactly one of: job ids, "0", -J NAME (-JNAME). Returns
// kInvalidArgument naming the word for anything else: another option (-q,
// -u, -m, -b, -l, -app, ...), an id ParseJobId refuses (a range "12[1-3]"
// included), -s or -J without a value, "0" or -J with ids, and no id at
// all (bkill alone kills the caller's last job). The front door runs the
// real bkill for all of those.
Result<BkillCommandLine> ParseBkillCommandLine(const std::vector<std::string>& args);

}  // namespace bplace::lsf
