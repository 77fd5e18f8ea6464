#include "daemon/daemon_metrics.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

#include "daemon/cluster/cluster_cache.h"
#include "daemon/cluster/inflight_ledger.h"
#include "daemon/submit/rate_limiter.h"

namespace bplace {
namespace {

using metrics::CollectedFamily;
using metrics::MetricType;

double Seconds(std::chrono::duration<double> d) { return d.count(); }

CollectedFamily QueueFamily(std::string name, std::string help) {
  return {std::move(name), std::move(help), MetricType::kGauge, {"queue"}, {}};
}

}  // namespace

DaemonMetrics::DaemonMetrics(metrics::Registry& registry)
    : placements_(
          registry.AddCounter("bplace_placements_total",
                              "Placement dry runs (GET /v1/placement) by outcome and chosen queue.",
                              {"outcome", "queue"})),
      submissions_(registry.AddCounter(
          "bplace_submissions_total",
          "Job submissions that reached bsub's turn (POST /v1/jobs), by outcome and the queue "
          "LSF put the job in (or the last one tried).",
          {"outcome", "queue"})) {
  auto& runs = registry.AddCounter("bplace_refresh_runs_total",
                                   "Refresh runs of each tier, by outcome.", {"tier", "outcome"});
  auto& durations = registry.AddHistogram(
      "bplace_refresh_duration_seconds",
      "Duration of refresh runs (the LSF commands and building the snapshot), by tier.", {"tier"},
      metrics::LatencyBuckets());
  for (std::size_t i = 0; i < kTierFields.size(); ++i) {
    const std::string tier(kTierFields[i].name);
    successes_[i] = &runs.WithLabels({tier, "success"});
    failures_[i] = &runs.WithLabels({tier, "failure"});
    durations_[i] = &durations.WithLabels({tier});
  }
}

void DaemonMetrics::OnPublish(const ClusterSnapshot& before, const ClusterSnapshot& after) {
  for (std::size_t i = 0; i < kTierFields.size(); ++i) {
    const TierStatus& was = before.*kTierFields[i].status;
    const TierStatus& is = after.*kTierFields[i].status;
    const bool succeeded = is.successes > was.successes;
    // A failure after a success starts again at 1, so this also holds then.
    const bool failed = is.consecutive_failures > was.consecutive_failures;
    if (!succeeded && !failed) continue;
    (succeeded ? successes_ : failures_)[i]->Inc();
    durations_[i]->Observe(Seconds(is.last_duration));
  }
}

void DaemonMetrics::CountPlacement(const Result<Placement>& placement) {
  if (!placement) {
    placements_.WithLabels({ErrorCodeName(placement.error().code), ""}).Inc();
  } else if (placement->candidates.empty()) {
    placements_.WithLabels({"no_queue", ""}).Inc();
  } else {
    placements_.WithLabels({"placed", placement->candidates.front().queue}).Inc();
  }
}

void DaemonMetrics::CountSubmission(const SubmissionResult& result) {
  if (!result.error) {
    submissions_.WithLabels({"submitted", result.queue}).Inc();
    return;
  }
  const std::string queue = result.attempts.empty() ? "" : result.attempts.back().queue;
  submissions_.WithLabels({ErrorCodeName(result.error->code), queue}).Inc();
}

std::vector<CollectedFamily> SnapshotFamilies(
    const ClusterSnapshot& snapshot, const std::unordered_map<std::string, std::int64_t>& inflight,
    SystemTime now) {
  CollectedFamily pend = QueueFamily("bplace_queue_pending_slots",
                                     "Pending job slots of the queue (PEND of bqueues -w).");
  CollectedFamily run = QueueFamily("bplace_queue_running_slots",
                                    "Running job slots of the queue (RUN of bqueues -w).");
  CollectedFamily susp = QueueFamily("bplace_queue_suspended_slots",
                                     "Suspended job slots of the queue (SUSP of bqueues -w).");
  CollectedFamily free = QueueFamily(
      "bplace_queue_free_slots",
      "Free job slots (bhosts MAX - NJOBS) on the hosts the queue admits that take new work.");
  CollectedFamily inflight_slots =
      QueueFamily("bplace_queue_inflight_slots",
                  "Job slots bplace submitted to the queue that LSF's counters do not show yet.");
  CollectedFamily status{"bplace_queue_status",
                         "The queue's status as bqueues prints it (value 1).",
                         MetricType::kGauge,
                         {"queue", "status"},
                         {}};
  CollectedFamily hosts{"bplace_hosts",
                        "Hosts by bhosts -w status and InfiniBand verdict.",
                        MetricType::kGauge,
                        {"status", "ib"},
                        {}};
  if (snapshot.load) {
    std::vector<const lsf::QueueLoad*> queues;
    for (const auto& [name, queue] : snapshot.load->queues) queues.push_back(&queue);
    std::sort(queues.begin(), queues.end(),
              [](const lsf::QueueLoad* a, const lsf::QueueLoad* b) { return a->name < b->name; });
    for (const lsf::QueueLoad* queue : queues) {
      const std::vector<std::string> label{queue->name};
      pend.samples.push_back({label, static_cast<double>(queue->pend)});
      run.samples.push_back({label, static_cast<double>(queue->run)});
      susp.samples.push_back({label, static_cast<double>(queue->susp)});
      const auto counts = snapshot.host_counts.find(queue->name);
      const std::int64_t free_slots =
          counts == snapshot.host_counts.end() ? 0 : counts->second.Slots(true, true).free;
      free.samples.push_back({label, static_cast<double>(free_slots)});
      const auto charged = inflight.find(queue->name);
      inflight_slots.samples.push_back(
          {label, static_cast<double>(charged == inflight.end() ? 0 : charged->second)});
      status.samples.push_back({{queue->name, queue->status.text}, 1});
    }
    std::map<std::pair<std::string, std::string>, std::int64_t> by_status;
    for (const lsf::HostStatus& host : snapshot.load->hosts) {
      // As the API answers it (HostIbOf): a closed host is never "healthy".
      const IbHealth verdict = HostIbOf(snapshot.ib.get(), &host, host.name).health;
      ++by_status[{host.status, IbHealthName(verdict)}];
    }
    for (const auto& [key, count] : by_status) {
      hosts.samples.push_back({{key.first, key.second}, static_cast<double>(count)});
    }
  }
  CollectedFamily age{"bplace_refresh_data_age_seconds",
                      "Seconds since the tier's last successful refresh began.",
                      MetricType::kGauge,
                      {"tier"},
                      {}};
  CollectedFamily failing{"bplace_refresh_consecutive_failures",
                          "Refresh runs of the tier that failed since its last success.",
                          MetricType::kGauge,
                          {"tier"},
                          {}};
  for (const TierField& tier : kTierFields) {
    const TierStatus& status_of_tier = snapshot.*tier.status;
    const std::vector<std::string> label{std::string(tier.name)};
    if (status_of_tier.last_success) {
      age.samples.push_back({label, std::max(0.0, Seconds(now - *status_of_tier.last_success))});
    }
    failing.samples.push_back({label, static_cast<double>(status_of_tier.consecutive_failures)});
  }
  std::vector<CollectedFamily> families;
  for (CollectedFamily* family :
       {&pend, &run, &susp, &free, &inflight_slots, &status, &hosts, &age, &failing}) {
    families.push_back(std::move(*family));
  }
  return families;
}

std::vector<CollectedFamily> RateLimitFamilies(const RateLimiter* limiter) {
  CollectedFamily refusals{
      "bplace_rate_limit_refusals_total",
      "Requests refused by [limits]: a user's submissions, or LSF calls caused by requests.",
      MetricType::kCounter,
      {"limit"},
      {}};
  const double submissions = limiter ? static_cast<double>(limiter->SubmissionRefusals()) : 0;
  const double lsf_calls = limiter ? static_cast<double>(limiter->LsfCallRefusals()) : 0;
  refusals.samples.push_back({{"submit_per_user"}, submissions});
  refusals.samples.push_back({{"lsf_calls"}, lsf_calls});
  return {std::move(refusals)};
}

metrics::Collector CoreCollector(const ClusterCache& cache, const InflightLedger& ledger,
                                 const RateLimiter* limiter, const Clock& clock) {
  return [&cache, &ledger, limiter, &clock] {
    std::vector<CollectedFamily> families =
        SnapshotFamilies(*cache.Current(), ledger.Counts(), clock.SystemNow());
    for (CollectedFamily& family : RateLimitFamilies(limiter))
      families.push_back(std::move(family));
    return families;
  };
}

metrics::Collector WaitCollector(const WaitModel& model, const WaitCoverage& coverage) {
  return [&model, &coverage] {
    CollectedFamily predictions{
        "bplace_wait_predictions_total",
        "Jobs bplace submitted that started, whose placement gave a wait bound, by queue.",
        MetricType::kCounter,
        {"queue"},
        {}};
    CollectedFamily within{"bplace_wait_within_bound_total",
                           "Of bplace_wait_predictions_total, jobs that started within the bound.",
                           MetricType::kCounter,
                           {"queue"},
                           {}};
    for (const auto& [queue, counts] : coverage.ByQueue()) {
      predictions.samples.push_back({{queue}, static_cast<double>(counts.predictions)});
      within.samples.push_back({{queue}, static_cast<double>(counts.within_bound)});
    }
    std::vector<CollectedFamily> families{std::move(predictions), std::move(within)};
    const QueueCoverage total = coverage.Total();
    if (total.predictions > 0) {
      families.push_back(
          {"bplace_wait_coverage_ratio",
           "Share of bplace's started jobs whose wait was within the bound.",
           MetricType::kGauge,
           {},
           {{{},
             static_cast<double>(total.within_bound) / static_cast<double>(total.predictions)}}});
    }
    families.push_back({"bplace_waits_learned_total",
                        "Waits the predictor learned (the event log, or bplace's jobs).",
                        MetricType::kCounter,
                        {},
                        {{{}, static_cast<double>(model.learned())}}});
    families.push_back({"bplace_waits_left_out_total",
                        "Waits left out: inconsistent times, or the queue was not dispatching.",
                        MetricType::kCounter,
                        {},
                        {{{}, static_cast<double>(model.left_out())}}});
    return families;
  };
}

}  // namespace bplace
