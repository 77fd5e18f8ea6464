#include "daemon/placement/wait_model.h"

#include <cmath>

namespace bplace {

WaitModel::WaitModel(WaitPredictorOptions options) : predictor_(std::move(options)) {}

WaitEstimate WaitModel::Predict(const WaitQuery& query) const {
  std::lock_guard lock(mutex_);
  return predictor_.Predict(query);
}

ObserveOutcome WaitModel::Observe(const WaitObservation& observation) {
  ObserveOutcome outcome;
  {
    std::lock_guard lock(mutex_);
    const std::pair job{observation.job_id, observation.array_index};
    if (observation.job_id != 0 && learned_jobs_.Contains(job)) {
      return ObserveOutcome::kAlreadyLearned;
    }
    if (observation.backlog_at_submit) {
      outcome = predictor_.Observe(observation);
    } else {
      WaitObservation with_backlog = observation;
      with_backlog.backlog_at_submit = backlogs_.ShareAt(observation.queue, observation.submitted);
      outcome = predictor_.Observe(with_backlog);
    }
    if (outcome == ObserveOutcome::kLearned && observation.job_id != 0) {
      learned_jobs_.Insert(job);
    }
  }
  if (outcome == ObserveOutcome::kLearned) {
    learned_.fetch_add(1, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  } else {
    left_out_.fetch_add(1, std::memory_order_relaxed);
  }
  return outcome;
}

void WaitModel::RecordBacklog(std::string_view queue, SystemTime at, double share) {
  std::lock_guard lock(mutex_);
  backlogs_.Record(queue, at, share);
}

void WaitModel::SetQueueDispatching(std::string_view queue, bool dispatching, SystemTime at) {
  bool changed = false;
  {
    std::lock_guard lock(mutex_);
    WaitQuery query;
    query.queue = queue;
    const bool before = predictor_.Predict(query).method != WaitMethod::kQueueInactive;
    predictor_.SetQueueDispatching(queue, dispatching, at);
    changed = before != dispatching;
  }
  if (changed) generation_.fetch_add(1, std::memory_order_acq_rel);
}

std::vector<std::int64_t> WaitModel::RecentWaits(std::string_view queue, std::size_t limit) const {
  std::lock_guard lock(mutex_);
  return predictor_.RecentWaits(queue, limit);
}

std::vector<SlotClassEstimate> WaitModel::ClassEstimates(std::string_view queue) const {
  const std::vector<std::int64_t>& limits = predictor_.options().slot_class_limits;
  std::vector<SlotClassEstimate> classes;
  std::int64_t from = 1;
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i <= limits.size(); ++i) {
    SlotClassEstimate entry;
    entry.min_slots = from;
    if (i < limits.size()) {
      entry.slots = from == limits[i] ? std::to_string(from)
                                      : std::to_string(from) + "-" + std::to_string(limits[i]);
    } else {
      entry.slots = std::to_string(from) + "+";
    }
    WaitQuery query;
    query.queue = queue;
    query.slots = from;
    entry.estimate = predictor_.Predict(query);
    classes.push_back(std::move(entry));
    if (i < limits.size()) from = limits[i] + 1;
  }
  return classes;
}

std::string DescribeSeconds(std::int64_t seconds) {
  seconds = std::max<std::int64_t>(0, seconds);
  if (seconds < 60) return std::to_string(seconds) + " s";
  const std::int64_t minutes = (seconds + 30) / 60;
  if (minutes < 60) return std::to_string(minutes) + " min";
  const std::int64_t hours = minutes / 60;
  if (hours < 24) {
    const std::int64_t rest = minutes % 60;
    return std::to_string(hours) + " h" + (rest ? " " + std::to_string(rest) + " min" : "");
  }
  const std::int64_t days = hours / 24;
  const std::int64_t rest = hours % 24;
  return std::to_string(days) + " d" + (rest ? " " + std::to_string(rest) + " h" : "");
}

std::string DescribeWait(const WaitEstimate& estimate) {
  const std::string percent =
      std::to_string(static_cast<int>(std::lround(estimate.quantile * 100))) + "%";
  switch (estimate.method) {
    case WaitMethod::kQueueInactive:
      return "queue not dispatching: no start time can be given";
    case WaitMethod::kNoHistory:
      return "no waits seen in this queue yet";
    case WaitMethod::kStartsNow:
      return "starts now" + (estimate.bound ? " (" + percent + " within " +
                                                  DescribeSeconds(estimate.bound->count()) + ")"
                                            : std::string());
    default:
      break;
  }
  std::string words = estimate.p50 ? "~" + DescribeSeconds(estimate.p50->count()) : "unknown";
  if (estimate.bound)
    words += ", " + percent + " bound " + DescribeSeconds(estimate.bound->count());
  if (estimate.method == WaitMethod::kFewSamples) {
    words += std::string(estimate.bound ? "" : ", no bound yet") + " (from " +
             std::to_string(estimate.samples) +
             (estimate.samples == 1 ? " wait only)" : " waits only)");
  }
  return words;
}

}  // namespace bplace
