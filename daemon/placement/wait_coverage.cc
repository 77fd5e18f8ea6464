#include "daemon/placement/wait_coverage.h"

namespace bplace {

std::optional<bool> WithinBound(std::int64_t wait_s, const StartPrediction& prediction) {
  if (!prediction.bound_s) return std::nullopt;
  return wait_s <= *prediction.bound_s;
}

bool SameSubmission(SystemTime a, SystemTime b) {
  constexpr std::chrono::minutes kApart{5};
  return a - b <= kApart && b - a <= kApart;
}

bool WaitCoverage::Record(const JobKey& job, const std::string& queue, SystemTime submitted,
                          std::int64_t wait_s, const StartPrediction& prediction) {
  const std::optional<bool> within = WithinBound(wait_s, prediction);
  const JobKey key{job.job_id, 0};
  std::lock_guard lock(mutex_);
  const JudgedWait* earlier = judged_.Find(key);
  if (earlier != nullptr && SameSubmission(earlier->submitted, submitted)) return false;
  judged_.Assign(key, JudgedWait{submitted, wait_s, within});
  if (!within) return false;
  QueueCoverage& counts = by_queue_[queue];
  ++counts.predictions;
  if (*within) ++counts.within_bound;
  return true;
}

std::optional<JudgedWait> WaitCoverage::Judged(const JobKey& job, SystemTime submitted) const {
  if (job.array_index != 0) return std::nullopt;
  std::lock_guard lock(mutex_);
  const JudgedWait* judged = judged_.Find(job);
  if (judged == nullptr || !SameSubmission(judged->submitted, submitted)) return std::nullopt;
  return *judged;
}

std::map<std::string, QueueCoverage> WaitCoverage::ByQueue() const {
  std::lock_guard lock(mutex_);
  return by_queue_;
}

QueueCoverage WaitCoverage::Total() const {
  QueueCoverage total;
  std::lock_guard lock(mutex_);
  for (const auto& [queue, counts] : by_queue_) {
    total.predictions += counts.predictions;
    total.within_bound += counts.within_bound;
  }
  return total;
}

}  // namespace bplace
