#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/placement/event_log_tail.h"
#include "daemon/placement/event_waits.h"
#include "daemon/placement/wait_model.h"

namespace bplace {

// LSB_SHAREDIR of `lsf_conf` (the text of lsf.conf: KEY=value lines, "#"
// comments, values optionally quoted; lsf.conf(5), LSF 10.1). Errors:
// kNotFound when it sets no LSB_SHAREDIR.
Result<std::string> LsbSharedirOf(std::string_view lsf_conf);

// Where LSF keeps its event log: LSB_SHAREDIR/<cluster>/logdir/lsb.events,
// LSB_SHAREDIR read from `env_dir`/lsf.conf (`env_dir` empty: /etc, LSF's
// default LSF_ENVDIR). Reads that one file. Errors: the file cannot be
// read (kNotFound ...), it sets no LSB_SHAREDIR, or `cluster` is empty
// (lsid has not named the cluster yet).
Result<std::filesystem::path> DefaultEventsFile(const std::string& env_dir,
                                                const std::string& cluster);

// What one EventLogFeed::Poll did.
struct EventFeedPoll {
  std::size_t records = 0;  // records read
  std::size_t learned = 0;  // waits the predictor learned
  std::size_t errors = 0;   // corrupt or truncated records skipped
  std::optional<std::string> first_error;
  std::optional<std::string> unreadable;  // the live log cannot be read now
  bool lost = false;                      // a rotated file went before it was read
  // Every wait the records completed (with its job id), learned or not.
  std::vector<WaitObservation> waits;
};

// Feeds the wait model from LSF's event log (docs/design.md "Wait
// prediction"): each Poll reads what mbatchd appended (EventLogTail),
// turns JOB_NEW/JOB_START pairs into waits (EventWaits) and gives them to
// the model. Nothing here stops the daemon: a corrupt record is skipped, a
// missing or unreadable log is reported and tried again at the next poll.
// Poll is called by one thread (the daemon's refresh thread); readable()
// may be read from any thread.
class EventLogFeed {
 public:
  // How long a job submitted but never seen started is remembered.
  static constexpr std::chrono::hours kForgetPendingAfter{24 * 14};

  // Adds to the waits of a poll, before the model learns them, what the
  // log does not say (AddSubmissionContext for bplace's own jobs).
  using Annotate = std::function<void(std::vector<WaitObservation>&)>;

  // `model` must outlive the feed; `annotate` may be empty.
  EventLogFeed(EventLogTailOptions options, WaitModel& model, Annotate annotate = {});

  // Reads and learns; `now` prunes jobs pending longer than kForgetPendingAfter.
  EventFeedPoll Poll(SystemTime now);

  // The last poll could read the log: its records teach the model (every
  // user's jobs), so the jobs tier's own must not teach it twice.
  bool readable() const { return readable_.load(std::memory_order_acquire); }

  const std::filesystem::path& file() const { return file_; }
  const EventWaitStats& stats() const { return waits_.stats(); }

 private:
  std::filesystem::path file_;
  EventLogTail tail_;
  EventWaits waits_;
  WaitModel& model_;
  Annotate annotate_;
  std::atomic<bool> readable_{false};
};

}  // namespace bplace
