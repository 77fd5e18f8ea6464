#pragma once

// The access log's budget: at most N lines a second, the rest counted
// (ServerOptions::access_log_per_second).

#include <chrono>
#include <cstdint>
#include <mutex>

namespace bplace::api {

// Decides, per response, whether its access log line is written. Time is
// cut into one-second windows from the first call; in each, the first
// `per_second` responses are logged and the others counted. Thread-safe
// (one short lock per call). Pure apart from its own state: the caller
// passes the time, so tests need no clock.
class AccessLogSampler {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // What AdmitLogLine decided.
  struct Verdict {
    bool log = false;  // write this response's line
    // Responses not logged since the last line was written, to report with
    // this one (0 when none or when `log` is false).
    std::uint64_t skipped = 0;
  };

  // per_second 0: nothing is ever logged.
  explicit AccessLogSampler(std::uint32_t per_second) : per_second_(per_second) {}

  // The verdict for a response written at `now`. Times earlier than a
  // previous call's (threads racing) count in the current window.
  Verdict AdmitLogLine(TimePoint now);

 private:
  const std::uint32_t per_second_;
  std::mutex mutex_;  // guards the members below
  bool started_ = false;
  TimePoint window_start_{};
  std::uint32_t logged_in_window_ = 0;
  std::uint64_t skipped_ = 0;
};

}  // namespace bplace::api
