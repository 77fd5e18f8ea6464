#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "config/config.h"

namespace bplace {

// Start-up choices that do not live in the config file.
struct DaemonOptions {
  config::Config config;
  std::string config_source;  // the file it came from, for logs ("(defaults)" when none)
  std::string config_path;    // the config file, empty when none (passed on to rdma_probe)
  std::string port_file;      // when set, the bound port is written there once listening
  // --listen: replaces server.listen of the config, at start-up and in every
  // file SIGHUP reads again (so that it does not count as a change).
  std::string listen_override;
};

// The composition root of bplaced: one io_context run by server.threads
// threads, the subprocess runner, the cluster cache and its refresh timers,
// the submitter and the HTTP server; SIGTERM/SIGINT stop it gracefully and
// systemd is told READY=1 once the first complete snapshot exists, gets
// WATCHDOG=1 from the event loop when WatchdogSec= asks for it, and
// RELOADING=1 ... READY=1 around a SIGHUP, which re-reads the config file.
// Not thread-safe: Run is called once, from main.
class Daemon {
 public:
  // Everything that can fail at start-up is checked in Run before serving;
  // this only keeps the options.
  explicit Daemon(DaemonOptions options);
  ~Daemon();

  // Binds the listener, starts the refresh tiers and serves until SIGTERM or
  // SIGINT; then stops accepting, lets in-flight requests finish, and
  // returns 0. Returns an error (the caller exits non-zero) for start-up
  // failures: the address cannot be bound, no user name for our uid.
  Result<void> Run();

 private:
  DaemonOptions options_;
};

}  // namespace bplace
