#pragma once

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// One dispatch turn of the simulated mbatchd over the job table: PEND jobs
// (PSUSP ones stay) by queue priority, then job id and array index, each to
// the first host (in -m order, else definition order) that the queue uses,
// whose configured status is `ok`, and that no limit blocks. The limits are
// LSF's, counted in slots of dispatched jobs (RUN, USUSP, SSUSP, UNKWN):
//   queue MAX (with the queue's background run and suspended slots),
//   queue JL/U (the job's user in this queue), queue JL/H (this queue on
//   one host), host MAX (with the host's `busy` slots), host JL/U (the
//   user on that host), and an array's %N (its dispatched elements).
// Only queues whose activity is active dispatch. A job left pending gets
// LSF's pending reason (lsb.reason.c wording) in `pend_reason`; a
// dispatched one gets RUN, its host and start_time = `now`. Pure apart from
// the table it changes; returns how many jobs it dispatched.
int DispatchPendingJobs(const ClusterDef& cluster, const Overrides& overrides, JobTable* jobs,
                        long long now);

}  // namespace bplace::lsfsim
