#pragma once

// The daemon core's metrics (docs/api.md "GET /metrics"): what happens, counted
// as it happens (refresh runs, placements, submissions), and what the
// snapshot holds, computed when /metrics is read.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/result.h"
#include "daemon/cluster/snapshot.h"
#include "daemon/placement/placement.h"
#include "daemon/placement/wait_coverage.h"
#include "daemon/placement/wait_model.h"
#include "daemon/submit/submitter.h"

namespace bplace {

class ClusterCache;
class InflightLedger;
class RateLimiter;

// A refresh tier's name (the `tier` label) and its status in the snapshot.
struct TierField {
  std::string_view name;
  TierStatus ClusterSnapshot::*status;
};

// Every tier that publishes a TierStatus: load, topology, ib (lsload or the
// local probe), jobs.
inline constexpr std::array<TierField, 4> kTierFields = {{
    {"load", &ClusterSnapshot::load_status},
    {"topology", &ClusterSnapshot::topology_status},
    {"ib", &ClusterSnapshot::ib_status},
    {"jobs", &ClusterSnapshot::jobs_status},
}};

// Counts the core's events:
//   bplace_refresh_runs_total{tier, outcome="success"|"failure"}   counter
//   bplace_refresh_duration_seconds{tier}                          histogram
//   bplace_placements_total{outcome, queue}                        counter
//   bplace_submissions_total{outcome, queue}                       counter
// Placement outcomes: "placed" (queue: the chosen one), "no_queue" (every
// queue excluded; queue ""), or the error's ErrorCodeName ("not_found",
// "unavailable"; queue ""). Submission outcomes: "submitted" (queue: where
// LSF put the job) or the error's ErrorCodeName ("conflict": no queue took
// it, "rejected", "rate_limited", "timeout", ...; queue: the last queue
// tried, "" when none was). Queue names come from LSF's configuration, so
// their number is bounded by it; user names and job ids are never labels.
// Thread-safe: the refresh series are created at construction; a
// (outcome, queue) pair is created the first time it occurs (one mutex),
// then counted lock-free.
class DaemonMetrics {
 public:
  // Registers the families in `registry`, which must outlive this. Throws
  // std::invalid_argument when they are registered already.
  explicit DaemonMetrics(metrics::Registry& registry);

  DaemonMetrics(const DaemonMetrics&) = delete;
  DaemonMetrics& operator=(const DaemonMetrics&) = delete;

  // SnapshotStore's observer: a tier whose `successes` went up between
  // `before` and `after` finished a run that succeeded, one whose
  // `consecutive_failures` went up a run that failed; either way its
  // `last_duration` is observed. Publishes that end no run count nothing.
  void OnPublish(const ClusterSnapshot& before, const ClusterSnapshot& after);

  // Counts one dry run (GET /v1/placement).
  void CountPlacement(const Result<Placement>& placement);
  // Counts one submission that reached the submitter (Submitter::SetOnFinished).
  void CountSubmission(const SubmissionResult& result);

 private:
  std::array<metrics::Counter*, kTierFields.size()> successes_{};
  std::array<metrics::Counter*, kTierFields.size()> failures_{};
  std::array<metrics::Histogram*, kTierFields.size()> durations_{};
  metrics::Family<metrics::Counter>& placements_;
  metrics::Family<metrics::Counter>& submissions_;
};

// The families computed from `snapshot` at `now`, for a scrape:
//   bplace_queue_pending_slots{queue}   PEND of `bqueues -w` (slots)
//   bplace_queue_running_slots{queue}   RUN
//   bplace_queue_suspended_slots{queue} SUSP
//   bplace_queue_free_slots{queue}      free job slots (bhosts MAX - NJOBS) on
//                                       the hosts the queue admits that take
//                                       new work, any InfiniBand verdict
//   bplace_queue_status{queue, status}  1, status as LSF prints it
//                                       ("Open:Active")
//   bplace_queue_inflight_slots{queue}  slots submitted by bplace that LSF's
//                                       counters do not show yet (`inflight`)
//   bplace_hosts{status, ib}            hosts by `bhosts -w` status and
//                                       InfiniBand verdict
//   bplace_refresh_data_age_seconds{tier}        since the tier's last success
//   bplace_refresh_consecutive_failures{tier}
// Queues in name order; a tier that never succeeded has no age. Without
// load data the queue and host families are empty. Pure.
std::vector<metrics::CollectedFamily> SnapshotFamilies(
    const ClusterSnapshot& snapshot, const std::unordered_map<std::string, std::int64_t>& inflight,
    SystemTime now);

// The families of `limiter` (may be null: nothing refused):
//   bplace_rate_limit_refusals_total{limit="submit_per_user"|"lsf_calls"}
std::vector<metrics::CollectedFamily> RateLimitFamilies(const RateLimiter* limiter);

// A collector of SnapshotFamilies (the cache's current snapshot, the
// ledger's counts, `clock`'s wall time) and RateLimitFamilies. Never runs
// an LSF command. All references must outlive the collector.
metrics::Collector CoreCollector(const ClusterCache& cache, const InflightLedger& ledger,
                                 const RateLimiter* limiter, const Clock& clock);

// The wait predictor's families (docs/api.md "GET /metrics"), read at each
// scrape: bplace_wait_predictions_total and bplace_wait_within_bound_total
// by queue (bplace's jobs that started, compared with the bound their
// placement gave), bplace_wait_coverage_ratio (within / predictions, all
// queues; absent before the first), bplace_waits_learned_total and
// bplace_waits_left_out_total. Both must outlive the collector.
metrics::Collector WaitCollector(const WaitModel& model, const WaitCoverage& coverage);

}  // namespace bplace
