// The daemon's services, built once from the config (bplaced/wiring.h).
#include "bplaced/wiring.h"

#include <cstdlib>
#include <utility>

#include "common/version.h"
#include "daemon/placement/job_waits.h"

namespace bplace {

Wiring::Wiring(const config::Config& config, const std::string& user,
               std::shared_ptr<const api::TokenStore> tokens, std::unique_ptr<JobStore> store)
    : ioc(1),
      refresh("bplace-refresh"),
      daemon_metrics(registry),
      http_metrics(registry, clock),
      subprocess(ioc.get_executor()),
      runner(subprocess, registry),
      lsf(config.lsf, lsf::CurrentEnvironment()),
      cache(refresh.executor(), runner, lsf, ledger, clock, CacheFor(config, user)),
      memory(config.submit.esub_refusal_memory),
      limiter(config.limits),
      submitter(runner, lsf, cache, ledger, memory, clock, config.submit, &limiter),
      authenticator(api::AuthPolicy{config.auth, user, geteuid()}, std::move(tokens)),
      journal(std::move(store)),
      tracker(refresh.executor(), runner, clock, cache.store(), lsf, &journal, config.jobs,
              dialect),
      submissions(submitter, tracker, &journal, clock, runner, lsf, config.exactly_once),
      reconciler(refresh.executor(), runner, clock, cache.store(), lsf, journal, submissions,
                 tracker, config.jobs.interval),
      canceller(runner, lsf),
      events(refresh.executor(), clock, waits, EventsFor(config, cache, wait_coverage)),
      services(cache, submitter, ledger, submissions, clock) {
  // GET /metrics (docs/api.md "GET /metrics"): runs counted as they finish,
  // the rest read from the snapshot and the counters at each scrape.
  cache.store().SetObserver([this](const ClusterSnapshot& before, const ClusterSnapshot& after) {
    daemon_metrics.OnPublish(before, after);
    // The jobs tier's jobs teach the wait predictor and judge bplace's
    // predictions unless the event log, which holds them too (to the
    // second), is read (docs/design.md "Wait prediction").
    LearnFromPublish(before, after, events.readable(), waits, wait_coverage);
  });
  submitter.SetWaitModel(&waits);
  registry.AddCollector(WaitCollector(waits, wait_coverage));
  submitter.SetOnFinished(
      [this](const SubmissionResult& result) { daemon_metrics.CountSubmission(result); });
  registry.AddCollector(CoreCollector(cache, ledger, &limiter, clock));
  router.SetObserver(&http_metrics);
  submissions.SetOnUnknown([this](const SubmissionCall& call, SystemTime created_at) {
    reconciler.Add({call.context.user, call.context.tag, call.context.request_id, created_at,
                    std::nullopt, call.idempotency_key, call.labels});
  });
  services.auth = &authenticator;
  services.limiter = &limiter;
  services.tracker = &tracker;
  services.canceller = &canceller;
  services.user = user;
  services.options = config.api;
  services.version = kVersion;
  services.metrics = &registry;
  services.daemon_metrics = &daemon_metrics;
  services.placement_answers = &placement_answers;
  services.waits = &waits;
  services.wait_coverage = &wait_coverage;
  api::RegisterRoutes(router, services);
}

CacheOptions Wiring::CacheFor(const config::Config& config, const std::string& user) {
  CacheOptions options = config.refresh;
  options.prefetch_user = user;
  options.ib_from_lsload = config.submit.ib.source == IbSource::kLsload;
  return options;
}

EventLogPollerOptions Wiring::EventsFor(const config::Config& config, const ClusterCache& cache,
                                        WaitCoverage& coverage) {
  EventLogPollerOptions options;
  options.events_file = config.waits.events_file;
  options.env_dir = config.lsf.env_dir;
  if (options.env_dir.empty()) {
    const char* inherited = std::getenv("LSF_ENVDIR");
    options.env_dir = inherited != nullptr ? inherited : "";
  }
  options.interval = config.refresh.load_interval;
  options.cluster_name = [&cache] { return cache.Current()->identity.cluster_name; };
  // bplace's own jobs among them are judged against their predictions.
  options.on_waits = [&cache, &coverage](const std::vector<WaitObservation>& read) {
    const auto snapshot = cache.Current();
    if (snapshot->jobs) JudgeEventWaits(read, *snapshot->jobs, coverage);
  };
  // ... and learned behind the backlog bplace saw when it placed them.
  options.annotate = [&cache](std::vector<WaitObservation>& read) {
    const auto snapshot = cache.Current();
    if (!snapshot->jobs) return;
    for (WaitObservation& wait : read) AddSubmissionContext(*snapshot->jobs, wait);
  };
  return options;
}

Wiring::~Wiring() {
  refresh.Stop();
  for (auto& loop : http_loops) loop->Stop();
}

}  // namespace bplace
