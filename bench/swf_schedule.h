#pragma once

// A batch scheduler for generated workloads: FCFS by queue priority with
// EASY backfilling (Lifka 1995), in scheduling sessions at a fixed
// interval as LSF's mbatchd runs them. It gives a workload without waits
// (a generated one, or a workload model's output such as Lublin-Feitelson)
// the waits a real scheduler would have produced, so that the wait-prediction
// replay has something to learn from. Not LSF's policy: a stand-in that
// makes queues, bursts and load changes turn into waits.

#include <cstdint>
#include <map>
#include <vector>

#include "bench/swf.h"

namespace bplace::bench {

struct ScheduleOptions {
  std::int64_t machine_procs = 0;    // processors of the machine (> 0)
  std::int64_t session_s = 10;       // a scheduling session every this many seconds
  std::size_t backfill_depth = 500;  // pending jobs EASY looks at behind the head
  // Queue number -> priority (higher first); queues not listed have 0.
  std::map<std::int64_t, int> queue_priority;
};

// Sets every job's wait_s (and procs, capped at the machine) by simulating
// the scheduler over the jobs' submit_s, run_s, procs and requested_time_s
// (the run-time estimate EASY reserves with; the run time when unknown or
// shorter). Jobs must have submit_s >= 0 and run_s >= 0; others keep wait -1.
// Pure; O(sessions x (backfill_depth + running)).
void ScheduleEasy(std::vector<SwfJob>& jobs, const ScheduleOptions& options);

}  // namespace bplace::bench
