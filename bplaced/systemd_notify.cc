// Telling systemd how the daemon is (bplaced/systemd_notify.h).
#include "bplaced/systemd_notify.h"

#include <systemd/sd-daemon.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/any_io_executor.hpp>

namespace bplace {
namespace {

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

}  // namespace

void Notify(const std::string& state) { sd_notify(0, state.c_str()); }

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

}  // namespace bplace
