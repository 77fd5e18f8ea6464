#include "bplaced/daemon.h"

#include <pwd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <csignal>
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
#include "api/http_server.h"
#include "api/router.h"
#include "common/version.h"
#include "daemon/cluster_cache.h"
#include "daemon/inflight_ledger.h"
#include "daemon/job_canceller.h"
#include "daemon/job_journal.h"
#include "daemon/job_store.h"
#include "daemon/job_tracker.h"
#include "daemon/local_ib_probe.h"
#include "daemon/rate_limiter.h"
#include "daemon/reconciler.h"
#include "daemon/submission_service.h"
#include "daemon/submitter.h"
#include "lsf_adapter/lsf_invoker.h"
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

// Runs the event loop until it is stopped. The last exception boundary:
// a throw that escapes a handler is logged and the loop goes on, rather than
// end the daemon (the refresh tiers, HTTP sessions and bsub callbacks have
// their own boundaries; this one catches what they miss).
void RunGuarded(boost::asio::io_context& ioc) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      spdlog::error("internal error escaped to the event loop (serving on): {}", e.what());
    }
  }
}

// Everything the daemon runs, wired once from the config. Members are
// declared in dependency order: each is built from those above it and
// destroyed before them.
struct Wiring {
  Wiring(const config::Config& config, const std::string& user,
         std::shared_ptr<const api::TokenStore> tokens, std::unique_ptr<JobStore> store)
      : ioc(std::max(1, config.server.threads)),
        runner(ioc.get_executor()),
        lsf(config.lsf, lsf::CurrentEnvironment()),
        cache(ioc.get_executor(), runner, lsf, ledger, clock, CacheFor(config, user)),
        memory(config.submit.esub_refusal_memory),
        limiter(config.limits),
        submitter(runner, lsf, cache, ledger, memory, clock, config.submit, &limiter),
        authenticator(api::AuthPolicy{config.auth, user, geteuid()}, std::move(tokens)),
        journal(std::move(store)),
        tracker(ioc.get_executor(), runner, clock, cache.store(), lsf, &journal, config.jobs),
        submissions(submitter, tracker, &journal, clock, runner, lsf, config.exactly_once),
        reconciler(ioc.get_executor(), runner, clock, cache.store(), lsf, journal, submissions,
                   tracker, config.jobs.interval),
        canceller(runner, lsf) {
    submissions.SetOnUnknown([this](const SubmissionCall& call, SystemTime created_at) {
      reconciler.Add(
          {call.context.user, call.context.tag, call.context.request_id, created_at, std::nullopt});
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
    api::RegisterRoutes(router, services);
  }

  // The cache's options: the config's, and the two facts only start-up knows.
  static CacheOptions CacheFor(const config::Config& config, const std::string& user) {
    CacheOptions options = config.refresh;
    options.prefetch_user = user;
    options.ib_from_lsload = config.submit.ib.source == IbSource::kLsload;
    return options;
  }

  boost::asio::io_context ioc;
  RealClock clock;
  lsf::SubprocessCommandRunner runner;
  const lsf::LsfInvoker lsf;
  InflightLedger ledger;
  ClusterCache cache;
  RefusalMemory memory;
  RateLimiter limiter;
  Submitter submitter;
  api::Authenticator authenticator;
  JobJournal journal;
  JobTracker tracker;
  SubmissionService submissions;
  Reconciler reconciler;
  JobCanceller canceller;
  api::Services services;
  api::Router router;
  std::unique_ptr<api::HttpServer> server;
  std::optional<LocalIbProbe> local_probe;
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
  const auto endpoint = wiring.server->LocalEndpoint();
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
    wiring.reconciler.Add({row.caller, row.tag, row.request_id, row.created_at, pid});
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
  wiring.local_probe.emplace(wiring.ioc.get_executor(), wiring.runner, wiring.clock,
                             wiring.cache.store(), probe);
  wiring.local_probe->Start();
  spdlog::info("InfiniBand health: running {} every {} s for host {}", probe.probe_path,
               probe.interval.count(), probe.host);
}

// SIGHUP re-reads the tokens file; a bad file keeps the tokens in force.
void WaitForHangup(boost::asio::signal_set& hangup, Wiring& wiring, const std::string& file) {
  hangup.async_wait([&hangup, &wiring, file](const boost::system::error_code& ec, int) {
    if (ec) return;
    if (!file.empty()) {
      auto reloaded = api::TokenStore::Load(file);
      if (reloaded) {
        spdlog::info("SIGHUP: {} tokens loaded from {}", reloaded->size(), file);
        wiring.authenticator.SetTokens(
            std::make_shared<const api::TokenStore>(std::move(*reloaded)));
      } else {
        spdlog::error("SIGHUP: keeping the previous tokens: {}", reloaded.error().message);
      }
    }
    WaitForHangup(hangup, wiring, file);
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
    hangup.cancel();
    if (wiring.local_probe) wiring.local_probe->Stop();
    wiring.server->Stop([&wiring] {
      spdlog::info("all connections closed; exiting");
      wiring.runner.Shutdown();
      wiring.ioc.stop();
    });
  });
}

}  // namespace

Daemon::Daemon(DaemonOptions options) : options_(std::move(options)) {}

Daemon::~Daemon() = default;

Result<void> Daemon::Run() {
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
  Wiring wiring(config, *user, std::move(tokens), std::move(*store));
  if (auto restored = RestoreState(wiring); !restored) return restored;
  if (auto listening = Listen(wiring, config, options_, *user); !listening) return listening;
  StartLocalProbe(wiring, config, options_);
  wiring.tracker.Start();
  wiring.reconciler.Start();
  wiring.cache.Start([&wiring] {
    const auto snapshot = wiring.cache.Current();
    spdlog::info("first snapshot complete: {} queues, {} hosts",
                 snapshot->topology->queues().size(), snapshot->load->hosts.size());
    sd_notify(0, "READY=1\nSTATUS=serving");
  });
  boost::asio::signal_set hangup(wiring.ioc, SIGHUP);
  WaitForHangup(hangup, wiring, config.auth.tokens_file);
  boost::asio::signal_set signals(wiring.ioc, SIGTERM, SIGINT);
  StopOnSignal(signals, hangup, wiring);

  std::vector<std::thread> pool;
  for (int i = 1; i < std::max(1, config.server.threads); ++i) {
    pool.emplace_back([&wiring] { RunGuarded(wiring.ioc); });
  }
  RunGuarded(wiring.ioc);
  for (auto& thread : pool) thread.join();
  return {};
}

}  // namespace bplace
