#include "bplaced/event_loop_thread.h"

#include <pthread.h>

#include <array>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

namespace bplace {
namespace {

using namespace std::chrono_literals;

TEST(EventLoopThreadTest, RunsPostedWorkOnItsOwnNamedThread) {
  EventLoopThread loop("bplace-test");
  std::promise<std::pair<std::thread::id, std::string>> ran;
  boost::asio::post(loop.executor(), [&ran] {
    std::array<char, 16> name{};
    pthread_getname_np(pthread_self(), name.data(), name.size());
    ran.set_value({std::this_thread::get_id(), std::string(name.data())});
  });
  const auto [id, name] = ran.get_future().get();
  EXPECT_NE(id, std::this_thread::get_id());
  EXPECT_EQ(name, "bplace-test");
}

// A handler that throws does not end the loop: the next one still runs.
TEST(EventLoopThreadTest, AThrowingHandlerDoesNotStopTheLoop) {
  EventLoopThread loop("bplace-test");
  boost::asio::post(loop.executor(), [] { throw std::runtime_error("boom"); });
  std::promise<void> second;
  boost::asio::post(loop.executor(), [&second] { second.set_value(); });
  EXPECT_NO_THROW(second.get_future().get());
}

// Stop returns although a timer is still pending (the work guard and the
// timer would otherwise keep the loop running), and its handler never runs.
TEST(EventLoopThreadTest, StopJoinsWithATimerPending) {
  auto loop = std::make_unique<EventLoopThread>("bplace-test");
  std::atomic<bool> fired{false};
  {
    boost::asio::steady_timer timer(loop->executor(), 1h);
    timer.async_wait([&fired](const boost::system::error_code& ec) {
      if (!ec) fired = true;
    });
    loop->Stop();
    loop->Stop();  // idempotent
  }                // the timer goes before its io_context
  EXPECT_FALSE(fired.load());
  loop.reset();
}

}  // namespace
}  // namespace bplace
