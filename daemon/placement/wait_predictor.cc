#include "daemon/placement/wait_predictor.h"

#include <algorithm>
#include <cmath>

namespace bplace {
namespace {

std::chrono::seconds Seconds(std::int64_t s) { return std::chrono::seconds(s); }

// The highest quantile the adaptive correction may ask for: beyond it even
// max_history waits rarely give a bound, and the answer would be the
// largest wait seen, which the fallback gives anyway.
constexpr double kMaxAdaptiveQuantile = 0.999;

// The bound `series` gives at the adaptive `quantile`; when it holds too
// few waits for that quantile but enough for the configured one, its
// largest wait: the most its own history can say, and still a bound on the
// configured quantile at the configured confidence. So a raised quantile
// keeps the narrow series (a backlog class stays backlog-aware) instead of
// falling through to the whole queue's largest wait, one constant whatever
// the backlog. None when the series is too short even for the configured
// quantile.
std::optional<std::int64_t> RaisedBound(const WaitSeries& series, double quantile) {
  if (auto bound = series.Bound(quantile)) return bound;
  if (!series.Bound().has_value()) return std::nullopt;
  return series.Max();
}

}  // namespace

const char* WaitMethodName(WaitMethod method) {
  switch (method) {
    case WaitMethod::kStartsNow:
      return "starts_now";
    case WaitMethod::kClassBacklogHistory:
      return "class_backlog_history";
    case WaitMethod::kBacklogHistory:
      return "backlog_history";
    case WaitMethod::kBacklogScaled:
      return "backlog_scaled";
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

std::optional<WaitMethod> WaitMethodOfName(std::string_view name) {
  for (WaitMethod method :
       {WaitMethod::kStartsNow, WaitMethod::kClassBacklogHistory, WaitMethod::kBacklogHistory,
        WaitMethod::kBacklogScaled, WaitMethod::kClassHistory, WaitMethod::kQueueHistory,
        WaitMethod::kFewSamples, WaitMethod::kNoHistory, WaitMethod::kQueueInactive}) {
    if (name == WaitMethodName(method)) return method;
  }
  return std::nullopt;
}

WaitPredictor::QueueState::QueueState(const WaitSeriesParams& params)
    : all(params), per_backlog_all(params), starts_now(params) {}

WaitPredictor::WaitPredictor(WaitPredictorOptions options) : options_(std::move(options)) {
  std::sort(options_.slot_class_limits.begin(), options_.slot_class_limits.end());
  std::sort(options_.backlog_class_limits.begin(), options_.backlog_class_limits.end());
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

std::size_t WaitPredictor::BacklogClass(double backlog) const {
  const auto& limits = options_.backlog_class_limits;
  return static_cast<std::size_t>(std::lower_bound(limits.begin(), limits.end(), backlog) -
                                  limits.begin());
}

WaitPredictor::QueueState& WaitPredictor::State(std::string_view queue) {
  auto it = queues_.find(std::string(queue));
  if (it == queues_.end()) {
    it = queues_.emplace(std::string(queue), QueueState(params_)).first;
    const std::size_t slot_classes = options_.slot_class_limits.size() + 1;
    const std::size_t backlog_classes = options_.backlog_class_limits.size() + 1;
    it->second.classes.assign(slot_classes, WaitSeries(params_));
    it->second.backlog.assign(backlog_classes, WaitSeries(params_));
    it->second.cells.assign(slot_classes * backlog_classes, WaitSeries(params_));
    it->second.per_backlog.assign(slot_classes, WaitSeries(params_));
  }
  return it->second;
}

const WaitPredictor::QueueState* WaitPredictor::Find(std::string_view queue) const {
  const auto it = queues_.find(std::string(queue));
  return it == queues_.end() ? nullptr : &it->second;
}

WaitEstimate WaitPredictor::Predict(const WaitQuery& query) const {
  const QueueState* state = Find(query.queue);
  if (state && !state->dispatching) {
    WaitEstimate estimate;
    estimate.method = WaitMethod::kQueueInactive;
    estimate.quantile = options_.quantile;
    return estimate;
  }
  if (query.starts_now) return StartsNow(state);
  if (!state) {
    WaitEstimate estimate;
    estimate.quantile = options_.quantile;
    return estimate;
  }
  return FromHistory(*state, query);
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

WaitEstimate WaitPredictor::FromHistory(const QueueState& state, const WaitQuery& query) const {
  WaitEstimate estimate;
  estimate.quantile = options_.quantile;
  const double quantile = std::min(options_.quantile + state.quantile_shift, kMaxAdaptiveQuantile);
  if (auto scaled = BacklogScaled(state, query, quantile)) return *scaled;
  const std::size_t slot_class = SlotClass(query.slots);
  // Narrowest first; the backlog series only when the backlog is known.
  std::vector<std::pair<const WaitSeries*, WaitMethod>> order;
  if (query.backlog) {
    const std::size_t backlog_class = BacklogClass(*query.backlog);
    order.emplace_back(&state.cells[slot_class * state.backlog.size() + backlog_class],
                       WaitMethod::kClassBacklogHistory);
    order.emplace_back(&state.backlog[backlog_class], WaitMethod::kBacklogHistory);
  }
  order.emplace_back(&state.classes[slot_class], WaitMethod::kClassHistory);
  order.emplace_back(&state.all, WaitMethod::kQueueHistory);
  for (const auto& [series, method] : order) {
    if (const auto bound = RaisedBound(*series, quantile)) {
      estimate.method = method;
      estimate.p50 = Seconds(*series->Median());
      estimate.bound = Seconds(*bound);
      estimate.confidence = options_.confidence;
      estimate.samples = series->size();
      return estimate;
    }
  }
  if (state.all.size() == 0) return estimate;  // kNoHistory
  // Fewer waits than QBETS needs even for the configured quantile: the
  // largest, at the lower confidence so few give; behind a backlog, at
  // least the backlog times the largest wait per unit of backlog seen, so
  // that the later jobs of a burst are not promised the waits of its first.
  // No bound from fewer than FewestForLargest: their largest is not one
  // even on average.
  estimate.method = WaitMethod::kFewSamples;
  estimate.p50 = Seconds(*state.all.Median());
  estimate.samples = state.all.size();
  if (state.all.size() < FewestForLargest(options_.quantile)) return estimate;
  std::int64_t bound = *state.all.Max();
  if (query.backlog && *query.backlog >= options_.backlog_scale_learn_from) {
    if (const auto per_unit = state.per_backlog_all.Max()) {
      bound = std::max(bound, static_cast<std::int64_t>(
                                  std::ceil(static_cast<double>(*per_unit) * *query.backlog)));
    }
  }
  estimate.bound = Seconds(bound);
  estimate.confidence = MaxConfidence(state.all.size(), options_.quantile);
  return estimate;
}

std::optional<WaitEstimate> WaitPredictor::BacklogScaled(const QueueState& state,
                                                         const WaitQuery& query,
                                                         double quantile) const {
  if (!query.backlog || !(*query.backlog > options_.backlog_scale_from)) return std::nullopt;
  const double backlog = *query.backlog;
  for (const WaitSeries* series :
       {&state.per_backlog[SlotClass(query.slots)], &state.per_backlog_all}) {
    const auto per_unit = RaisedBound(*series, quantile);
    if (!per_unit) continue;
    WaitEstimate estimate;
    estimate.method = WaitMethod::kBacklogScaled;
    estimate.quantile = options_.quantile;
    estimate.confidence = options_.confidence;
    estimate.samples = series->size();
    estimate.p50 = Seconds(std::llround(static_cast<double>(*series->Median()) * backlog));
    estimate.bound =
        Seconds(static_cast<std::int64_t>(std::ceil(static_cast<double>(*per_unit) * backlog)));
    return estimate;
  }
  return std::nullopt;
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
    const auto bound = FromHistory(state, WaitQuery{observation.queue, observation.slots, false,
                                                    observation.backlog_at_submit})
                           .bound;
    const double miss = (bound && wait_s > bound->count()) ? 1.0 : 0.0;
    state.quantile_shift = std::clamp(
        state.quantile_shift + options_.adaptive_rate * (miss - (1.0 - options_.quantile)), 0.0,
        kMaxAdaptiveQuantile - options_.quantile);
  }
  Learn(state, observation, wait_s);
  return ObserveOutcome::kLearned;
}

void WaitPredictor::Learn(QueueState& state, const WaitObservation& observation,
                          std::int64_t wait_s) {
  const std::size_t slot_class = SlotClass(observation.slots);
  state.classes[slot_class].Add(wait_s);
  state.all.Add(wait_s);
  if (!observation.backlog_at_submit) return;
  const double backlog = *observation.backlog_at_submit;
  const std::size_t backlog_class = BacklogClass(backlog);
  state.backlog[backlog_class].Add(wait_s);
  state.cells[slot_class * state.backlog.size() + backlog_class].Add(wait_s);
  if (backlog >= options_.backlog_scale_learn_from && backlog > 0) {
    const auto per_unit =
        static_cast<std::int64_t>(std::ceil(static_cast<double>(wait_s) / backlog));
    state.per_backlog[slot_class].Add(per_unit);
    state.per_backlog_all.Add(per_unit);
  }
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
