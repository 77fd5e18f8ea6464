#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "common/bounded_map.h"
#include "common/clock.h"
#include "daemon/cluster/job_table.h"
#include "daemon/placement/wait_model.h"

namespace bplace {

// Whether a job that waited `wait_s` seconds started within the bound of
// `prediction` (wait_s <= bound_s); none when the prediction gave no
// bound (no history, too few waits, queue not dispatching): it promised
// nothing.
std::optional<bool> WithinBound(std::int64_t wait_s, const StartPrediction& prediction);

// LSF job ids wrap at MAX_JOBID (999999 by default): a wait LSF reports of
// job id N is of the submission bplace made of N only when the two
// submission times are at most five minutes apart (LSF's SUBMIT_TIME and
// bplace's own differ by bsub's seconds); else it is another job's.
bool SameSubmission(SystemTime a, SystemTime b);

// How the predictions made for bplace's own jobs fared, per queue.
struct QueueCoverage {
  std::uint64_t predictions = 0;   // jobs started whose prediction gave a bound
  std::uint64_t within_bound = 0;  // of those, the wait was at most the bound
};

// A started job's wait as its prediction was judged on it (WaitCoverage).
struct JudgedWait {
  SystemTime submitted{};            // the submission judged (SameSubmission)
  std::int64_t wait_s = 0;           // seconds from submission to start
  std::optional<bool> within_bound;  // WithinBound; none: no bound given
};

// The live coverage of the wait bounds (docs/api.md "GET /metrics"
// bplace_wait_predictions_total, bplace_wait_within_bound_total): each job
// bplace submitted is compared, when it starts, with the bound its
// placement gave. An array job is judged once, on its first element to
// start (its placement was of the array; the rest queue behind it), under
// the array's key (array_index 0). Counters since the daemon started.
// Thread-safe: one mutex, held for a map update or a copy.
class WaitCoverage {
 public:
  // The most jobs remembered as judged (the oldest are forgotten first):
  // as many as the model remembers as learned.
  static constexpr std::size_t kRememberedJobs = WaitModel::kRememberedJobs;

  // Judges started job `job` of `queue`, submitted at `submitted`, that
  // waited `wait_s` seconds against its prediction (WithinBound), once: a
  // submission already judged (by the jobs tier, then by the event log, or
  // twice by a log read again; an array's later elements) keeps its first
  // judgement and is not counted again; a judgement of an earlier job of
  // the same id (not SameSubmission) is replaced. The wait is remembered
  // (Judged); it is counted only when the prediction gave a bound (one
  // without promised nothing). Returns whether it was counted.
  bool Record(const JobKey& job, const std::string& queue, SystemTime submitted,
              std::int64_t wait_s, const StartPrediction& prediction);

  // The judgement Record made of the submission of `job` at `submitted`
  // (SameSubmission); none when it was not judged (not started yet, not
  // bplace's, an array element: the array's key has it, or forgotten: the
  // oldest beyond kRememberedJobs, or a daemon restarted since). What a
  // job's wait_s and within_bound show while it is remembered, so that a
  // job and the counters agree.
  std::optional<JudgedWait> Judged(const JobKey& job, SystemTime submitted) const;

  // The counters by queue.
  std::map<std::string, QueueCoverage> ByQueue() const;

  // The counters summed over queues.
  QueueCoverage Total() const;

 private:
  mutable std::mutex mutex_;  // guards the members below
  std::map<std::string, QueueCoverage> by_queue_;
  BoundedMap<JobKey, JudgedWait> judged_{kRememberedJobs};  // by the array's key
};

}  // namespace bplace
