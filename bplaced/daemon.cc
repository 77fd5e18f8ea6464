#include "bplaced/daemon.h"

#include <pwd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "api/auth.h"
#include "api/handlers.h"
#include "api/http/http_server.h"
#include "api/http_metrics.h"
#include "api/placement_answer_cache.h"
#include "api/router.h"
#include "bplaced/config_reload.h"
#include "bplaced/event_log_poller.h"
#include "bplaced/event_loop_thread.h"
#include "bplaced/watchdog_pinger.h"
#include "common/metrics.h"
#include "common/version.h"
#include "daemon/cluster/bjobs_dialect.h"
#include "daemon/cluster/cluster_cache.h"
#include "daemon/cluster/inflight_ledger.h"
#include "daemon/cluster/local_ib_probe.h"
#include "daemon/daemon_metrics.h"
#include "daemon/jobs/job_canceller.h"
#include "daemon/jobs/job_tracker.h"
#include "daemon/placement/job_waits.h"
#include "daemon/placement/wait_coverage.h"
#include "daemon/placement/wait_model.h"
#include "daemon/state/audit_log.h"
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
namespace {

Result<std::string> CurrentUserName() {
  const uid_t uid = geteuid();
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  const int rc = getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found);
  if (rc != 0 || found == nullptr) {
    return Fail(ErrorCode::kNotFound,
                "no user name for uid " + std::to_string(uid) + " in the passwd database");
  }
  return std::string(found->pw_name);
}

// This host's name as LSF names hosts: the short form of gethostname.
std::string ShortHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  std::string host = name;
  return host.substr(0, host.find('.'));
}

// Service-account mode never runs as root (a bug in a parser must not be
// root's); multi-user mode needs exactly the power to become the caller.
Result<void> CheckModePrivileges(api::AuthMode mode) {
  if (mode == api::AuthMode::kServiceAccount) {
    if (geteuid() == 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  "refusing to run as root in service-account mode ([auth] mode); run bplaced as "
                  "the service user, or set mode = \"multi-user\" to submit as each caller");
    }
    return {};
  }
  // Root: setresuid from a non-zero uid would keep capabilities in the child.
  if (geteuid() != 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "multi-user mode ([auth] mode) runs as root (with CAP_SETUID, CAP_SETGID and "
                "CAP_KILL only, see deploy/bplaced-multiuser.service); bplaced runs as uid " +
                    std::to_string(geteuid()));
  }
  // CapEff in /proc/self/status: bit 5 is CAP_KILL, 6 CAP_SETGID, 7 CAP_SETUID.
  std::ifstream status("/proc/self/status");
  std::string line;
  std::uint64_t effective = 0;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      effective = std::strtoull(line.c_str() + 7, nullptr, 16);
    }
  }
  constexpr std::uint64_t kNeeded = (1ULL << 5) | (1ULL << 6) | (1ULL << 7);
  if ((effective & kNeeded) != kNeeded) {
    return Fail(ErrorCode::kInvalidArgument,
                "multi-user mode ([auth] mode) needs CAP_SETUID and CAP_SETGID to run bsub as "
                "each caller and CAP_KILL to stop it at its timeout; CapEff is " +
                    std::to_string(effective));
  }
  return {};
}

// One listener per [server] listen entry, or the sockets systemd passed
// (socket activation), which then replace them.
Result<std::vector<api::ListenerSpec>> Listeners(const config::ServerConfig& server) {
  std::vector<api::ListenerSpec> listeners;
  const int passed = sd_listen_fds(1);
  if (passed < 0) {
    return Fail(ErrorCode::kInvalidArgument,
                std::string("sd_listen_fds: ") + std::strerror(-passed));
  }
  for (int i = 0; i < passed; ++i) {
    api::ListenerSpec spec;
    spec.inherited_fd = SD_LISTEN_FDS_START + i;
    spec.address = "systemd fd " + std::to_string(spec.inherited_fd);
    listeners.push_back(std::move(spec));
  }
  if (!listeners.empty()) return listeners;
  for (const std::string& address : server.listen) {
    api::ListenerSpec spec;
    spec.address = address;
    spec.socket_mode = server.socket_mode;
    spec.socket_group = server.socket_group;
    listeners.push_back(std::move(spec));
  }
  return listeners;
}

