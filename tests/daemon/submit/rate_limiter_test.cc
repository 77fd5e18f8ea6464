#include "daemon/submit/rate_limiter.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace bplace {
namespace {

using namespace std::chrono_literals;
using Clock = RateLimiter::Clock;

// A fixed origin: the limiter takes times as arguments, so tests never sleep.
const Clock::time_point kT0 = Clock::time_point{} + 1000s;

RateLimiterOptions Limits(double submit_per_minute, int submit_burst,
                          double lsf_calls_per_minute = 300, int lsf_calls_burst = 30) {
  RateLimiterOptions limits;
  limits.submit_per_minute = submit_per_minute;
  limits.submit_burst = submit_burst;
  limits.lsf_calls_per_minute = lsf_calls_per_minute;
  limits.lsf_calls_burst = lsf_calls_burst;
  return limits;
}

// Admits `n` submissions of `user` at `now`; true when all were allowed.
bool AdmitAll(RateLimiter& limiter, const std::string& user, int n, Clock::time_point now) {
  for (int i = 0; i < n; ++i) {
    if (!limiter.AdmitSubmission(user, now).allowed) return false;
  }
  return true;
}

TEST(RateLimiterTest, AdmitsBurstThenRefusesWithRetryAfter) {
  // 30 per minute: a token every 2 s.
  RateLimiter limiter(Limits(30, 10));
  ASSERT_TRUE(AdmitAll(limiter, "alice", 10, kT0));
  const RateLimiter::Decision refused = limiter.AdmitSubmission("alice", kT0);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 2s);
}

TEST(RateLimiterTest, AllowedDecisionHasNoRetryAfter) {
  RateLimiter limiter(Limits(30, 10));
  const RateLimiter::Decision allowed = limiter.AdmitSubmission("alice", kT0);
  EXPECT_TRUE(allowed.allowed);
  EXPECT_EQ(allowed.retry_after, 0s);
}

TEST(RateLimiterTest, RetryAfterCountsDownAndRoundsUp) {
  RateLimiter limiter(Limits(6, 1));  // a token every 10 s
  ASSERT_TRUE(limiter.AdmitSubmission("alice", kT0).allowed);
  EXPECT_EQ(limiter.AdmitSubmission("alice", kT0 + 1ms).retry_after, 10s);
  EXPECT_EQ(limiter.AdmitSubmission("alice", kT0 + 3s).retry_after, 7s);
  EXPECT_EQ(limiter.AdmitSubmission("alice", kT0 + 9500ms).retry_after, 1s);
  EXPECT_EQ(limiter.AdmitSubmission("alice", kT0 + 9999ms).retry_after, 1s);
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0 + 10s).allowed);
}

TEST(RateLimiterTest, RefusalsTakeNoToken) {
  RateLimiter limiter(Limits(60, 1));  // a token every second
  ASSERT_TRUE(limiter.AdmitSubmission("alice", kT0).allowed);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0 + 500ms).allowed);
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0 + 1s).allowed);
}

TEST(RateLimiterTest, RefillsOverTime) {
  RateLimiter limiter(Limits(30, 10));
  ASSERT_TRUE(AdmitAll(limiter, "alice", 10, kT0));
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0 + 1999ms).allowed);
  // One token per 2 s comes back.
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0 + 2s).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0 + 2s).allowed);
  // After 10 s more, five tokens.
  EXPECT_TRUE(AdmitAll(limiter, "alice", 5, kT0 + 12s));
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0 + 12s).allowed);
}

TEST(RateLimiterTest, RefillStopsAtBurst) {
  RateLimiter limiter(Limits(30, 10));
  ASSERT_TRUE(limiter.AdmitSubmission("alice", kT0).allowed);
  // An hour idle earns no more than a full bucket.
  EXPECT_TRUE(AdmitAll(limiter, "alice", 10, kT0 + 1h));
  const RateLimiter::Decision refused = limiter.AdmitSubmission("alice", kT0 + 1h);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 2s);
}

