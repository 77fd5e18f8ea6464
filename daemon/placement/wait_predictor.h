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
  // Backlog classes, on the share of the queue's capacity that must free up
  // before the job can start (Candidate::slots_to_free() / capacity, at
  // submission): class i holds shares of more than limits[i-1] and at most
  // limits[i]. A burst's later jobs wait behind its earlier ones; their
  // waits belong with others submitted behind as much work. The default:
  // up to half the capacity, up to twice, more.
  std::vector<double> backlog_class_limits = {0.5, 2.0};
  // Above this backlog share the bound scales with the backlog: it is the
  // backlog times the QBETS bound on the queue's waits per unit of backlog
  // (seconds per capacity's worth of work ahead). Waits grow with the work
  // ahead, and the later jobs of a burst larger than any seen before are
  // bounded by how fast the queue drains rather than by the waits of
  // smaller ones. Infinity turns it off.
  double backlog_scale_from = 2.0;
  // The waits per unit of backlog are learned from jobs submitted with at
  // least this backlog share. Lower makes the scaled bound looser (a short
  // wait over a tiny backlog is a large number per unit: dispatch delay and
  // backfilling, not drain rate); higher learns from too few jobs to cover
  // bursts (bench/README.md "Wait prediction (issue 23)": 0.25 chosen on
  // the replay).
  double backlog_scale_learn_from = 0.25;
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
  // `quantile`). 0 turns it off. On the replay (bench/README.md "Wait
  // prediction (issue 23)") 0.01 lifted the worst log's windows at 0.93 coverage from
  // 93% to 95% at a small cost in tightness.
  double adaptive_rate = 0.01;
  // Intervals a queue did not dispatch in, kept per queue to leave out the
  // waits that overlapped them (the oldest are forgotten beyond this).
  std::size_t max_inactive_intervals = 64;
};

// Where an estimate came from.
enum class WaitMethod {
  kStartsNow,            // free slots cover the job now: "now", bound from dispatch delays
  kClassBacklogHistory,  // QBETS on the queue's waits of the job's slot-count and backlog class
  kBacklogHistory,       // QBETS on the queue's waits of the job's backlog class
  kBacklogScaled,        // the backlog times QBETS on the queue's waits per unit of backlog
  kClassHistory,         // QBETS on the queue's waits of the job's slot-count class
  kQueueHistory,         // QBETS on the queue's waits, all classes (the class has too few)
  kFewSamples,           // fewer waits than QBETS needs: the largest, with its lower confidence
                         // (below FewestForLargest: no bound, the median only)
  kNoHistory,            // no wait known for the queue
  kQueueInactive,        // the queue does not dispatch now: no time can be promised
};

// Short stable name of a method ("starts_now", "class_history", ...), for JSON.
const char* WaitMethodName(WaitMethod method);

// The method WaitMethodName calls `name`; none for any other word (a record
// written by another version of bplace, or damaged).
std::optional<WaitMethod> WaitMethodOfName(std::string_view name);

// When a job can expect to start: a point estimate and an upper bound on
// the `quantile` of its wait, holding with probability `confidence`.
struct WaitEstimate {
  WaitMethod method = WaitMethod::kNoHistory;
  std::optional<std::chrono::seconds> p50;  // the median of the waits used
  // None: kNoHistory, kQueueInactive, and kFewSamples from fewer than
  // FewestForLargest waits.
  std::optional<std::chrono::seconds> bound;
  double quantile = 0.0;
  // The confidence actually held: the configured one, or lower (1 - q^n)
  // when the bound is the largest of n < MinSamples waits; 0 without a
  // bound.
  double confidence = 0.0;
  std::size_t samples = 0;  // waits the estimate was computed from
};

// What a job asks of the predictor.
struct WaitQuery {
  std::string_view queue;
  std::int64_t slots = 1;
  // Placement found free slots under every limit for it and the jobs ahead
  // (Candidate::starts_now).
  bool starts_now = false;
  // The share of the queue's capacity that must free up first
  // (Candidate::slots_to_free() / capacity); unknown: no backlog class.
  std::optional<double> backlog;
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
  // WaitQuery::backlog at submission, when it was known.
  std::optional<double> backlog_at_submit;
  // The LSF job the wait is of (its array index, 0 when it is no array
  // element); job_id 0 when not known. WaitModel learns each job once.
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;
};

// What Observe did with a wait.
enum class ObserveOutcome {
  kLearned,
  kStartedBeforeSubmit,  // inconsistent times: left out
  kOverlappedInactive,   // the queue was closed or inactive meanwhile: left out
  kAlreadyLearned,       // this job's wait was learned before (WaitModel): left out
};

// Predicts per queue and slot-count class how long a job will wait before
// it starts, from the waits LSF actually gave earlier jobs (QBETS, with
// "now" for jobs that can start at once). Pure: no I/O and no clock; every
// time comes in an argument. Not thread-safe: one owner calls it (the
// daemon serialises calls, the replay bench is single-threaded).
class WaitPredictor {
 public:
  explicit WaitPredictor(WaitPredictorOptions options = {});

  // The estimate for a job. When it starts now: kStartsNow, p50 0 and the
  // bound the queue's learned dispatch delay. When its backlog is above
  // backlog_scale_from: kBacklogScaled, if the queue has MinSamples waits
  // per unit of backlog (of its slot class, else all). Otherwise from the
  // narrowest history with MinSamples waits: the job's slot-count and backlog class,
  // its backlog class, its slot-count class, the whole queue (the first two
  // only when the backlog is known); the queue's largest wait (kFewSamples)
  // when even the queue has fewer (no bound below FewestForLargest waits,
  // only the median), or, behind a backlog of at least
  // backlog_scale_learn_from, the backlog times the largest wait per unit of
  // backlog when that is more. A series with MinSamples waits but too
  // few for the quantile the adaptive correction raised gives its largest
  // wait (still under its own method). kQueueInactive when the last
  // SetQueueDispatching said false.
  WaitEstimate Predict(const WaitQuery& query) const;

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
  // The backlog class of a share (likewise, on backlog_class_limits).
  std::size_t BacklogClass(double backlog) const;

  const WaitPredictorOptions& options() const { return options_; }

 private:
  struct Interval {
    SystemTime from;
    std::optional<SystemTime> to;  // none: still not dispatching
  };
  struct QueueState {
    explicit QueueState(const WaitSeriesParams& params);
    WaitSeries all;
    std::vector<WaitSeries> classes;  // by slot class
    std::vector<WaitSeries> backlog;  // by backlog class
    std::vector<WaitSeries> cells;    // by slot class x backlog class
    // Waits per unit of backlog (seconds, rounded up), by slot class and all.
    std::vector<WaitSeries> per_backlog;
    WaitSeries per_backlog_all;
    WaitSeries starts_now;
    std::vector<Interval> inactive;
    bool dispatching = true;
    double quantile_shift = 0.0;  // adaptive correction, >= 0
  };

  QueueState& State(std::string_view queue);
  const QueueState* Find(std::string_view queue) const;
  WaitEstimate FromHistory(const QueueState& state, const WaitQuery& query) const;
  std::optional<WaitEstimate> BacklogScaled(const QueueState& state, const WaitQuery& query,
                                            double quantile) const;
  void Learn(QueueState& state, const WaitObservation& observation, std::int64_t wait_s);
  WaitEstimate StartsNow(const QueueState* state) const;
  bool OverlapsInactive(const QueueState& state, SystemTime from, SystemTime to) const;

  WaitPredictorOptions options_;
  WaitSeriesParams params_;
  std::unordered_map<std::string, QueueState> queues_;
};

}  // namespace bplace
