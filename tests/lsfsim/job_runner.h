#pragma once

#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// sbatchd's part of the simulator: dispatched jobs run as real processes.
//
// A job runner is a detached process (double fork, its own session, stdio
// on /dev/null, so it holds no caller's pipe and outlives `lsfsim
// schedule`), one per job, so jobs run concurrently. It:
//   1. under the state lock, checks that the job is still RUN and has no
//      process yet, forks the job (ExecJobChild: its own process group, as
//      its user) and records the group in the table (Job::pgid);
//   2. waits for it; a job with a run limit (-W) gets SIGINT when the
//      limit passes and SIGKILL JOB_TERMINATE_INTERVAL seconds later
//      (EXIT_REASON "TERM_RUNLIMIT: job killed after reaching LSF run time
//      limit");
//   3. under the lock, ends it as mbatchd records it: DONE for exit status
//      0, else EXIT with the status (128 + signal for a signal), unless
//      mbatchd ended it already (bkill: the kill's status and reason stay);
//      records CPU time and peak memory; appends LSF's job report
//      (job_report.h) to the -o file before saving, so that whoever sees
//      the end in bjobs finds the report.

// Identifies one job, or one array element, of the table.
struct JobKey {
  long long id = 0;
  int index = 0;
};

// Marks the RUN jobs no runner has started (Job::executed false) as
// executed and returns them, in table order. The caller holds the state
// lock and saves the table.
std::vector<JobKey> TakeJobsToRun(JobTable* table);

// Starts one detached runner per job and returns at once. Call it without
// the state lock (a runner takes it). Error: a fork failed (the runners
// already started keep going).
tl::expected<void, std::string> LaunchJobRunners(const StateDir& state,
                                                 const std::vector<JobKey>& jobs);

// Sends `signal` to the process group of a job that runs for real (bkill)
// and, unless it is SIGKILL or `kill_after_s` is 0, SIGKILL to the group
// `kill_after_s` seconds later if it still exists (from a detached
// process; LSF's JOB_TERMINATE_INTERVAL). Errors of kill(2) (the group is
// gone, or belongs to a user we may not signal) are ignored, as mbatchd
// ignores a job that ended meanwhile.
void SignalJobGroup(int pgid, int signal, int kill_after_s);

}  // namespace bplace::lsfsim
