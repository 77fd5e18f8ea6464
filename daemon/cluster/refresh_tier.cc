#include "daemon/cluster/refresh_tier.h"

#include <algorithm>
#include <exception>
#include <optional>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

namespace bplace {

struct RefreshTier::Run {
  TierCycle cycle;
  CycleTimes times;
  std::vector<std::optional<Result<lsf::CommandResult>>> results;
  std::size_t pending = 0;
};

RefreshTier::RefreshTier(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                         Clock& clock, SnapshotStore& store, RefreshTierOptions options,
                         std::function<TierCycle()> make_cycle)
    : strand_(boost::asio::make_strand(executor)),
      runner_(runner),
      clock_(clock),
      store_(store),
      options_(std::move(options)),
      make_cycle_(std::move(make_cycle)),
      timer_(clock.NewTimer(strand_)) {}

RefreshTier::~RefreshTier() = default;

std::chrono::milliseconds RefreshTier::NextDelay(const RefreshTierOptions& options,
                                                 int consecutive_failures) {
  if (consecutive_failures <= 0) return options.interval;
  auto delay = options.retry_interval;
  for (int i = 1; i < consecutive_failures && delay < options.interval; ++i) delay *= 2;
  return std::min(delay, options.interval);
}

void RefreshTier::Start() {
  boost::asio::post(strand_, [this] { stopped_ = false; });
  Refresh();
}

void RefreshTier::Stop() {
  boost::asio::post(strand_, [this] {
    stopped_ = true;
    timer_->Cancel();
  });
}

void RefreshTier::Refresh(Done done) {
  boost::asio::post(strand_, [this, done = std::move(done)]() mutable {
    if (done) waiters_.push_back(std::move(done));
    if (running_) return;
    running_ = true;
    timer_->Cancel();
    Begin();
  });
}

void RefreshTier::RefreshSoon(std::chrono::milliseconds min_gap, Done done) {
  boost::asio::post(strand_, [this, min_gap, done = std::move(done)]() mutable {
    if (running_) {
      // The running cycle's queries were built before this caller's change.
      if (done) next_waiters_.push_back(std::move(done));
      again_gap_ = again_gap_ ? std::min(*again_gap_, min_gap) : min_gap;
      return;
    }
    Soon(min_gap, std::move(done));
  });
}

// On strand_, with no run in progress.
void RefreshTier::Soon(std::chrono::milliseconds min_gap, Done done) {
  if (done) waiters_.push_back(std::move(done));
  if (soon_pending_) return;
  const SteadyTime now = clock_.SteadyNow();
  if (!last_start_ || now - *last_start_ >= min_gap) {
    running_ = true;
    timer_->Cancel();
    Begin();
    return;
  }
  soon_pending_ = true;
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*last_start_ + min_gap - now);
  timer_->Schedule(wait, [this] {
    soon_pending_ = false;
    Refresh();
  });
}

void RefreshTier::SetInterval(std::chrono::milliseconds interval) {
  boost::asio::post(strand_, [this, interval] {
    options_.interval = interval;
    // Running: Finish schedules with the new interval. A RefreshSoon run on
    // the timer keeps its time; the next one uses the new interval.
    if (running_ || soon_pending_ || stopped_) return;
    std::chrono::milliseconds delay = NextDelay(options_, consecutive_failures_);
    if (last_start_) {
      const auto since =
          std::chrono::duration_cast<std::chrono::milliseconds>(clock_.SteadyNow() - *last_start_);
      delay = std::max(delay - since, std::chrono::milliseconds(0));
    }
    timer_->Schedule(delay, [this] { Refresh(); });
  });
}

void RefreshTier::WaitForNext(Done done) {
  boost::asio::post(
      strand_, [this, done = std::move(done)]() mutable { waiters_.push_back(std::move(done)); });
}

