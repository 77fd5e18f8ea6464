#pragma once

#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// The part of a submission that only sbatchd reads: the submitter's
// environment, which LSF hands to the job. One file per job id (an array's
// elements share it) in <state>/info/, as LSF keeps its job files in
// LSB_SHAREDIR/<cluster>/logdir/info; the job table stays small. Files are
// written 0644 (every user's runner and bsub share the directory).
struct JobSpool {
  std::vector<std::string> environment;  // "KEY=value", in the submitter's order
};

// <state>/info/<id>.json
std::string JobSpoolPath(const StateDir& state, long long id);

// Writes the spool file of job `id` atomically, creating <state>/info
// (mode 0777, as the state directory) when it is missing. Call it with the
// state lock held. Errors name the failing path.
tl::expected<void, std::string> SaveJobSpool(const StateDir& state, long long id,
                                             const JobSpool& spool);

// Reads the spool file of job `id`; a missing file (a job of a table older
// than the spool) gives an empty environment. Errors name the path.
tl::expected<JobSpool, std::string> LoadJobSpool(const StateDir& state, long long id);

}  // namespace bplace::lsfsim
