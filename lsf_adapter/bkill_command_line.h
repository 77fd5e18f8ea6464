#pragma once

// A bkill command line as bkill reads it (LSF 10.1 bkill(1)), for the forms
// the front door answers: `bkill [-s SIGNAL] [-r] ID...`. Pure functions.

#include <string>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/job_record.h"

namespace bplace::lsf {

// The words of a bkill command line after "bkill".
struct BkillCommandLine {
  std::vector<std::string> options;  // "-s" and its value, "-r", as given
  std::vector<JobId> ids;            // in the order given
};

// Reads `args`. Returns kInvalidArgument naming the word for anything else:
// another option (-J, -q, -u, -m, -d, -b, -l, ...), "0" (all of the
// caller's jobs), an id ParseJobId refuses (a range "12[1-3]" included),
// -s without a signal, and no id at all (bkill alone kills the caller's
// last job). The front door runs the real bkill for all of those.
Result<BkillCommandLine> ParseBkillCommandLine(const std::vector<std::string>& args);

}  // namespace bplace::lsf
