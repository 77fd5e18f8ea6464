// bplaced: places and submits LSF jobs to the least busy permitted queue.
// Thin main: parse the command line and config, then hand over to Daemon.

#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "api/http/listen_address.h"
#include "api/openapi_document.h"
#include "bplaced/daemon.h"
#include "common/version.h"
#include "config/config.h"

int main(int argc, char** argv) {
  CLI::App app{"bplaced: LSF placement and submission service"};
  std::string config_path;
  std::string listen;
  std::string port_file;
  app.add_option("-c,--config", config_path, "TOML configuration file (see bplaced.example.toml)");
  app.add_option("-l,--listen", listen,
                 "HOST:PORT or unix:/PATH to listen on; overrides server.listen");
  app.add_option("--port-file", port_file,
                 "write the bound TCP port to this file once listening, atomically (for "
                 "scripts and tests); bplaced stops if it cannot");
  bool print_openapi = false;
  app.add_flag("--print-openapi", print_openapi,
               "print the OpenAPI document that GET /v1/openapi.json serves (with the limits "
               "of --config) and exit");
  app.set_version_flag("-V,--version", std::string("bplaced ") + bplace::kVersion,
                       "print the version (the same as `bplace --version`) and exit");
  CLI11_PARSE(app, argc, argv);

  // Logs go to stderr: the journal takes them under systemd.
  auto logger = spdlog::stderr_logger_mt("bplaced");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %v");

  bplace::DaemonOptions options;
  options.port_file = port_file;
  options.config_source = config_path.empty() ? "(defaults)" : config_path;
  options.config_path = config_path;
  if (!config_path.empty()) {
    auto loaded = bplace::config::LoadConfigFile(config_path);
    if (!loaded) {
      std::fprintf(stderr, "bplaced: %s\n", loaded.error().message.c_str());
      return 2;
    }
    options.config = std::move(*loaded);
  }
  if (print_openapi) {
    try {
      std::printf("%s\n", bplace::api::OpenApiDocument(options.config.api.request).dump(2).c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bplaced: fatal: %s\n", e.what());
      return 1;
    }
    return 0;
  }
  if (!listen.empty()) {
    auto address = bplace::api::ParseListenAddress(listen);
    if (!address) {
      std::fprintf(stderr, "bplaced: --listen %s: %s\n", listen.c_str(),
                   address.error().message.c_str());
      return 2;
    }
    options.listen_override = listen;
  }
  spdlog::set_level(spdlog::level::from_str(options.config.log.level));
  // The runner writes to children with MSG_NOSIGNAL; this guards any other
  // write to a vanished peer.
  std::signal(SIGPIPE, SIG_IGN);
  // Until the daemon listens for SIGHUP (reload), one must not kill it.
  std::signal(SIGHUP, SIG_IGN);

  try {
    bplace::Daemon daemon(std::move(options));
    if (auto ran = daemon.Run(); !ran) {
      std::fprintf(stderr, "bplaced: %s\n", ran.error().message.c_str());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bplaced: fatal: %s\n", e.what());
    return 1;
  }
  return 0;
}
