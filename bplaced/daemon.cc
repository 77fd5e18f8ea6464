// The start-up sequence of bplaced (bplaced/daemon.h): each step it takes
// lives in a file of its own in bplaced/, named for the step.
#include "bplaced/daemon.h"

#include <systemd/sd-daemon.h>

#include <csignal>
#include <memory>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/signal_set.hpp>

#include "api/auth.h"
#include "bplaced/event_loop_thread.h"
#include "bplaced/listeners.h"
#include "bplaced/local_probe.h"
#include "bplaced/privileges.h"
#include "bplaced/restore_state.h"
#include "bplaced/signals.h"
#include "bplaced/systemd_notify.h"
#include "bplaced/wiring.h"
#include "daemon/state/audit_log.h"
#include "daemon/state/job_store.h"

namespace bplace {

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
    // Before READY=1 is sent: a SIGHUP systemd (or anyone) sends once it
    // has seen READY=1 must be answered RELOADING=1 ... READY=1.
    reloading.ready = true;
    sd_notify(0, "READY=1\nSTATUS=serving");
  });
  boost::asio::signal_set hangup(wiring.ioc, SIGHUP);
  WaitForHangup(hangup, wiring, reloading);
  boost::asio::signal_set signals(wiring.ioc, SIGTERM, SIGINT);
  StopOnSignal(signals, hangup, wiring);

  RunGuarded(wiring.ioc);
  return {};
}

}  // namespace bplace
