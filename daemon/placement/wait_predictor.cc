#include "daemon/placement/wait_predictor.h"

#include <algorithm>

namespace bplace {
namespace {

std::chrono::seconds Seconds(std::int64_t s) { return std::chrono::seconds(s); }

// The highest quantile the adaptive correction may ask for: beyond it even
// max_history waits rarely give a bound, and the answer would be the
// largest wait seen, which the fallback gives anyway.
constexpr double kMaxAdaptiveQuantile = 0.999;

}  // namespace

const char* WaitMethodName(WaitMethod method) {
  switch (method) {
    case WaitMethod::kStartsNow:
      return "starts_now";
    case WaitMethod::kClassHistory:
      return "class_history";
    case WaitMethod::kQueueHistory:
      return "queue_history";
    case WaitMethod::kFewSamples:
      return "few_samples";
    case WaitMethod::kNoHistory:
      return "no_history";
    case WaitMethod::kQueueInactive:
      return "queue_inactive";
  }
  return "unknown";
}

WaitPredictor::QueueState::QueueState(const WaitSeriesParams& params)
    : all(params), starts_now(params) {}

WaitPredictor::WaitPredictor(WaitPredictorOptions options) : options_(std::move(options)) {
  std::sort(options_.slot_class_limits.begin(), options_.slot_class_limits.end());
  params_.quantile = options_.quantile;
  params_.confidence = options_.confidence;
  params_.max_history = options_.max_history;
  params_.trim_on_change = options_.trim_on_change;
}

std::size_t WaitPredictor::SlotClass(std::int64_t slots) const {
  const auto& limits = options_.slot_class_limits;
  return static_cast<std::size_t>(std::lower_bound(limits.begin(), limits.end(), slots) -
                                  limits.begin());
}

WaitPredictor::QueueState& WaitPredictor::State(std::string_view queue) {
  auto it = queues_.find(std::string(queue));
  if (it == queues_.end()) {
    it = queues_.emplace(std::string(queue), QueueState(params_)).first;
    it->second.classes.assign(options_.slot_class_limits.size() + 1, WaitSeries(params_));
  }
  return it->second;
}

const WaitPredictor::QueueState* WaitPredictor::Find(std::string_view queue) const {
  const auto it = queues_.find(std::string(queue));
  return it == queues_.end() ? nullptr : &it->second;
}

WaitEstimate WaitPredictor::Predict(std::string_view queue, std::int64_t slots,
                                    bool starts_now) const {
  const QueueState* state = Find(queue);
  if (state && !state->dispatching) {
    WaitEstimate estimate;
    estimate.method = WaitMethod::kQueueInactive;
    estimate.quantile = options_.quantile;
    return estimate;
  }
  if (starts_now) return StartsNow(state);
  if (!state) {
    WaitEstimate estimate;
    estimate.quantile = options_.quantile;
    return estimate;
  }
  return FromHistory(*state, slots);
}

WaitEstimate WaitPredictor::StartsNow(const QueueState* state) const {
  WaitEstimate estimate;
  estimate.method = WaitMethod::kStartsNow;
  estimate.p50 = Seconds(0);
  estimate.quantile = options_.quantile;
  const std::size_t n = state ? state->starts_now.size() : 0;
  estimate.samples = n;
  if (const auto bound = n ? state->starts_now.Bound() : std::nullopt) {
    estimate.bound = Seconds(*bound);
    estimate.confidence = options_.confidence;
    return estimate;
  }
  // Too few dispatch delays known: the allowance, or the largest delay seen
  // if larger, at the confidence the few delays give.
  const std::int64_t largest = n ? *state->starts_now.Max() : 0;
  estimate.bound = std::max(options_.starts_now_allowance, Seconds(largest));
  estimate.confidence = MaxConfidence(n, options_.quantile);
  return estimate;
}

WaitEstimate WaitPredictor::FromHistory(const QueueState& state, std::int64_t slots) const {
  WaitEstimate estimate;
  estimate.quantile = options_.quantile;
  const double quantile = std::min(options_.quantile + state.quantile_shift, kMaxAdaptiveQuantile);
  const WaitSeries& cls = state.classes[SlotClass(slots)];
  for (const auto& [series, method] : {std::pair{&cls, WaitMethod::kClassHistory},
                                       std::pair{&state.all, WaitMethod::kQueueHistory}}) {
    if (const auto bound = series->Bound(quantile)) {
      estimate.method = method;
      estimate.p50 = Seconds(*series->Median());
      estimate.bound = Seconds(*bound);
      estimate.confidence = options_.confidence;
      estimate.samples = series->size();
      return estimate;
    }
  }
  if (state.all.size() == 0) return estimate;  // kNoHistory
  estimate.method = WaitMethod::kFewSamples;
  estimate.p50 = Seconds(*state.all.Median());
  estimate.bound = Seconds(*state.all.Max());
  estimate.confidence = MaxConfidence(state.all.size(), options_.quantile);
  estimate.samples = state.all.size();
  return estimate;
}

ObserveOutcome WaitPredictor::Observe(const WaitObservation& observation) {
  if (observation.started < observation.submitted) return ObserveOutcome::kStartedBeforeSubmit;
  QueueState& state = State(observation.queue);
  if (OverlapsInactive(state, observation.submitted, observation.started)) {
    return ObserveOutcome::kOverlappedInactive;
  }
  const std::int64_t wait_s =
      std::chrono::duration_cast<std::chrono::seconds>(observation.started - observation.submitted)
          .count();
  if (observation.could_start_at_submit) {
    state.starts_now.Add(wait_s);
    return ObserveOutcome::kLearned;
  }
  if (options_.adaptive_rate > 0.0) {
    // The bound this job would be given now stands for the one it was given
    // at submission (the predictor keeps no per-job record).
    const auto bound = FromHistory(state, observation.slots).bound;
    const double miss = (bound && wait_s > bound->count()) ? 1.0 : 0.0;
    state.quantile_shift = std::clamp(
        state.quantile_shift + options_.adaptive_rate * (miss - (1.0 - options_.quantile)), 0.0,
        kMaxAdaptiveQuantile - options_.quantile);
  }
  state.classes[SlotClass(observation.slots)].Add(wait_s);
  state.all.Add(wait_s);
  return ObserveOutcome::kLearned;
}

void WaitPredictor::SetQueueDispatching(std::string_view queue, bool dispatching, SystemTime at) {
  QueueState& state = State(queue);
  if (state.dispatching == dispatching) return;
  state.dispatching = dispatching;
  if (!dispatching) {
    state.inactive.push_back(Interval{at, std::nullopt});
    if (state.inactive.size() > options_.max_inactive_intervals) {
      state.inactive.erase(state.inactive.begin());
    }
  } else if (!state.inactive.empty() && !state.inactive.back().to) {
    state.inactive.back().to = at;
  }
}

bool WaitPredictor::OverlapsInactive(const QueueState& state, SystemTime from,
                                     SystemTime to) const {
  // A wait [from, to] overlaps an interval [a, b) when it began before the
  // queue dispatched again and ended after it stopped.
  return std::any_of(state.inactive.begin(), state.inactive.end(), [&](const Interval& i) {
    return from < i.to.value_or(SystemTime::max()) && to > i.from;
  });
}

std::vector<std::int64_t> WaitPredictor::RecentWaits(std::string_view queue,
                                                     std::size_t limit) const {
  const QueueState* state = Find(queue);
  return state ? state->all.Newest(limit) : std::vector<std::int64_t>{};
}

}  // namespace bplace
