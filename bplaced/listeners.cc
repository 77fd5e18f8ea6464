// Binding the HTTP listeners and starting to serve (bplaced/listeners.h).
#include "bplaced/listeners.h"

#include <systemd/sd-daemon.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/small_file.h"
#include "common/version.h"

namespace bplace {
namespace {

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

// The HTTP options: the config's, with a handler deadline that lets a
// submission make max_attempts bsub calls, each up to the command timeout.
api::ServerOptions HttpOptionsFor(const config::Config& config) {
  api::ServerOptions options = config.http;
  options.handler_timeout = std::chrono::duration_cast<std::chrono::seconds>(
      config.lsf.command_timeout * (config.submit.max_attempts + 1) + std::chrono::seconds(30));
  return options;
}

}  // namespace

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
    // Whoever waits for this file (a test, a script) would wait forever
    // for one that was never written: an error stops the start instead.
    auto written = WriteFileAtomically(options.port_file, std::to_string(endpoint.port()) + "\n");
    if (!written) return Fail(written.error().code, "--port-file: " + written.error().message);
  }
  return {};
}

}  // namespace bplace
