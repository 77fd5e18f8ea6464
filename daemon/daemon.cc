#include "daemon/daemon.h"

#include <pwd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "api/handlers.h"
#include "api/http_server.h"
#include "api/router.h"
#include "daemon/cluster_cache.h"
#include "daemon/inflight_ledger.h"
#include "daemon/local_ib_probe.h"
#include "daemon/lsf_invoker.h"
#include "daemon/submitter.h"
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

}  // namespace

Daemon::Daemon(DaemonOptions options) : options_(std::move(options)) {}

Daemon::~Daemon() = default;

Result<void> Daemon::Run() {
  const config::Config& config = options_.config;
  auto user = CurrentUserName();
  if (!user) return tl::unexpected(user.error());

  const int threads = std::max(1, config.server.threads);
  boost::asio::io_context ioc(threads);
  lsf::SubprocessCommandRunner runner(ioc.get_executor());
  const LsfInvoker lsf(
      config.lsf.bin_dir, config.lsf.env_dir,
      std::chrono::duration_cast<std::chrono::milliseconds>(config.lsf.command_timeout),
      CurrentEnvironment());
  InflightLedger ledger;
  CacheOptions cache_options;
  cache_options.load_interval = config.lsf.load_refresh;
  cache_options.topology_interval = config.lsf.topology_refresh;
  cache_options.prefetch_user = *user;
  cache_options.ib_from_lsload = config.ib.source == config::IbSource::kLsload;
  ClusterCache cache(ioc.get_executor(), runner, lsf, ledger, cache_options);
  SubmitterOptions submitter_options;
  submitter_options.max_attempts = config.submit.max_attempts;
  submitter_options.excluded_queues = std::unordered_set<std::string>(
      config.placement.exclude_queues.begin(), config.placement.exclude_queues.end());
  submitter_options.require_ib = config.ib.require_ib;
  submitter_options.allow_unknown_ib = config.ib.allow_unknown;
  submitter_options.ib_select = config.ib.source == config::IbSource::kLsload;
  Submitter submitter(runner, lsf, cache, ledger, submitter_options);

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
  auto server = api::HttpServer::Create(ioc, config.server.listen.front(), server_options,
                                        router.AsHandler());
  if (!server) {
    return Fail(server.error().code,
                "cannot listen on " + config.server.listen.front() + ": " + server.error().message);
  }
  const auto endpoint = (*server)->LocalEndpoint();
  (*server)->Start();
  spdlog::info(
      "bplaced {} listening on {}:{} as user {} (config {}, LSF bin_dir '{}', "
      "LSF_ENVDIR '{}')",
      kVersion, endpoint.address().to_string(), endpoint.port(), *user, options_.config_source,
      lsf.Path(""), config.lsf.env_dir);
  if (!options_.port_file.empty()) {
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

  boost::asio::signal_set signals(ioc, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    spdlog::info("signal {}: stopping; finishing requests in flight", signal);
    sd_notify(0, "STOPPING=1");
    cache.Stop();
    if (local_probe) local_probe->Stop();
    (*server)->Stop([&ioc, &runner] {
      spdlog::info("all connections closed; exiting");
      runner.Shutdown();
      ioc.stop();
    });
  });

  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (auto& thread : pool) thread.join();
  return {};
}

}  // namespace bplace
