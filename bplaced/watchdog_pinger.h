#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>

#include "common/clock.h"

namespace bplace {

// Keeps systemd's watchdog (WatchdogSec= in the unit) fed from the event
// loop itself: a timer on the daemon's io_context sends "WATCHDOG=1" every
// `period`, so a ping proves that an io thread takes handlers off the queue.
// If every io thread is wedged (a handler that never returns, a deadlock)
// the pings stop and systemd kills and restarts the daemon; a separate
// timer thread would go on pinging for a daemon that no longer serves.
// All io threads run the one io_context, so a ping shows that the context
// is served, not that each thread is. Other event loops the daemon relies
// on (the refresh thread, bplaced/event_loop_thread.h) are watched too: each
// period the pinger posts a heartbeat to each of them and pings only once
// every heartbeat of the previous period has run, so a wedged refresh
// thread (data that would go stale for ever) stops the pings as well.
//
// Thread-safe: Start and Stop may be called from any thread; the timer runs
// on a strand of `executor`.
class WatchdogPinger {
 public:
  // Called with the state to send ("WATCHDOG=1"), on an io thread; the
  // daemon's sends it with sd_notify. Must not block.
  using Notify = std::function<void(const std::string& state)>;

  // `period` > 0: the time between pings, on `clock` (half of systemd's
  // WATCHDOG_USEC, see WatchdogPeriod in bplaced/systemd_notify.cc). `watched`: the
  // other event loops a ping vouches for (may be empty). Nothing runs until
  // Start.
  WatchdogPinger(boost::asio::any_io_executor executor, Clock& clock,
                 std::chrono::milliseconds period, Notify notify,
                 std::vector<boost::asio::any_io_executor> watched = {});
  ~WatchdogPinger();

  WatchdogPinger(const WatchdogPinger&) = delete;
  WatchdogPinger& operator=(const WatchdogPinger&) = delete;

  // Sends the first ping at the executor's next turn, then one every period.
  void Start();
  // No ping after the strand has run the stop (the pinger may then be
  // destroyed once the io_context has stopped).
  void Stop();

  // Pings sent so far.
  int pings() const { return pings_.load(); }

 private:
  void Tick();
  // Posts one heartbeat to every watched loop.
  void SendHeartbeats();

  boost::asio::strand<boost::asio::any_io_executor> strand_;
  const std::chrono::milliseconds period_;
  const Notify notify_;
  std::unique_ptr<Timer> timer_;  // used on strand_ only
  bool stopped_ = false;          // on strand_ only
  std::atomic<int> pings_{0};
  const std::vector<boost::asio::any_io_executor> watched_;
  // Heartbeats posted and not yet run: shared with them, which may outlive
  // the pinger in a queue.
  std::shared_ptr<std::atomic<int>> heartbeats_due_ = std::make_shared<std::atomic<int>>(0);
};

}  // namespace bplace
