#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bounded_set.h"
#include "common/clock.h"
#include "daemon/placement/backlog_history.h"
#include "daemon/placement/wait_predictor.h"

namespace bplace {

// The estimate for one slot-count class of a queue (GET
// /v1/queues/{queue}/waits): the class's label ("1", "2-4", "257+") and
// what a job of its smallest size would be told while it must wait.
struct SlotClassEstimate {
  std::string slots;           // the class as a range of slots
  std::int64_t min_slots = 1;  // its smallest job
  WaitEstimate estimate;
};

// The daemon's wait predictor (docs/design.md "Wait prediction"): one
// WaitPredictor behind a mutex, fed on the refresh thread (the event log's
// records, or the jobs tier's jobs, and each queue's backlog at every load
// refresh: BacklogHistory) and read by placements on any thread,
// with a generation that grows with every change of what Predict answers,
// so that a cached placement answer is dropped when a wait is learned
// (PlacementStamp::wait_generation). Thread-safe: every method may be
// called from any thread; none blocks on I/O.
class WaitModel {
 public:
  explicit WaitModel(WaitPredictorOptions options = {});

  // WaitPredictor::Predict under the lock.
  WaitEstimate Predict(const WaitQuery& query) const;

  // The most jobs remembered as learned (the oldest are forgotten first).
  static constexpr std::size_t kRememberedJobs = 20000;

  // WaitPredictor::Observe; a wait learned bumps the generation. A wait
  // without backlog_at_submit (lsb.events and the jobs tier know none but
  // for bplace's own jobs, AddSubmissionContext) is
  // given the share RecordBacklog last recorded for its queue at or before
  // its submission, when there is one. A job (observation.job_id, not 0)
  // whose wait was learned before is left out (kAlreadyLearned): the jobs
  // tier may teach a job before the event log is found, and a log is read
  // again from its start after a restart of the tail.
  ObserveOutcome Observe(const WaitObservation& observation);

  // Records `queue`'s backlog share (BacklogShare, daemon/placement/
  // placement.h) at `at`, the time of the load it was computed from
  // (BacklogHistory::Record). Changes nothing Predict answers.
  void RecordBacklog(std::string_view queue, SystemTime at, double share);

  // WaitPredictor::SetQueueDispatching; a change of state bumps the
  // generation (a queue that stops dispatching promises no time).
  void SetQueueDispatching(std::string_view queue, bool dispatching, SystemTime at);

  // The newest `limit` waits learned for `queue` (seconds, newest first).
  std::vector<std::int64_t> RecentWaits(std::string_view queue, std::size_t limit) const;

  // What a job of each slot-count class of `queue` would be told now if it
  // had to wait (no backlog known), smallest class first.
  std::vector<SlotClassEstimate> ClassEstimates(std::string_view queue) const;

  // Counts the changes of what Predict answers (waits learned, queues
  // starting or stopping to dispatch); 0 before the first.
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // Waits learned, and left out (inconsistent times, or overlapping a time
  // the queue did not dispatch), since start.
  std::uint64_t learned() const { return learned_.load(std::memory_order_relaxed); }
  std::uint64_t left_out() const { return left_out_.load(std::memory_order_relaxed); }

  const WaitPredictorOptions& options() const { return predictor_.options(); }

 private:
  mutable std::mutex mutex_;  // guards predictor_, backlogs_ and the learned jobs
  WaitPredictor predictor_;
  BacklogHistory backlogs_;
  // (job id, array index) of the jobs learned.
  BoundedSet<std::pair<std::int64_t, std::int64_t>> learned_jobs_{kRememberedJobs};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::uint64_t> learned_{0};
  std::atomic<std::uint64_t> left_out_{0};
};

// The words for an estimate, for people (CLI, status page): "starts now",
// "~4 min, 95% bound 20 min", "~30 s, no bound yet (from 3 waits only)",
// "no waits seen in this queue yet", "queue not dispatching: ...".
std::string DescribeWait(const WaitEstimate& estimate);

// A duration in a few words: "45 s", "4 min", "2 h 5 min", "3 d 4 h".
std::string DescribeSeconds(std::int64_t seconds);

}  // namespace bplace
