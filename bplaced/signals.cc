// What the daemon does on signals (bplaced/signals.h).
#include "bplaced/signals.h"

#include <systemd/sd-daemon.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <utility>

#include <spdlog/spdlog.h>

#include "api/auth.h"
#include "bplaced/config_reload.h"
#include "bplaced/systemd_notify.h"

namespace bplace {
namespace {

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

}  // namespace

void WaitForHangup(boost::asio::signal_set& hangup, Wiring& wiring, Reloading& reloading) {
  hangup.async_wait([&hangup, &wiring, &reloading](const boost::system::error_code& ec, int) {
    if (ec) return;
    Reload(wiring, reloading);
    WaitForHangup(hangup, wiring, reloading);
  });
}

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

}  // namespace bplace