TEST(RateLimiterTest, KeepsUsersIndependent) {
  RateLimiter limiter(Limits(30, 3));
  ASSERT_TRUE(AdmitAll(limiter, "alice", 3, kT0));
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0).allowed);
  EXPECT_TRUE(AdmitAll(limiter, "bob", 3, kT0));
  EXPECT_FALSE(limiter.AdmitSubmission("bob", kT0).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0).allowed);
}

TEST(RateLimiterTest, SubmissionsDoNotSpendLsfBudget) {
  RateLimiter limiter(Limits(30, 10, 60, 2));
  ASSERT_TRUE(AdmitAll(limiter, "alice", 10, kT0));
  EXPECT_TRUE(limiter.AdmitLsfCall(kT0).allowed);
  EXPECT_TRUE(limiter.AdmitLsfCall(kT0).allowed);
}

TEST(RateLimiterTest, SharesOneLsfBudgetAmongAllCallers) {
  // 300 per minute, burst 30: a call every 200 ms.
  RateLimiter limiter(Limits(30, 10, 300, 30));
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(limiter.AdmitLsfCall(kT0).allowed) << i;
  const RateLimiter::Decision refused = limiter.AdmitLsfCall(kT0);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 1s);  // 200 ms, rounded up to whole seconds
  EXPECT_FALSE(limiter.AdmitLsfCall(kT0 + 199ms).allowed);
  EXPECT_TRUE(limiter.AdmitLsfCall(kT0 + 200ms).allowed);
  EXPECT_FALSE(limiter.AdmitLsfCall(kT0 + 200ms).allowed);
  // Ten seconds refill 50 calls' worth, capped at the burst.
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(limiter.AdmitLsfCall(kT0 + 10s).allowed) << i;
  EXPECT_FALSE(limiter.AdmitLsfCall(kT0 + 10s).allowed);
  // The LSF budget does not touch anyone's submissions.
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0 + 10s).allowed);
}

TEST(RateLimiterTest, HandlesFractionalRates) {
  // Half a submission per minute: a token every 120 s.
  RateLimiter slow(Limits(0.5, 1, 0.01, 1));
  ASSERT_TRUE(slow.AdmitSubmission("alice", kT0).allowed);
  EXPECT_EQ(slow.AdmitSubmission("alice", kT0).retry_after, 120s);
  EXPECT_FALSE(slow.AdmitSubmission("alice", kT0 + 119s).allowed);
  EXPECT_TRUE(slow.AdmitSubmission("alice", kT0 + 120s).allowed);
  // 0.01 per minute: one LSF call every 6000 s.
  ASSERT_TRUE(slow.AdmitLsfCall(kT0).allowed);
  EXPECT_EQ(slow.AdmitLsfCall(kT0).retry_after, 6000s);

  // 45 per minute: a token every 1.333 s, so the wait rounds up to 2 s.
  RateLimiter odd(Limits(45, 2));
  ASSERT_TRUE(AdmitAll(odd, "alice", 2, kT0));
  EXPECT_EQ(odd.AdmitSubmission("alice", kT0).retry_after, 2s);
  EXPECT_FALSE(odd.AdmitSubmission("alice", kT0 + 1333ms).allowed);
  EXPECT_TRUE(odd.AdmitSubmission("alice", kT0 + 1334ms).allowed);

  // 7 per minute (8.571... s a token) keeps its rate over an hour: no drift
  // from fractional intervals.
  RateLimiter seven(Limits(7, 7));
  for (int minute = 0; minute <= 60; ++minute) {
    const Clock::time_point t = kT0 + std::chrono::minutes(minute);
    ASSERT_TRUE(AdmitAll(seven, "alice", 7, t)) << minute;
    ASSERT_FALSE(seven.AdmitSubmission("alice", t).allowed) << minute;
  }
}

