#pragma once

// The daemon's services, built once from the config: the runner, the
// cluster cache and its tiers, placement, submission, jobs, the API's
// services and router. bplaced/daemon.cc builds one and starts it.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "api/auth.h"
#include "api/handlers.h"
#include "api/http/http_server.h"
#include "api/http_metrics.h"
#include "api/placement_answer_cache.h"
#include "api/router.h"
#include "bplaced/event_log_poller.h"
#include "bplaced/event_loop_thread.h"
#include "bplaced/watchdog_pinger.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "config/config.h"
#include "daemon/cluster/bjobs_dialect.h"
#include "daemon/cluster/cluster_cache.h"
#include "daemon/cluster/inflight_ledger.h"
#include "daemon/cluster/local_ib_probe.h"
#include "daemon/daemon_metrics.h"
#include "daemon/jobs/job_canceller.h"
#include "daemon/jobs/job_tracker.h"
#include "daemon/placement/wait_coverage.h"
#include "daemon/placement/wait_model.h"
#include "daemon/state/job_journal.h"
#include "daemon/state/job_store.h"
#include "daemon/submit/rate_limiter.h"
#include "daemon/submit/reconciler.h"
#include "daemon/submit/submission_service.h"
#include "daemon/submit/submitter.h"
#include "lsf_adapter/lsf_invoker.h"
#include "lsf_adapter/metered_command_runner.h"
#include "lsf_adapter/subprocess_command_runner.h"

namespace bplace {

// Everything the daemon runs, wired once from the config. Members are
// declared in dependency order: each is built from those above it and
// destroyed before them.
//
// Built, started and destroyed on the main thread; each member states its
// own thread safety.
struct Wiring {
  // Builds every service from `config`; `user` is the daemon's own user,
  // `tokens` the [auth] tokens (null: none), `store` the opened state store.
  // Starts nothing: the tiers start in Daemon::Run, after the state is
  // restored and the listeners are bound.
  Wiring(const config::Config& config, const std::string& user,
         std::shared_ptr<const api::TokenStore> tokens, std::unique_ptr<JobStore> store);

  // The cache's options: the config's, and the two facts only start-up knows.
  static CacheOptions CacheFor(const config::Config& config, const std::string& user);

  // Where the event log is and how often it is read; the waits it gives
  // judge bplace's own jobs into `coverage`.
  static EventLogPollerOptions EventsFor(const config::Config& config, const ClusterCache& cache,
                                         WaitCoverage& coverage);

  // Stops the threads of their own before any member their handlers use
  // goes.
  ~Wiring();

  // The main thread's: LSF child processes (bsub too), signals, the
  // listeners, and its share of the HTTP connections.
  boost::asio::io_context ioc;
  // The refresh tiers (load, topology, IB, jobs, reconcile) and what they
  // call back: parsing LSF output and building a snapshot take this thread,
  // never one serving HTTP (docs/design.md "Threads").
  EventLoopThread refresh;
  RealClock clock;
  metrics::Registry registry;
  DaemonMetrics daemon_metrics;
  api::HttpMetrics http_metrics;
  lsf::SubprocessCommandRunner subprocess;
  lsf::MeteredCommandRunner runner;  // `subprocess`, every command counted (GET /metrics)
  const lsf::LsfInvoker lsf;
  InflightLedger ledger;
  // The wait predictor and how its bounds fared (docs/design.md "Wait
  // prediction"); before the cache, whose observer feeds them.
  WaitModel waits;
  WaitCoverage wait_coverage;
  ClusterCache cache;
  RefusalMemory memory;
  RateLimiter limiter;
  Submitter submitter;
  api::Authenticator authenticator;
  JobJournal journal;
  // What this cluster's bjobs understands, learned once: read by the jobs
  // tier, the reconciler and the cross-node key check.
  BjobsDialect dialect;
  JobTracker tracker;
  SubmissionService submissions;
  Reconciler reconciler;
  JobCanceller canceller;
  EventLogPoller events;                        // LSF's event log -> waits
  api::PlacementAnswerCache placement_answers;  // GET /v1/placement answers until an input changes
  api::Services services;
  api::Router router;
  // server.threads - 1 threads of their own, each serving its share of the
  // HTTP connections on its own io_context (api::HttpServer::SpreadConnections).
  std::vector<std::unique_ptr<EventLoopThread>> http_loops;
  std::unique_ptr<api::HttpServer> server;
  std::optional<LocalIbProbe> local_probe;
  std::optional<WatchdogPinger> watchdog;
};

}  // namespace bplace
