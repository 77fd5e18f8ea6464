#pragma once

#include <string>
#include <thread>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

namespace bplace {

// Runs `ioc` until it is stopped or runs out of work. The last exception
// boundary of an event loop: a throw that escapes a handler is logged and
// the loop goes on, rather than end the daemon (the refresh tiers, HTTP
// sessions and bsub callbacks have their own boundaries; this one catches
// what they miss).
void RunGuarded(boost::asio::io_context& ioc);

// An io_context served by one thread of its own (docs/design.md "Threads"): the daemon's
// refresh tiers run on one, so parsing LSF output and building snapshots
// never take a thread that serves HTTP, and each HTTP thread beyond the
// first serves its share of the connections on one. The thread is named `name` (at most 15
// characters: what `top -H` and /proc/PID/task/TID/comm show) and runs the
// context under RunGuarded until Stop; it is kept running while idle (timers
// only) by a work guard.
//
// Thread safety: executor() from any thread; Stop from one thread at a time,
// never from the loop's own.
class EventLoopThread {
 public:
  // Starts the thread at once; nothing runs on it until work is posted.
  explicit EventLoopThread(std::string name);
  // Stops and joins (Stop).
  ~EventLoopThread();

  EventLoopThread(const EventLoopThread&) = delete;
  EventLoopThread& operator=(const EventLoopThread&) = delete;

  // Where work for this thread goes.
  boost::asio::any_io_executor executor() { return ioc_.get_executor(); }
  boost::asio::io_context& context() { return ioc_; }

  // Stops the loop after the handler it is running (those still queued are
  // destroyed with the context, not run) and joins the thread. Call it
  // before destroying the objects whose handlers run here. Idempotent.
  void Stop();

  const std::string& name() const { return name_; }

 private:
  const std::string name_;
  boost::asio::io_context ioc_{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace bplace
