#pragma once

// A small synthetic workload for the wait-prediction replay and its tests:
// three queues of different job sizes and run times and priorities, a
// daily cycle, bursts (one user submitting tens of like jobs at once) and a
// change point (the offered load steps up part-way through), with waits
// given by an EASY-backfilling scheduler (bench/swf_schedule.h).

#include <cstddef>
#include <cstdint>

#include "bench/swf.h"

namespace bplace::bench {

struct GenerateOptions {
  std::size_t jobs = 40000;
  std::uint64_t seed = 1;
  std::int64_t machine_procs = 512;
  double load = 0.7;                 // offered load (work / capacity) before the change
  double load_after = 0.9;           // and after it
  double change_at = 0.5;            // the change comes after this share of the jobs
  double burst_probability = 0.004;  // chance that a submission starts a burst
  std::int64_t session_s = 10;       // the scheduler's session interval
};

// A trace of options.jobs jobs (fewer never; a burst that would pass the
// count is cut), in submit order, with waits; its header names the queues,
// the machine (MaxProcs) and, in a Note, the change point. Deterministic for
// a seed.
SwfTrace GenerateSwf(const GenerateOptions& options);

}  // namespace bplace::bench
