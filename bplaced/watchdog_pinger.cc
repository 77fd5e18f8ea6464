#include "bplaced/watchdog_pinger.h"

#include <utility>

#include <boost/asio/post.hpp>

namespace bplace {

WatchdogPinger::WatchdogPinger(boost::asio::any_io_executor executor, Clock& clock,
                               std::chrono::milliseconds period, Notify notify)
    : strand_(boost::asio::make_strand(executor)),
      period_(period),
      notify_(std::move(notify)),
      timer_(clock.NewTimer(strand_)) {}

WatchdogPinger::~WatchdogPinger() = default;

void WatchdogPinger::Start() {
  boost::asio::post(strand_, [this] { Ping(); });
}

void WatchdogPinger::Stop() {
  boost::asio::post(strand_, [this] {
    stopped_ = true;
    timer_->Cancel();
  });
}

void WatchdogPinger::Ping() {
  if (stopped_) return;
  notify_("WATCHDOG=1");
  pings_.fetch_add(1);
  // Scheduled after the ping, not at fixed times: a loop that fell behind
  // still pings within one period of getting back to work.
  timer_->Schedule(period_, [this] { Ping(); });
}

}  // namespace bplace
