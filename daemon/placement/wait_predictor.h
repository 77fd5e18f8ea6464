#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "daemon/placement/wait_series.h"

namespace bplace {

// How the wait predictor learns and bounds ([predict] options; defaults
// here, in one place).
struct WaitPredictorOptions {
  // The bound is on this quantile of the wait, at this confidence
  // (QBETS: the BoundRank-th smallest of the newest waits).
  double quantile = 0.95;
  double confidence = 0.95;
  // Waits kept per series (per queue, and per queue and slot-count class).
  std::size_t max_history = 1000;
  // Slot-count classes: class i holds jobs of more than limits[i-1] and at
  // most limits[i] slots; the last class everything above the last limit.
  // The default: 1, 2-4, 5-16, 17-64, 65-256, 257+.
  std::vector<std::int64_t> slot_class_limits = {1, 4, 16, 64, 256};
  // QBETS change-point trimming after a run of misses (WaitSeries::Add).
  bool trim_on_change = true;
  // A job that can start now is told so; its bound is learned from the
  // dispatch delays of earlier such jobs in the queue, and is at least this
  // until MinSamples of them are known (LSF dispatches in scheduling
  // sessions, not at once: lsb.params JOB_SCHEDULING_INTERVAL, MBD_SLEEP_TIME).
  std::chrono::seconds starts_now_allowance{60};
  // Adaptive coverage correction (an online conformal step, Gibbs and
  // Candès 2021): after every wait learned, the quantile used for the bound
  // moves by rate * (miss - (1 - quantile)), so that misses above the
  // target raise it and a run of hits lowers it back (never below
  // `quantile`). 0 turns it off.
  double adaptive_rate = 0.0;
  // Intervals a queue did not dispatch in, kept per queue to leave out the
  // waits that overlapped them (the oldest are forgotten beyond this).
  std::size_t max_inactive_intervals = 64;
};

// Where an estimate came from.
enum class WaitMethod {
  kStartsNow,      // free slots cover the job now: "now", bound from dispatch delays
  kClassHistory,   // QBETS on the queue's waits of the job's slot-count class
  kQueueHistory,   // QBETS on the queue's waits, all classes (the class has too few)
  kFewSamples,     // fewer waits than QBETS needs: the largest, with its lower confidence
  kNoHistory,      // no wait known for the queue
  kQueueInactive,  // the queue does not dispatch now: no time can be promised
};

// Short stable name of a method ("starts_now", "class_history", ...), for JSON.
const char* WaitMethodName(WaitMethod method);

// When a job can expect to start: a point estimate and an upper bound on
// the `quantile` of its wait, holding with probability `confidence`.
struct WaitEstimate {
  WaitMethod method = WaitMethod::kNoHistory;
  std::optional<std::chrono::seconds> p50;    // the median of the waits used
  std::optional<std::chrono::seconds> bound;  // none: kNoHistory, kQueueInactive
  double quantile = 0.0;
  // The confidence actually held: the configured one, or lower (1 - q^n)
  // when the bound is the largest of n < MinSamples waits.
  double confidence = 0.0;
  std::size_t samples = 0;  // waits the estimate was computed from
};

// One job's wait as LSF recorded it (lsb.events JOB_NEW, JOB_START, or the
// jobs tier's own jobs).
struct WaitObservation {
  std::string queue;
  std::int64_t slots = 1;
  SystemTime submitted;
  SystemTime started;
  // Whether placement judged, at submission, that the job could start at
  // once (Candidate::starts_now). Such waits teach the starts-now bound
  // (dispatch delays), the others the queue's waits; unknown counts as false.
  bool could_start_at_submit = false;
};

// What Observe did with a wait.
enum class ObserveOutcome {
  kLearned,
  kStartedBeforeSubmit,  // inconsistent times: left out
  kOverlappedInactive,   // the queue was closed or inactive meanwhile: left out
};

// Predicts per queue and slot-count class how long a job will wait before
// it starts, from the waits LSF actually gave earlier jobs (QBETS, with
// "now" for jobs that can start at once). Pure: no I/O and no clock; every
// time comes in an argument. Not thread-safe: one owner calls it (the
// daemon serialises calls, the replay bench is single-threaded).
class WaitPredictor {
 public:
  explicit WaitPredictor(WaitPredictorOptions options = {});

  // The estimate for a job of `slots` slots in `queue`. `starts_now`:
  // placement found free slots under every limit for it and the jobs ahead
  // (Candidate::starts_now); then the method is kStartsNow, p50 0 and the
  // bound the queue's learned dispatch delay. Otherwise the class's
  // history, the queue's when the class has fewer than MinSamples waits,
  // their largest value (kFewSamples) when the queue has fewer too.
  // kQueueInactive when the last SetQueueDispatching said false.
  WaitEstimate Predict(std::string_view queue, std::int64_t slots, bool starts_now) const;

  // Learns a wait (observation.started - observation.submitted, whole
  // seconds) unless it is inconsistent or overlapped a time the queue did
  // not dispatch; says which.
  ObserveOutcome Observe(const WaitObservation& observation);

  // The queue started (true) or stopped (false) dispatching at `at`: it
  // was closed or inactivated (bqueues status), or opened and activated.
  // Repeating the current state changes nothing.
  void SetQueueDispatching(std::string_view queue, bool dispatching, SystemTime at);

  // The newest `limit` waits learned for `queue` (seconds, newest first),
  // jobs that could start at once excluded; empty for an unknown queue.
  std::vector<std::int64_t> RecentWaits(std::string_view queue, std::size_t limit) const;

  // The slot-count class of a job of `slots` slots (0-based index into
  // options.slot_class_limits, the last index + 1 for larger jobs).
  std::size_t SlotClass(std::int64_t slots) const;

  const WaitPredictorOptions& options() const { return options_; }

 private:
  struct Interval {
    SystemTime from;
    std::optional<SystemTime> to;  // none: still not dispatching
  };
  struct QueueState {
    explicit QueueState(const WaitSeriesParams& params);
    WaitSeries all;
    std::vector<WaitSeries> classes;
    WaitSeries starts_now;
    std::vector<Interval> inactive;
    bool dispatching = true;
    double quantile_shift = 0.0;  // adaptive correction, >= 0
  };

  QueueState& State(std::string_view queue);
  const QueueState* Find(std::string_view queue) const;
  WaitEstimate FromHistory(const QueueState& state, std::int64_t slots) const;
  WaitEstimate StartsNow(const QueueState* state) const;
  bool OverlapsInactive(const QueueState& state, SystemTime from, SystemTime to) const;

  WaitPredictorOptions options_;
  WaitSeriesParams params_;
  std::unordered_map<std::string, QueueState> queues_;
};

}  // namespace bplace
