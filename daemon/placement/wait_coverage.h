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

  // Counts started job `job` of `queue` that waited `wait_s` seconds
  // against its prediction (WithinBound), once: a job already judged (by
  // the jobs tier, then by the event log, or twice by a log read again) is
  // not counted again. A prediction without a bound promised nothing and
  // is not counted. Returns whether it was counted.
  bool Record(const JobKey& job, const std::string& queue, std::int64_t wait_s,
              const StartPrediction& prediction);

  // The counters by queue.
  std::map<std::string, QueueCoverage> ByQueue() const;

  // The counters summed over queues.
  QueueCoverage Total() const;

 private:
  mutable std::mutex mutex_;  // guards the members below
  std::map<std::string, QueueCoverage> by_queue_;
  BoundedSet<JobKey> judged_{kRememberedJobs};
};

}  // namespace bplace