TEST(RateLimiterTest, DropsBucketsOfIdleUsersOnceRefilled) {
  RateLimiter limiter(Limits(30, 10));  // empty to full: 20 s
  ASSERT_TRUE(AdmitAll(limiter, "alice", 10, kT0));
  ASSERT_TRUE(limiter.AdmitSubmission("bob", kT0 + 15s).allowed);
  EXPECT_EQ(limiter.TrackedUsers(), 2U);

  // A minute later alice (full at +20 s) and bob (full at +17 s) are full
  // again; the sweep on the next admission drops them.
  ASSERT_TRUE(limiter.AdmitSubmission("carol", kT0 + 61s).allowed);
  EXPECT_EQ(limiter.TrackedUsers(), 1U);

  // Dropping a full bucket changes nothing: alice has her whole burst.
  EXPECT_TRUE(AdmitAll(limiter, "alice", 10, kT0 + 61s));
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0 + 61s).allowed);
}

TEST(RateLimiterTest, KeepsBucketsStillRefilling) {
  RateLimiter limiter(Limits(1, 5));  // a token a minute; empty to full: 5 min
  ASSERT_TRUE(AdmitAll(limiter, "alice", 5, kT0));
  // At +2 min a sweep runs; alice has 2 tokens back but is not full, so her
  // bucket must stay or she would get a whole burst.
  ASSERT_TRUE(limiter.AdmitSubmission("bob", kT0 + 2min).allowed);
  EXPECT_EQ(limiter.TrackedUsers(), 2U);
  EXPECT_TRUE(AdmitAll(limiter, "alice", 2, kT0 + 2min));
  const RateLimiter::Decision refused = limiter.AdmitSubmission("alice", kT0 + 2min);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 60s);
}

TEST(RateLimiterTest, CapsTrackedUsers) {
  RateLimiter limiter(Limits(1, 2), /*max_users=*/3);
  for (const std::string user : {"u1", "u2", "u3", "u4", "u5"}) {
    ASSERT_TRUE(limiter.AdmitSubmission(user, kT0).allowed) << user;
    EXPECT_LE(limiter.TrackedUsers(), 3U);
  }
  EXPECT_EQ(limiter.TrackedUsers(), 3U);
}

TEST(RateLimiterTest, AtCapDropsTheBucketNearestToFull) {
  RateLimiter limiter(Limits(1, 3), /*max_users=*/2);               // a token a minute
  ASSERT_TRUE(AdmitAll(limiter, "alice", 3, kT0));                  // full again at +3 min
  ASSERT_TRUE(limiter.AdmitSubmission("bob", kT0).allowed);         // full again at +1 min
  ASSERT_TRUE(limiter.AdmitSubmission("carol", kT0 + 1s).allowed);  // bob goes
  EXPECT_EQ(limiter.TrackedUsers(), 2U);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0 + 1s).allowed);
}

TEST(RateLimiterTest, ClampsOutOfRangeConfig) {
  RateLimiter limiter(Limits(0, 0, -5, -1));
  // Burst 0 acts as 1; rate 0 as the minimum, 0.01 per minute.
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0).allowed);
  EXPECT_EQ(limiter.AdmitSubmission("alice", kT0).retry_after, 6000s);
  EXPECT_TRUE(limiter.AdmitLsfCall(kT0).allowed);
  EXPECT_FALSE(limiter.AdmitLsfCall(kT0).allowed);
}

TEST(RateLimiterTest, AnArrayTakesAsManyTokensAsItHasElements) {
  // 30 per minute: a token every 2 s; a bucket of 10.
  RateLimiter limiter(Limits(30, 10));
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0, 7).allowed);
  const RateLimiter::Decision refused = limiter.AdmitSubmission("alice", kT0, 4);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 2s) << "one token short: one interval";
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0, 3).allowed) << "a refusal takes nothing";
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0).allowed);
  EXPECT_EQ(limiter.AdmitSubmission("alice", kT0 + 8s, 5).retry_after, 2s);
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0 + 10s, 5).allowed);
}

