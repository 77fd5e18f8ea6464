#include "bplaced/event_log_poller.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

namespace bplace {

EventLogPoller::EventLogPoller(boost::asio::any_io_executor executor, Clock& clock,
                               WaitModel& model, EventLogPollerOptions options)
    : timer_(std::move(executor)), clock_(clock), model_(model), options_(std::move(options)) {}

void EventLogPoller::Start() {
  if (options_.events_file == "none") {
    spdlog::info("wait prediction: [lsf] events_file = \"none\": bplace's own jobs teach it");
    return;
  }
  Schedule(std::chrono::milliseconds(0));
}

void EventLogPoller::Stop() {
  stopped_ = true;
  boost::asio::post(timer_.get_executor(), [this] { timer_.cancel(); });
}

void EventLogPoller::Schedule(std::chrono::milliseconds delay) {
  timer_.expires_after(delay);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    Tick();
    Schedule(options_.interval);
  });
}

bool EventLogPoller::Find() {
  if (feed_) return true;
  std::filesystem::path file = options_.events_file;
  if (file.empty()) {
    auto found = DefaultEventsFile(options_.env_dir, options_.cluster_name());
    if (!found) {
      if (last_problem_ != found.error().message) {
        last_problem_ = found.error().message;
        spdlog::info("wait prediction: LSF's event log not found ({}); bplace's own jobs teach it",
                     last_problem_);
      }
      return false;
    }
    file = *found;
  }
  EventLogTailOptions tail;
  tail.file = file;
  feed_ = std::make_unique<EventLogFeed>(tail, model_, options_.annotate);
  spdlog::info("wait prediction: reading LSF's event log {}", file.string());
  last_problem_.clear();
  return true;
}

void EventLogPoller::Tick() {
  if (!Find()) return;
  const EventFeedPoll poll = feed_->Poll(clock_.SystemNow());
  readable_.store(!poll.unreadable, std::memory_order_release);
  if (options_.on_waits && !poll.waits.empty()) options_.on_waits(poll.waits);
  std::string problem = poll.unreadable.value_or("");
  if (problem != last_problem_) {
    if (!problem.empty()) {
      spdlog::warn("wait prediction: {}; bplace's own jobs teach it meanwhile", problem);
    } else {
      spdlog::info("wait prediction: reading {}", feed_->file().string());
    }
    last_problem_ = problem;
  }
  if (poll.errors > 0) {
    spdlog::warn("wait prediction: {} unreadable record(s) of LSF's event log skipped, first: {}",
                 poll.errors, poll.first_error.value_or(""));
  }
  if (poll.lost) spdlog::warn("wait prediction: records of a rotated event log were lost");
  if (poll.records > 0) {
    spdlog::debug("wait prediction: {} records, {} waits learned", poll.records, poll.learned);
  }
}

}  // namespace bplace
