#include "bplaced/watchdog_pinger.h"

#include <utility>

#include <boost/asio/post.hpp>

namespace bplace {

WatchdogPinger::WatchdogPinger(boost::asio::any_io_executor executor, Clock& clock,
                               std::chrono::milliseconds period, Notify notify,
                               std::vector<boost::asio::any_io_executor> watched)
    : strand_(boost::asio::make_strand(executor)),
      period_(period),
      notify_(std::move(notify)),
      timer_(clock.NewTimer(strand_)),
      watched_(std::move(watched)) {}

WatchdogPinger::~WatchdogPinger() = default;

void WatchdogPinger::Start() {
  boost::asio::post(strand_, [this] { Tick(); });
}

void WatchdogPinger::Stop() {
  boost::asio::post(strand_, [this] {
    stopped_ = true;
    timer_->Cancel();
  });
}

void WatchdogPinger::Tick() {
  if (stopped_) return;
  // A watched loop that has not run last period's heartbeat holds the ping
  // back (and gets no second heartbeat) until it has.
  if (heartbeats_due_->load() == 0) {
    notify_("WATCHDOG=1");
    pings_.fetch_add(1);
    SendHeartbeats();
  }
  // Scheduled after the ping, not at fixed times: a loop that fell behind
  // still pings within one period of getting back to work.
  timer_->Schedule(period_, [this] { Tick(); });
}

void WatchdogPinger::SendHeartbeats() {
  heartbeats_due_->store(static_cast<int>(watched_.size()));
  for (const auto& loop : watched_) {
    boost::asio::post(loop, [due = heartbeats_due_] { due->fetch_sub(1); });
  }
}

}  // namespace bplace
