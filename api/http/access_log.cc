#include "api/http/access_log.h"

namespace bplace::api {

AccessLogSampler::Verdict AccessLogSampler::AdmitLogLine(TimePoint now) {
  if (per_second_ == 0) return {};
  std::lock_guard<std::mutex> lock(mutex_);
  if (!started_ || now - window_start_ >= std::chrono::seconds(1)) {
    started_ = true;
    window_start_ = now;
    logged_in_window_ = 0;
  }
  if (logged_in_window_ >= per_second_) {
    ++skipped_;
    return {};
  }
  ++logged_in_window_;
  Verdict verdict{true, skipped_};
  skipped_ = 0;
  return verdict;
}

}  // namespace bplace::api
