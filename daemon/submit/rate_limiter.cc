#include "daemon/submit/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace bplace {
namespace {

// The ranges ParseConfig enforces (config/config_schema.cc, [limits]). With
// them the largest tolerance, (1e6 - 1) x 6000 s, still fits the clock's
// 64-bit nanoseconds (about 292 years).
constexpr double kMinPerMinute = 0.01;
constexpr double kMaxPerMinute = 1e6;
constexpr int kMaxBurst = 1000000;

}  // namespace

RateLimiter::RateLimiter(const RateLimiterOptions& limits, std::size_t max_users)
    : submit_burst_(std::clamp(limits.submit_burst, 1, kMaxBurst)),
      max_users_(std::max<std::size_t>(max_users, 1)),
      submit_rate_(MakeRate(limits.submit_per_minute, limits.submit_burst)),
      lsf_rate_(MakeRate(limits.lsf_calls_per_minute, limits.lsf_calls_burst)) {}

void RateLimiter::SetLimits(const RateLimiterOptions& limits, Clock::time_point now) {
  const Rate submit = MakeRate(limits.submit_per_minute, limits.submit_burst);
  const Rate lsf = MakeRate(limits.lsf_calls_per_minute, limits.lsf_calls_burst);
  std::lock_guard lock(mutex_);
  for (auto& [user, full_at] : users_) Rescale(full_at, submit_rate_, submit, now);
  Rescale(lsf_full_at_, lsf_rate_, lsf, now);
  submit_rate_ = submit;
  lsf_rate_ = lsf;
  submit_burst_ = std::clamp(limits.submit_burst, 1, kMaxBurst);
}

void RateLimiter::Rescale(FullAt& full_at, const Rate& from, const Rate& to,
                          Clock::time_point now) {
  if (full_at <= now) return;  // full: nothing spent
  // Spent tokens = ahead / interval, fractional; in long double, as ahead
  // times the new interval would overflow 64-bit ticks for slow rates.
  const long double spent = static_cast<long double>((full_at - now).count()) /
                            static_cast<long double>(from.interval.count());
  full_at = now + Clock::duration(static_cast<Clock::rep>(
                      std::llround(spent * static_cast<long double>(to.interval.count()))));
}

RateLimiter::Rate RateLimiter::MakeRate(double per_minute, int burst) {
  // Written so that NaN lands on the minimum too.
  if (!(per_minute >= kMinPerMinute)) per_minute = kMinPerMinute;
  per_minute = std::min(per_minute, kMaxPerMinute);
  burst = std::clamp(burst, 1, kMaxBurst);
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::nanoseconds(std::llround(60e9 / per_minute)));
  return Rate{interval, interval * (burst - 1)};
}

RateLimiter::Decision RateLimiter::TakeTokens(const Rate& rate, FullAt& full_at,
                                              Clock::time_point now, std::int64_t tokens) {
  // A bucket whose full-again time has passed is simply full: no credit is
  // carried beyond the burst.
  const Clock::time_point from = std::max(full_at, now);
  // N tokens at once are admitted when the last of them would be (GCRA with
  // a quantity): the bucket's full-again time moves N intervals.
  // Compared as "ahead > tolerance - extra" so that nothing overflows.
  tokens = std::clamp<std::int64_t>(tokens, 1, kMaxBurst + 1);
  const Clock::duration extra = rate.interval * (tokens - 1);
  if (extra > rate.tolerance) {
    // More than the burst: no wait ever admits it (callers refuse it first).
    return Decision{false, std::chrono::ceil<std::chrono::seconds>(rate.tolerance + rate.interval)};
  }
  const Clock::duration ahead = from - now;
  if (ahead > rate.tolerance - extra) {
    // Refusals take nothing, so a client hammering a refused bucket does not
    // push its own recovery further out.
    const Clock::duration wait = ahead - (rate.tolerance - extra);
    const auto seconds = std::chrono::ceil<std::chrono::seconds>(wait);
    return Decision{false, std::max(seconds, std::chrono::seconds(1))};
  }
  full_at = from + rate.interval * tokens;
  return Decision{true, std::chrono::seconds(0)};
}

RateLimiter::Decision RateLimiter::AdmitSubmission(std::string_view user, Clock::time_point now,
                                                   std::int64_t tokens) {
  std::lock_guard lock(mutex_);
  if (now >= last_sweep_ + kSweepInterval) SweepLocked(now);

  auto it = users_.find(user);
  if (it == users_.end()) {
    if (users_.size() >= max_users_) {
      SweepLocked(now);
      if (users_.size() >= max_users_) {
        // Still full: drop the bucket nearest to full, which over-admits the
        // least. Refusing the newcomer instead would let a crowd of users
        // lock out everyone else.
        const auto nearest =
            std::min_element(users_.begin(), users_.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        users_.erase(nearest);
      }
    }
    it = users_.emplace(std::string(user), FullAt::min()).first;
  }
  const Decision decision = TakeTokens(submit_rate_, it->second, now, tokens);
  if (!decision.allowed) submission_refusals_.fetch_add(1, std::memory_order_relaxed);
  return decision;
}

RateLimiter::Decision RateLimiter::AdmitLsfCall(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  const Decision decision = TakeTokens(lsf_rate_, lsf_full_at_, now);
  if (!decision.allowed) lsf_call_refusals_.fetch_add(1, std::memory_order_relaxed);
  return decision;
}

std::size_t RateLimiter::TrackedUsers() const {
  std::lock_guard lock(mutex_);
  return users_.size();
}

void RateLimiter::SweepLocked(Clock::time_point now) {
  last_sweep_ = now;
  // A bucket that is full again behaves exactly like a missing one.
  std::erase_if(users_, [now](const auto& entry) { return entry.second <= now; });
}

}  // namespace bplace
