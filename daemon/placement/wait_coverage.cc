#include "daemon/placement/wait_coverage.h"

namespace bplace {

std::optional<bool> WithinBound(std::int64_t wait_s, const StartPrediction& prediction) {
  if (!prediction.bound_s) return std::nullopt;
  return wait_s <= *prediction.bound_s;
}

bool WaitCoverage::Record(const JobKey& job, const std::string& queue, std::int64_t wait_s,
                          const StartPrediction& prediction) {
  const std::optional<bool> within = WithinBound(wait_s, prediction);
  std::lock_guard lock(mutex_);
  if (!judged_.Insert(job, JudgedWait{wait_s, within}) || !within) return false;
  QueueCoverage& counts = by_queue_[queue];
  ++counts.predictions;
  if (*within) ++counts.within_bound;
  return true;
}

std::optional<JudgedWait> WaitCoverage::Judged(const JobKey& job) const {
  std::lock_guard lock(mutex_);
  const JudgedWait* judged = judged_.Find(job);
  return judged ? std::optional<JudgedWait>(*judged) : std::nullopt;
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
