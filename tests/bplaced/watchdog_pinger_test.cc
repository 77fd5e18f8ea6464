#include "bplaced/watchdog_pinger.h"

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "common/manual_clock.h"

namespace bplace {
namespace {

using namespace std::chrono_literals;

class WatchdogPingerTest : public ::testing::Test {
 protected:
  // Runs the handlers that are ready, as an io thread would.
  void Poll() {
    io_.restart();  // poll() leaves the context stopped once it runs out of work
    io_.poll();
  }
  // Advances the clock by `step` and runs what became due.
  void Advance(std::chrono::milliseconds step) {
    clock_.Advance(step);
    Poll();
  }

  boost::asio::io_context io_;
  ManualClock clock_;
  std::vector<std::string> sent_;
  WatchdogPinger pinger_{io_.get_executor(), clock_, 15s,
                         [this](const std::string& state) { sent_.push_back(state); }};
};

TEST_F(WatchdogPingerTest, SendsNothingBeforeStart) {
  Poll();
  Advance(60s);
  EXPECT_TRUE(sent_.empty());
}

TEST_F(WatchdogPingerTest, PingsAtStartThenEveryPeriod) {
  pinger_.Start();
  Poll();
  EXPECT_EQ(sent_, std::vector<std::string>{"WATCHDOG=1"});
  Advance(14999ms);
  EXPECT_EQ(sent_.size(), 1u);
  Advance(1ms);
  EXPECT_EQ(sent_.size(), 2u);
  Advance(15s);
  Advance(15s);
  EXPECT_EQ(sent_.size(), 4u);
  EXPECT_EQ(pinger_.pings(), 4);
  for (const std::string& state : sent_) EXPECT_EQ(state, "WATCHDOG=1");
}

TEST_F(WatchdogPingerTest, NoPingWhileTheEventLoopDoesNotRun) {
  pinger_.Start();
  Poll();
  // The loop is wedged: time passes, nothing runs the due handlers.
  clock_.Advance(45s);
  EXPECT_EQ(sent_.size(), 1u);
  // Once it runs again, one ping (not one per missed period), then on time.
  Poll();
  EXPECT_EQ(sent_.size(), 2u);
  Advance(14s);
  EXPECT_EQ(sent_.size(), 2u);
  Advance(1s);
  EXPECT_EQ(sent_.size(), 3u);
}

TEST_F(WatchdogPingerTest, PingsComeFromTheEventLoopOnly) {
  pinger_.Start();
  // Start only queues the first ping: it is sent by whoever runs io_.
  EXPECT_TRUE(sent_.empty());
  Poll();
  EXPECT_EQ(sent_.size(), 1u);
}

TEST_F(WatchdogPingerTest, StopsPinging) {
  pinger_.Start();
  Poll();
  Advance(15s);
  pinger_.Stop();
  Poll();
  Advance(60s);
  EXPECT_EQ(sent_.size(), 2u);
  EXPECT_EQ(clock_.PendingTimers(), 0u);
}

// A second event loop the ping vouches for (the refresh thread): while it
// does not run, the pings stop; once it has caught up, they resume.
TEST_F(WatchdogPingerTest, AWedgedWatchedLoopStopsThePings) {
  boost::asio::io_context refresh;
  std::vector<std::string> sent;
  WatchdogPinger pinger(io_.get_executor(), clock_, 15s,
                        [&sent](const std::string& state) { sent.push_back(state); },
                        {refresh.get_executor()});
  const auto run_refresh = [&refresh] {
    refresh.restart();
    refresh.poll();
  };
  pinger.Start();
  Poll();
  EXPECT_EQ(sent.size(), 1u);  // nothing owed yet
  run_refresh();
  Advance(15s);
  EXPECT_EQ(sent.size(), 2u);  // the loop ran its heartbeat

  // The refresh loop is wedged: the main loop runs, the pings stop.
  Advance(15s);
  Advance(15s);
  Advance(15s);
  EXPECT_EQ(sent.size(), 2u);

  // It runs again: its one heartbeat is done, the next tick pings.
  run_refresh();
  Advance(15s);
  EXPECT_EQ(sent.size(), 3u);
  pinger.Stop();
  Poll();
}

}  // namespace
}  // namespace bplace
