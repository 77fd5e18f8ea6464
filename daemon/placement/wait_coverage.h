#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "common/bounded_set.h"
#include "daemon/cluster/job_table.h"
#include "daemon/placement/wait_model.h"

namespace bplace {

// Whether a job that waited `wait_s` seconds started within the bound of
// `prediction` (wait_s <= bound_s); none when the prediction gave no
// bound (no history, too few waits, queue not dispatching): it promised
// nothing.
std::optional<bool> WithinBound(std::int64_t wait_s, const StartPrediction& prediction);

// How the predictions made for bplace's own jobs fared, per queue.
struct QueueCoverage {
  std::uint64_t predictions = 0;   // jobs started whose prediction gave a bound
  std::uint64_t within_bound = 0;  // of those, the wait was at most the bound
};

// A started job's wait as its prediction was judged on it (WaitCoverage).
struct JudgedWait {
  std::int64_t wait_s = 0;           // seconds from submission to start
  std::optional<bool> within_bound;  // WithinBound; none: no bound given
};

// The live coverage of the wait bounds (docs/api.md "GET /metrics"
// bplace_wait_predictions_total, bplace_wait_within_bound_total): each job
// bplace submitted is compared, when it starts, with the bound its
// placement gave. Counters since the daemon started. Thread-safe: one
// mutex, held for a map update or a copy.
class WaitCoverage {
 public:
  // The most jobs remembered as judged (the oldest are forgotten first):
  // as many as the model remembers as learned.
  static constexpr std::size_t kRememberedJobs = WaitModel::kRememberedJobs;

  // Judges started job `job` of `queue` that waited `wait_s` seconds
  // against its prediction (WithinBound), once: a job already judged (by
  // the jobs tier, then by the event log, or twice by a log read again)
  // keeps its first judgement and is not counted again. The wait is
  // remembered (Judged); it is counted only when the prediction gave a
  // bound (one without promised nothing). Returns whether it was counted.
  bool Record(const JobKey& job, const std::string& queue, std::int64_t wait_s,
              const StartPrediction& prediction);

  // The judgement Record made of `job`; none when it was not judged (not
  // started yet, not bplace's, or forgotten: the oldest beyond
  // kRememberedJobs). What a job's wait_s and within_bound show, so that a
  // job and the counters never disagree.
  std::optional<JudgedWait> Judged(const JobKey& job) const;

  // The counters by queue.
  std::map<std::string, QueueCoverage> ByQueue() const;

  // The counters summed over queues.
  QueueCoverage Total() const;

 private:
  mutable std::mutex mutex_;  // guards the members below
  std::map<std::string, QueueCoverage> by_queue_;
  BoundedMap<JobKey, JudgedWait> judged_{kRememberedJobs};
};

}  // namespace bplace
