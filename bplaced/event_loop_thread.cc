#include "bplaced/event_loop_thread.h"

#include <pthread.h>

#include <exception>
#include <utility>

#include <spdlog/spdlog.h>

namespace bplace {

void RunGuarded(boost::asio::io_context& ioc) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      spdlog::error("internal error escaped to the event loop (serving on): {}", e.what());
    }
  }
}

EventLoopThread::EventLoopThread(std::string name)
    : name_(std::move(name)), work_(boost::asio::make_work_guard(ioc_)) {
  thread_ = std::thread([this] { RunGuarded(ioc_); });
  // Linux limits names to 15 bytes; a longer one is refused, not cut.
  if (const int rc = pthread_setname_np(thread_.native_handle(), name_.substr(0, 15).c_str());
      rc != 0) {
    spdlog::debug("cannot name the thread {}: error {}", name_, rc);
  }
}

EventLoopThread::~EventLoopThread() { Stop(); }

void EventLoopThread::Stop() {
  work_.reset();
  ioc_.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace bplace