// On strand_.
void RefreshTier::Begin() {
  auto run = std::make_shared<Run>();
  run->times = {clock_.SteadyNow(), clock_.SystemNow()};
  last_start_ = run->times.started;
  soon_pending_ = false;  // a run now serves whoever asked for one soon
  try {
    run->cycle = make_cycle_();
  } catch (const std::exception& e) {
    run->cycle = TierCycle{};
    run->cycle.build = [what = std::string(e.what())](
                           auto&, const CycleTimes&) -> Result<SnapshotStore::Change> {
      return Fail(ErrorCode::kInternal, "internal error preparing the refresh: " + what);
    };
  }
  run->results.resize(run->cycle.queries.size());
  run->pending = run->cycle.queries.size();
  if (run->pending == 0) {
    Finish(run);
    return;
  }
  for (std::size_t i = 0; i < run->cycle.queries.size(); ++i) {
    runner_.Run(run->cycle.queries[i].spec, [this, run, i](Result<lsf::CommandResult> result) {
      boost::asio::post(strand_, [this, run, i, result = std::move(result)]() mutable {
        run->results[i] = std::move(result);
        if (--run->pending == 0) Finish(run);
      });
    });
  }
}

// On strand_: the exception boundary of one cycle.
Result<void> RefreshTier::BuildAndPublish(Run& run) {
  std::vector<Result<lsf::CommandResult>> results;
  results.reserve(run.results.size());
  for (auto& result : run.results) results.push_back(std::move(*result));
  Result<SnapshotStore::Change> change = Fail(ErrorCode::kInternal, "no build step");
  try {
    if (run.cycle.build) change = run.cycle.build(results, run.times);
  } catch (const std::exception& e) {
    change = Fail(ErrorCode::kInternal, std::string("internal error: ") + e.what());
  }
  const Result<void> outcome =
      change ? Result<void>{} : Result<void>(tl::unexpected(change.error()));
  const auto duration =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_.SteadyNow() - run.times.started);
  try {
    store_.Publish([&](ClusterSnapshot& snapshot) {
      if (change && *change) (*change)(snapshot);
      if (options_.status == nullptr) return;
      TierStatus& status = snapshot.*options_.status;
      status.last_attempt = run.times.started_wall;
      status.last_duration = duration;
      if (outcome) {
        status.last_success = run.times.started_wall;
        status.last_error.clear();
        status.consecutive_failures = 0;
        ++status.successes;
      } else {
        status.last_error = outcome.error().message;
        ++status.consecutive_failures;
      }
    });
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kInternal, std::string("internal error publishing: ") + e.what());
  }
  return outcome;
}

// On strand_.
void RefreshTier::Finish(const std::shared_ptr<Run>& run) {
  Result<void> outcome = BuildAndPublish(*run);
  if (run->cycle.after) {
    try {
      run->cycle.after(outcome, run->times);
    } catch (const std::exception& e) {
      spdlog::error("{} refresh: internal error after publishing: {}", options_.name, e.what());
    }
  }
  if (outcome) {
    consecutive_failures_ = 0;
  } else {
    ++consecutive_failures_;
    spdlog::warn("{} refresh failed: {}", options_.name, outcome.error().message);
  }
  std::vector<Done> waiters = std::move(waiters_);
  waiters_.clear();
  running_ = false;
  for (Done& waiter : waiters) {
    try {
      waiter(outcome);
    } catch (const std::exception& e) {
      spdlog::error("{} refresh: a waiter threw: {}", options_.name, e.what());
    }
  }
  Schedule();
  if (again_gap_) {
    // Callers that asked during this run get the next one.
    const std::chrono::milliseconds gap = *again_gap_;
    again_gap_.reset();
    waiters_ = std::move(next_waiters_);
    next_waiters_.clear();
    Soon(gap, {});
  }
}

// On strand_.
void RefreshTier::Schedule() {
  if (stopped_) return;
  timer_->Schedule(NextDelay(options_, consecutive_failures_), [this] { Refresh(); });
}

}  // namespace bplace
