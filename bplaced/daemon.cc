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
#include "daemon/cluster_cache.h"
#include "daemon/inflight_ledger.h"
#include "daemon/local_ib_probe.h"
#include "daemon/rate_limiter.h"
#include "daemon/submitter.h"
#include "lsf_adapter/lsf_invoker.h"
#include "lsf_adapter/subprocess_command_runner.h"

namespace bplace {
namespace {

constexpr const char* kVersion = "0.1.0";

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

const char* IbSourceName(config::IbSource source) {
  switch (source) {
    case config::IbSource::kNone:
      return "none";
    case config::IbSource::kLsload:
      return "lsload";
    case config::IbSource::kLocal:
      return "local";
  }
  return "none";
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
Result<void> CheckModePrivileges(config::AuthMode mode) {
  if (mode == config::AuthMode::kServiceAccount) {
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
  api::AuthPolicy policy;
  policy.mode = config.auth.mode;
  policy.anonymous_read = config.auth.anonymous_read;
  policy.min_uid = static_cast<uid_t>(config.auth.min_uid);
  policy.daemon_user = *user;
  policy.daemon_uid = geteuid();
  api::Authenticator authenticator(policy, tokens);
  RateLimiter limiter(config.limits);

  const int threads = std::max(1, config.server.threads);
  boost::asio::io_context ioc(threads);
  lsf::SubprocessCommandRunner runner(ioc.get_executor());
  const lsf::LsfInvoker lsf(
      config.lsf.bin_dir, config.lsf.env_dir,
      std::chrono::duration_cast<std::chrono::milliseconds>(config.lsf.command_timeout),
      lsf::CurrentEnvironment());
  InflightLedger ledger;
  CacheOptions cache_options;
  cache_options.load_interval = config.lsf.load_refresh;
  cache_options.topology_interval = config.lsf.topology_refresh;
  cache_options.prefetch_user = *user;
  cache_options.ib_from_lsload = config.ib.source == config::IbSource::kLsload;
  RealClock clock;
  ClusterCache cache(ioc.get_executor(), runner, lsf, ledger, clock, cache_options);
  RefusalMemory memory;
  SubmitterOptions submitter_options;
  submitter_options.max_attempts = config.submit.max_attempts;
  submitter_options.excluded_queues = std::unordered_set<std::string>(
      config.placement.exclude_queues.begin(), config.placement.exclude_queues.end());
  submitter_options.require_ib = config.ib.require_ib;
  submitter_options.allow_unknown_ib = config.ib.allow_unknown;
  submitter_options.ib_select = config.ib.source == config::IbSource::kLsload;
  submitter_options.limiter = &limiter;
  Submitter submitter(runner, lsf, cache, ledger, memory, clock, submitter_options);

  api::Services services;
  services.cache = &cache;
  services.submitter = &submitter;
  services.ledger = &ledger;
  services.user = *user;
  services.max_staleness = config.server.max_staleness;
  services.topology_interval = config.lsf.topology_refresh;
  services.job_limits.max_slots = config.submit.max_slots;
  services.version = kVersion;
  services.require_ib = config.ib.require_ib;
  services.auth = &authenticator;
  services.limiter = &limiter;
  services.multi_user = config.auth.mode == config::AuthMode::kMultiUser;
  services.ib_source = IbSourceName(config.ib.source);
  api::Router router;
  api::RegisterRoutes(router, services);

  api::ServerOptions server_options;
  server_options.body_limit_bytes = config.server.body_limit_bytes;
  server_options.header_timeout = config.server.header_timeout;
  server_options.body_timeout = config.server.body_timeout;
  server_options.idle_timeout = config.server.idle_timeout;
  server_options.max_connections = config.server.max_connections;
  // A submission may need max_attempts bsub calls, each up to the command
  // timeout; the handler deadline must not cut that short.
  server_options.handler_timeout =
      config.lsf.command_timeout * (config.submit.max_attempts + 1) + std::chrono::seconds(30);
  auto listeners = Listeners(config.server);
  if (!listeners) return tl::unexpected(listeners.error());
  auto server =
      api::HttpServer::Create(ioc, std::move(*listeners), server_options, router.AsHandler());
  if (!server) {
    return Fail(server.error().code, "cannot listen: " + server.error().message);
  }
  const auto endpoint = (*server)->LocalEndpoint();
  (*server)->Start();
  std::string bound;
  for (const std::string& address : (*server)->BoundAddresses()) {
    bound += (bound.empty() ? "" : ", ") + address;
  }
  spdlog::info(
      "bplaced {} listening on {} as user {} in {} mode (config {}, LSF bin_dir '{}', "
      "LSF_ENVDIR '{}')",
      kVersion, bound, *user,
      config.auth.mode == config::AuthMode::kMultiUser ? "multi-user" : "service-account",
      options_.config_source, lsf.Path(""), config.lsf.env_dir);
  if (!options_.port_file.empty() && endpoint.port() != 0) {
    const std::string temp = options_.port_file + ".tmp";
    std::ofstream(temp) << endpoint.port() << "\n";
    std::rename(temp.c_str(), options_.port_file.c_str());
  }

  std::optional<LocalIbProbe> local_probe;
  if (config.ib.source == config::IbSource::kLocal) {
    LocalIbProbeOptions probe_options;
    probe_options.probe_path = config.ib.probe_path;
    probe_options.config_path = options_.config_path;
    probe_options.host = ShortHostName();
    probe_options.interval = config.ib.local_interval;
    probe_options.probe_timeout = config.ib.probe_timeout;
    probe_options.env = lsf.env();
    local_probe.emplace(ioc.get_executor(), runner, cache, probe_options);
    local_probe->Start();
    spdlog::info("InfiniBand health: running {} every {} s for host {}", config.ib.probe_path,
                 config.ib.local_interval.count(), probe_options.host);
  }

  cache.Start([&cache] {
    const auto snapshot = cache.Current();
    spdlog::info("first snapshot complete: {} queues, {} hosts",
                 snapshot->topology->queues().size(), snapshot->load->hosts.size());
    sd_notify(0, "READY=1\nSTATUS=serving");
  });

  // SIGHUP re-reads the tokens file; a bad file keeps the tokens in force.
  boost::asio::signal_set hangup(ioc, SIGHUP);
  std::function<void()> wait_hangup = [&] {
    hangup.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      if (!config.auth.tokens_file.empty()) {
        auto reloaded = api::TokenStore::Load(config.auth.tokens_file);
        if (reloaded) {
          spdlog::info("SIGHUP: {} tokens loaded from {}", reloaded->size(),
                       config.auth.tokens_file);
          authenticator.SetTokens(std::make_shared<const api::TokenStore>(std::move(*reloaded)));
        } else {
          spdlog::error("SIGHUP: keeping the previous tokens: {}", reloaded.error().message);
        }
      }
      wait_hangup();
    });
  };
  wait_hangup();

  boost::asio::signal_set signals(ioc, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    spdlog::info("signal {}: stopping; finishing requests in flight", signal);
    sd_notify(0, "STOPPING=1");
    cache.Stop();
    hangup.cancel();
    if (local_probe) local_probe->Stop();
    (*server)->Stop([&ioc, &runner] {
      spdlog::info("all connections closed; exiting");
      runner.Shutdown();
      ioc.stop();
    });
  });

  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&ioc] { RunGuarded(ioc); });
  RunGuarded(ioc);
  for (auto& thread : pool) thread.join();
  return {};
}

}  // namespace bplace