// Everything the daemon runs, wired once from the config. Members are
// declared in dependency order: each is built from those above it and
// destroyed before them.
struct Wiring {
  Wiring(const config::Config& config, const std::string& user,
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
        events(refresh.executor(), clock, waits, EventsFor(config, cache)) {
    // GET /metrics (docs/api.md "GET /metrics"): runs counted as they finish,
    // the rest read from the snapshot and the counters at each scrape.
    cache.store().SetObserver([this](const ClusterSnapshot& before, const ClusterSnapshot& after) {
      daemon_metrics.OnPublish(before, after);
      // The jobs tier's jobs teach the wait predictor unless the event log,
      // which holds them too, is read (docs/design.md "Wait prediction").
      LearnFromPublish(before, after, !events.readable(), waits, wait_coverage);
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
    services.cache = &cache;
    services.submitter = &submitter;
    services.ledger = &ledger;
    services.tracker = &tracker;
    services.submissions = &submissions;
    services.canceller = &canceller;
    services.clock = &clock;
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

  // The cache's options: the config's, and the two facts only start-up knows.
  static CacheOptions CacheFor(const config::Config& config, const std::string& user) {
    CacheOptions options = config.refresh;
    options.prefetch_user = user;
    options.ib_from_lsload = config.submit.ib.source == IbSource::kLsload;
    return options;
  }

  // Where the event log is and how often it is read.
  static EventLogPollerOptions EventsFor(const config::Config& config, const ClusterCache& cache) {
    EventLogPollerOptions options;
    options.events_file = config.waits.events_file;
    options.env_dir = config.lsf.env_dir;
    if (options.env_dir.empty()) {
      const char* inherited = std::getenv("LSF_ENVDIR");
      options.env_dir = inherited != nullptr ? inherited : "";
    }
    options.interval = config.refresh.load_interval;
    options.cluster_name = [&cache] { return cache.Current()->identity.cluster_name; };
    return options;
  }

  // Stops the threads of their own before any member their handlers use
  // goes.
  ~Wiring() {
    refresh.Stop();
    for (auto& loop : http_loops) loop->Stop();
  }

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

// The HTTP options: the config's, with a handler deadline that lets a
// submission make max_attempts bsub calls, each up to the command timeout.
api::ServerOptions HttpOptionsFor(const config::Config& config) {
  api::ServerOptions options = config.http;
  options.handler_timeout = std::chrono::duration_cast<std::chrono::seconds>(
      config.lsf.command_timeout * (config.submit.max_attempts + 1) + std::chrono::seconds(30));
  return options;
}

// Binds every listener and starts serving; writes the port file.
Result<void> Listen(Wiring& wiring, const config::Config& config, const DaemonOptions& options,
                    const std::string& user) {
  auto listeners = Listeners(config.server);
  if (!listeners) return tl::unexpected(listeners.error());
  auto server = api::HttpServer::Create(wiring.ioc, std::move(*listeners), HttpOptionsFor(config),
                                        wiring.router.AsHandler(), wiring.router.AsHeaderCheck());
  if (!server) return Fail(server.error().code, "cannot listen: " + server.error().message);
  wiring.server = std::move(*server);
  wiring.registry.AddCollector(api::ConnectionCollector(*wiring.server));
  const auto endpoint = wiring.server->LocalEndpoint();
  // Connections go to the main loop and the others in turn: one io_context
  // per thread shares no queue between threads (N threads on one context
  // served tiny requests slower than one; docs/design.md "Site scale").
  std::vector<boost::asio::io_context*> contexts{&wiring.ioc};
  for (int i = 1; i < config.server.threads; ++i) {
    wiring.http_loops.push_back(
        std::make_unique<EventLoopThread>("bplace-http-" + std::to_string(i)));
    contexts.push_back(&wiring.http_loops.back()->context());
  }
  wiring.server->SpreadConnections(std::move(contexts));
  wiring.server->Start();
  std::string bound;
  for (const std::string& address : wiring.server->BoundAddresses()) {
    bound += (bound.empty() ? "" : ", ") + address;
  }
  spdlog::info(
      "bplaced {} listening on {} as user {} in {} mode (config {}, LSF bin_dir '{}', "
      "LSF_ENVDIR '{}')",
      kVersion, bound, user,
      config.auth.mode == api::AuthMode::kMultiUser ? "multi-user" : "service-account",
      options.config_source, wiring.lsf.Path(""), config.lsf.env_dir);
  if (!options.port_file.empty() && endpoint.port() != 0) {
    const std::string temp = options.port_file + ".tmp";
    std::ofstream(temp) << endpoint.port() << "\n";
    std::rename(temp.c_str(), options.port_file.c_str());
  }
  return {};
}

// What the state store remembers from before this start: the jobs to
// follow, and the submissions whose outcome is not known (the daemon died
// between the intent and bsub's answer). Blocks on the disk, before serving.
Result<void> RestoreState(Wiring& wiring) {
  JobStore& store = wiring.journal.StoreForStartup();
  std::vector<TrackedJob> rows;
  JobFilter filter;
  filter.limit = 1000;
  for (;;) {
    auto page = store.ListJobs(filter);
    if (!page) return Fail(page.error().code, "state store: " + page.error().message);
    rows.insert(rows.end(), page->jobs.begin(), page->jobs.end());
    if (page->next_cursor.empty()) break;
    filter.cursor = page->next_cursor;
  }
  wiring.tracker.Load(rows);
  auto unsettled = store.Unreconciled();
  if (!unsettled) return Fail(unsettled.error().code, "state store: " + unsettled.error().message);
  for (const StoredSubmission& row : *unsettled) {
    std::optional<pid_t> pid;
    if (row.bsub_pid) pid = static_cast<pid_t>(*row.bsub_pid);
    wiring.reconciler.Add({row.caller, row.tag, row.request_id, row.created_at, pid,
                           row.idempotency_key, row.labels});
  }
  if (!unsettled->empty()) {
    spdlog::warn("state store: {} submissions without a known outcome; settling them through LSF",
                 unsettled->size());
  }
  return {};
}

// [ib] source = "local": the probe of this host, run as a child.
void StartLocalProbe(Wiring& wiring, const config::Config& config, const DaemonOptions& options) {
  if (config.submit.ib.source != IbSource::kLocal) return;
  LocalIbProbeOptions probe;
  probe.probe_path = config.submit.ib.probe_path;
  probe.config_path = options.config_path;
  probe.host = ShortHostName();
  probe.interval = config.submit.ib.local_interval;
  probe.probe_timeout = config.probe.probe_timeout;
  probe.env = wiring.lsf.env();
  wiring.local_probe.emplace(wiring.refresh.executor(), wiring.runner, wiring.clock,
                             wiring.cache.store(), probe);
  wiring.local_probe->Start();
  spdlog::info("InfiniBand health: running {} every {} s for host {}", probe.probe_path,
               probe.interval.count(), probe.host);
}

void Notify(const std::string& state) { sd_notify(0, state.c_str()); }

// The watchdog period systemd asks for: half of WATCHDOG_USEC (as
// sd_watchdog_enabled(3) advises), when WatchdogSec= is set for us.
std::optional<std::chrono::milliseconds> WatchdogPeriod() {
  std::uint64_t usec = 0;
  const int enabled = sd_watchdog_enabled(0, &usec);
  if (enabled < 0) {
    spdlog::warn("systemd watchdog: bad WATCHDOG_USEC or WATCHDOG_PID ({}); not pinging",
                 std::strerror(-enabled));
    return std::nullopt;
  }
  if (enabled == 0) return std::nullopt;
  const auto period =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::microseconds(usec / 2));
  return std::max(period, std::chrono::milliseconds(1));
}

// WatchdogSec= set: WATCHDOG=1 from the event loop, from now on.
void StartWatchdog(Wiring& wiring) {
  const auto period = WatchdogPeriod();
  if (!period) return;
  std::vector<boost::asio::any_io_executor> watched{wiring.refresh.executor()};
  for (auto& loop : wiring.http_loops) watched.push_back(loop->executor());
  wiring.watchdog.emplace(wiring.ioc.get_executor(), wiring.clock, *period, Notify,
                          std::move(watched));
  wiring.watchdog->Start();
  spdlog::info(
      "systemd watchdog: WATCHDOG=1 every {} ms while every event loop runs (HTTP, refresh)",
      period->count());
}

// What SIGHUP needs besides the wiring: the config in force and where it
// came from. Used on the signal's handler only (one at a time), except
// `ready`, set once by the first snapshot.
struct Reloading {
  config::Config running;
  std::string path;             // the config file; empty: started without one
  std::string listen_override;  // --listen, which replaces server.listen of every file read
  std::atomic<bool> ready{false};
};

// SIGHUP: re-reads the config file and applies what can change at run time
// (bplaced/config_reload.h); a bad file keeps the running config. systemd
// is told RELOADING=1 before and READY=1 after, with the outcome in STATUS=
// (before the first READY=1, only the STATUS=).
void Reload(Wiring& wiring, Reloading& reloading) {
  const bool ready = reloading.ready.load();
  if (ready) {
    // MONOTONIC_USEC: systemd 253+ matches it to the signal it sent.
    const auto now = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now().time_since_epoch());
    Notify("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(now.count()));
  }
  Result<config::Config> reread = reloading.running;
  if (!reloading.path.empty()) reread = config::LoadConfigFile(reloading.path);
  if (reread && !reloading.listen_override.empty()) {
    reread->server.listen = {reloading.listen_override};
  }
  ReloadTargets targets;
  targets.set_limits = [&wiring](const RateLimiterOptions& limits) {
    wiring.limiter.SetLimits(limits, wiring.clock.SteadyNow());
  };
  targets.set_refresh = [&wiring](const CacheOptions& refresh) {
    wiring.cache.SetIntervals(refresh.load_interval, refresh.topology_interval);
  };
  targets.set_jobs = [&wiring](const JobTrackerOptions& jobs) {
    wiring.tracker.SetInterval(jobs.interval);
    wiring.reconciler.SetInterval(jobs.interval);
  };
  targets.set_submit = [&wiring](const SubmitterOptions& submit) {
    wiring.submitter.SetOptions(submit);
  };
  targets.set_log_level = [](const std::string& level) {
    spdlog::set_level(spdlog::level::from_str(level));
  };
  targets.reload_tokens = [&wiring](const std::string& file) -> Result<std::size_t> {
    auto loaded = api::TokenStore::Load(file);
    if (!loaded) return tl::unexpected(loaded.error());
    const std::size_t count = loaded->size();
    wiring.authenticator.SetTokens(std::make_shared<const api::TokenStore>(std::move(*loaded)));
    return count;
  };
  ReloadOutcome outcome = ApplyReload(reloading.running, reread, targets);
  for (const ReloadLogLine& line : outcome.log) {
    switch (line.level) {
      case ReloadLogLine::Level::kInfo:
        spdlog::info("SIGHUP: {}", line.text);
        break;
      case ReloadLogLine::Level::kWarn:
        spdlog::warn("SIGHUP: {}", line.text);
        break;
      case ReloadLogLine::Level::kError:
        spdlog::error("SIGHUP: {}", line.text);
        break;
    }
  }
  spdlog::info("SIGHUP: {}", outcome.status);
  reloading.running = std::move(outcome.running);
  Notify(std::string(ready ? "READY=1\n" : "") + "STATUS=" + outcome.status);
}

void WaitForHangup(boost::asio::signal_set& hangup, Wiring& wiring, Reloading& reloading) {
  hangup.async_wait([&hangup, &wiring, &reloading](const boost::system::error_code& ec, int) {
    if (ec) return;
    Reload(wiring, reloading);
    WaitForHangup(hangup, wiring, reloading);
  });
}

// SIGTERM/SIGINT: stop the tiers, drain the connections, then the runner.
void StopOnSignal(boost::asio::signal_set& signals, boost::asio::signal_set& hangup,
                  Wiring& wiring) {
  signals.async_wait([&hangup, &wiring](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    spdlog::info("signal {}: stopping; finishing requests in flight", signal);
    sd_notify(0, "STOPPING=1");
    wiring.cache.Stop();
    wiring.tracker.Stop();
    wiring.reconciler.Stop();
    wiring.events.Stop();
    hangup.cancel();
    if (wiring.local_probe) wiring.local_probe->Stop();
    wiring.server->Stop([&wiring] {
      spdlog::info("all connections closed; exiting");
      if (wiring.watchdog) wiring.watchdog->Stop();
      wiring.subprocess.Shutdown();
      wiring.ioc.stop();
    });
  });
}

}  // namespace

Daemon::Daemon(DaemonOptions options) : options_(std::move(options)) {}

Daemon::~Daemon() = default;

Result<void> Daemon::Run() {
  if (!options_.listen_override.empty()) options_.config.server.listen = {options_.listen_override};
  const config::Config& config = options_.config;
  auto user = CurrentUserName();
  if (!user) return tl::unexpected(user.error());
  if (auto mode_ok = CheckModePrivileges(config.auth.mode); !mode_ok) {
    return tl::unexpected(mode_ok.error());
  }
  std::shared_ptr<const api::TokenStore> tokens;
  if (!config.auth.tokens_file.empty()) {
    auto loaded = api::TokenStore::Load(config.auth.tokens_file);
    if (!loaded) return tl::unexpected(loaded.error());
    tokens = std::make_shared<const api::TokenStore>(std::move(*loaded));
  }
  auto store = JobStore::Open(config.state.dir);
  if (!store) {
    return Fail(store.error().code,
                "cannot open the state store ([state] dir): " + store.error().message);
  }
  // After the state store: the default audit file is in its directory,
  // which JobStore::Open has made.
  auto audit = OpenAuditFile(config.audit, config.state.dir);
  if (!audit) return Fail(audit.error().code, audit.error().message + " ([log] audit_file)");
  SetAuditSink(*audit);
  spdlog::info("audit records go to {}", AuditFilePath(config.audit, config.state.dir));
  Wiring wiring(config, *user, std::move(tokens), std::move(*store));
  if (auto restored = RestoreState(wiring); !restored) return restored;
  if (auto listening = Listen(wiring, config, options_, *user); !listening) return listening;
  StartWatchdog(wiring);
  StartLocalProbe(wiring, config, options_);
  wiring.tracker.Start();
  wiring.reconciler.Start();
  wiring.events.Start();
  Reloading reloading;
  reloading.running = config;
  reloading.path = options_.config_path;
  reloading.listen_override = options_.listen_override;
  wiring.cache.Start([&wiring, &reloading] {
    const auto snapshot = wiring.cache.Current();
    spdlog::info("first snapshot complete: {} queues, {} hosts",
                 snapshot->topology->queues().size(), snapshot->load->hosts.size());
    sd_notify(0, "READY=1\nSTATUS=serving");
    reloading.ready = true;
  });
  boost::asio::signal_set hangup(wiring.ioc, SIGHUP);
  WaitForHangup(hangup, wiring, reloading);
  boost::asio::signal_set signals(wiring.ioc, SIGTERM, SIGINT);
  StopOnSignal(signals, hangup, wiring);

  RunGuarded(wiring.ioc);
  return {};
}

}  // namespace bplace
