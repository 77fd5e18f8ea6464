#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/clock.h"
#include "daemon/placement/event_log_feed.h"
#include "daemon/placement/wait_model.h"

namespace bplace {

// What the poller needs to find and read LSF's event log.
struct EventLogPollerOptions {
  // [lsf] events_file: a path, "" (found from lsf.conf and the cluster's
  // name), or "none" (never read; Start does nothing).
  std::string events_file;
  std::string env_dir;  // LSF_ENVDIR holding lsf.conf ("" : /etc)
  std::chrono::milliseconds interval{15000};
  // The cluster's name as lsid gave it ("" until known); called on the
  // poller's executor.
  std::function<std::string()> cluster_name;
  // Given the waits each poll read (EventFeedPoll::waits), when there are
  // any, on the poller's executor: to judge bplace's own jobs by them
  // (JudgeEventWaits). May be empty.
  std::function<void(const std::vector<WaitObservation>&)> on_waits;
  // Adds what bplace knew of its own jobs to the waits of each poll before
  // the model learns them (EventLogFeed::Annotate), on the poller's
  // executor. May be empty.
  EventLogFeed::Annotate annotate;
};

// Tails LSF's event log on the refresh thread (docs/design.md "Wait
// prediction"): every interval, finds the file if not yet found, reads
// what was appended and teaches `model` (EventLogFeed). A log that cannot
// be found or read, or a corrupt record, is logged (each kind once until
// it changes) and never stops anything. Thread safety: Start and Stop from
// one thread; readable() from any.
class EventLogPoller {
 public:
  EventLogPoller(boost::asio::any_io_executor executor, Clock& clock, WaitModel& model,
                 EventLogPollerOptions options);

  void Start();
  void Stop();

  // The last poll read the log: its records teach the model, and the jobs
  // tier's jobs must not (they are in it too).
  bool readable() const { return readable_.load(std::memory_order_acquire); }

 private:
  void Schedule(std::chrono::milliseconds delay);
  void Tick();
  bool Find();

  boost::asio::steady_timer timer_;
  Clock& clock_;
  WaitModel& model_;
  const EventLogPollerOptions options_;
  std::unique_ptr<EventLogFeed> feed_;  // on the executor only
  std::string last_problem_;            // the last one logged
  std::atomic<bool> readable_{false};
  std::atomic<bool> stopped_{false};
};

}  // namespace bplace
