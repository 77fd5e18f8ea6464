#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "daemon/options.h"

namespace bplace {

// Token buckets that protect mbatchd from the daemon's callers: one per user
// for job submissions (`[limits] submit_per_minute` refill, `submit_burst`
// capacity) and one shared by all callers for the LSF commands requests cause
// (`lsf_calls_per_minute`, `lsf_calls_burst`). A bucket starts full; each
// admission takes one token; tokens come back continuously at the rate.
//
// Implemented as GCRA (the "virtual scheduling" form of a token bucket): a
// bucket is one time point, the moment it would be full again, in integer
// clock ticks, so there is no floating-point drift and a full bucket is the
// same as no bucket at all.
//
// Memory is bounded: a user's bucket is dropped once it has refilled
// completely (dropping it changes nothing), at the first sweep after that;
// a sweep runs on an admission at most once per kSweepInterval, and whenever
// a new user arrives while `max_users` buckets are tracked. If every tracked
// bucket is still refilling at that point, the one closest to full is dropped,
// so that user may get up to a burst's worth of tokens early; a new user is
// never refused for lack of room.
//
// Thread-safe: every call takes one internal mutex, for O(1) work except a
// sweep (O(tracked users)). Never blocks otherwise. Times are passed in, so
// tests use fixed time points and never sleep.
class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  static constexpr std::size_t kDefaultMaxUsers = 10000;
  static constexpr Clock::duration kSweepInterval = std::chrono::minutes(1);

  // The answer to one request for a token.
  struct Decision {
    bool allowed = false;
    // 0 when allowed. When refused: the whole seconds, rounded up and at
    // least 1, until the bucket holds a token again (the value of an HTTP
    // Retry-After header).
    std::chrono::seconds retry_after{0};
  };

  // Uses the rates and bursts of `limits`. ParseConfig guarantees rates in
  // [0.01, 1e6] per minute and bursts in [1, 1e6]; values outside are clamped
  // into those ranges. `max_users` (at least 1) caps the tracked user buckets.
  explicit RateLimiter(const RateLimiterOptions& limits, std::size_t max_users = kDefaultMaxUsers);

  // Takes `tokens` (at least 1: a job array costs its element count)
  // submission tokens from `user`'s bucket at `now` if it holds that many.
  // Refused requests take nothing. A request of more tokens than
  // SubmitBurst() is never admitted: callers refuse it before (a 400, not
  // an eternal 429). Users are independent; the empty name is a user like
  // any other.
  Decision AdmitSubmission(std::string_view user, Clock::time_point now, std::int64_t tokens = 1);

  // The capacity of a user's bucket ([limits] submit_burst, clamped as the
  // constructor says): the most tokens one request can ever get.
  std::int64_t SubmitBurst() const { return submit_burst_.load(); }

  // Takes one token from the global bucket of LSF commands at `now` if it has
  // one. Call once per LSF command a request makes run (each bsub attempt),
  // not for the daemon's own refreshes.
  Decision AdmitLsfCall(Clock::time_point now);

  // Replaces the rates and bursts with those of `limits` (clamped as in the
  // constructor), at `now`, for every bucket at once (SIGHUP reloads
  // [limits]). Each bucket keeps the tokens it has spent: a bucket that had
  // spent n tokens has spent n of the new ones, so a larger burst admits at
  // once and a faster rate refills sooner. Buckets themselves are kept.
  void SetLimits(const RateLimiterOptions& limits, Clock::time_point now);

  // Number of user buckets currently held (for tests and metrics).
  std::size_t TrackedUsers() const;

  // Requests refused since start by AdmitSubmission (any user) and by
  // AdmitLsfCall, for GET /metrics. Lock-free.
  std::uint64_t SubmissionRefusals() const { return submission_refusals_.load(); }
  std::uint64_t LsfCallRefusals() const { return lsf_call_refusals_.load(); }

 private:
  // One bucket's parameters: the time one token takes to come back, and how
  // far ahead of `now` a bucket's full-again time may be and still admit
  // ((burst - 1) intervals).
  struct Rate {
    Clock::duration interval;
    Clock::duration tolerance;
  };

  // Full-again time of a bucket; Clock::time_point::min() (or any time not
  // after `now`) is a full bucket.
  using FullAt = Clock::time_point;

  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  static Rate MakeRate(double per_minute, int burst);
  static Decision TakeTokens(const Rate& rate, FullAt& full_at, Clock::time_point now,
                             std::int64_t tokens = 1);
  // Moves a bucket's full-again time so that it has spent as many tokens of
  // `to` as it had of `from`.
  static void Rescale(FullAt& full_at, const Rate& from, const Rate& to, Clock::time_point now);
  void SweepLocked(Clock::time_point now);

  std::atomic<std::int64_t> submit_burst_;  // SetLimits changes it; read without mutex_
  const std::size_t max_users_;

  mutable std::mutex mutex_;
  Rate submit_rate_;  // guarded by mutex_, as every field below
  Rate lsf_rate_;
  std::unordered_map<std::string, FullAt, StringHash, std::equal_to<>> users_;
  FullAt lsf_full_at_ = FullAt::min();
  Clock::time_point last_sweep_ = Clock::time_point::min();
  std::atomic<std::uint64_t> submission_refusals_{0};
  std::atomic<std::uint64_t> lsf_call_refusals_{0};
};

}  // namespace bplace