TEST(RateLimiterTest, MoreTokensThanTheBurstAreNeverAdmitted) {
  RateLimiter limiter(Limits(30, 10));
  EXPECT_EQ(limiter.SubmitBurst(), 10);
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0, 10).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("bob", kT0, 11).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("bob", kT0 + 24h, 11).allowed);
  EXPECT_TRUE(limiter.AdmitSubmission("bob", kT0, 10).allowed) << "the refusal took nothing";
}

TEST(RateLimiterTest, ALargeCostAtTheSlowestRateDoesNotOverflow) {
  RateLimiter limiter(Limits(0.01, 1000000));
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0, 1000000).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0, 1000000).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0, 1).allowed);
}

TEST(RateLimiterTest, AdmitsExactlyTheBurstAcrossThreads) {
  RateLimiter limiter(Limits(1, 100, 1, 100));
  std::vector<std::thread> threads;
  std::vector<int> admitted(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&limiter, &admitted, t] {
      for (int i = 0; i < 50; ++i) {
        if (limiter.AdmitSubmission("alice", kT0).allowed) ++admitted[t];
        limiter.AdmitLsfCall(kT0);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  int total = 0;
  for (const int n : admitted) total += n;
  EXPECT_EQ(total, 100);
}

TEST(RateLimiterTest, SetLimitsWithALargerBurstAdmitsAtOnce) {
  // One token per 100 minutes: nothing refills during the test.
  RateLimiter limiter(Limits(0.01, 1));
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0).allowed);
  limiter.SetLimits(Limits(0.01, 3), kT0);
  // One of three spent: two more now, then none.
  EXPECT_TRUE(AdmitAll(limiter, "alice", 2, kT0));
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0).allowed);
}

TEST(RateLimiterTest, SetLimitsWithASmallerBurstRefusesASpentBucket) {
  RateLimiter limiter(Limits(30, 10));
  ASSERT_TRUE(AdmitAll(limiter, "alice", 3, kT0));
  EXPECT_TRUE(limiter.AdmitSubmission("bob", kT0).allowed);
  limiter.SetLimits(Limits(30, 3), kT0);
  // alice has spent the three the new burst holds; bob one of them.
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0).allowed);
  EXPECT_TRUE(AdmitAll(limiter, "bob", 2, kT0));
  EXPECT_FALSE(limiter.AdmitSubmission("bob", kT0).allowed);
}

TEST(RateLimiterTest, SetLimitsKeepsSpentTokensAtTheNewRate) {
  // 30 a minute (one per 2 s), burst 2: two spent at kT0.
  RateLimiter limiter(Limits(30, 2));
  ASSERT_TRUE(AdmitAll(limiter, "alice", 2, kT0));
  EXPECT_EQ(limiter.AdmitSubmission("alice", kT0).retry_after, 2s);
  // 6 a minute (one per 10 s): the two spent tokens take 10 s each to come back.
  limiter.SetLimits(Limits(6, 2), kT0);
  EXPECT_EQ(limiter.AdmitSubmission("alice", kT0).retry_after, 10s);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", kT0 + 9s).allowed);
  EXPECT_TRUE(limiter.AdmitSubmission("alice", kT0 + 10s).allowed);
}

TEST(RateLimiterTest, SetLimitsAppliesToTheLsfCallBudget) {
  RateLimiter limiter(Limits(30, 10, /*lsf_calls_per_minute=*/0.01, /*lsf_calls_burst=*/1));
  EXPECT_TRUE(limiter.AdmitLsfCall(kT0).allowed);
  EXPECT_FALSE(limiter.AdmitLsfCall(kT0).allowed);
  limiter.SetLimits(Limits(30, 10, 0.01, 2), kT0);
  EXPECT_TRUE(limiter.AdmitLsfCall(kT0).allowed);
  EXPECT_FALSE(limiter.AdmitLsfCall(kT0).allowed);
}

}  // namespace
}  // namespace bplace
