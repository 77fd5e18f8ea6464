#include "daemon/placement/wait_series.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace bplace {
namespace {

// Expected ranks computed exactly (rational arithmetic) from
// P(Binomial(n, q) <= k - 1) >= c, outside this code.
TEST(BoundRankTest, MatchesTheBinomialForKnownValues) {
  EXPECT_EQ(BoundRank(59, 0.95, 0.95), 59u);
  EXPECT_EQ(BoundRank(58, 0.95, 0.95), std::nullopt);
  EXPECT_EQ(BoundRank(100, 0.95, 0.95), 99u);
  EXPECT_EQ(BoundRank(1000, 0.95, 0.95), 962u);
  EXPECT_EQ(BoundRank(10, 0.5, 0.95), 9u);
  EXPECT_EQ(BoundRank(20, 0.5, 0.5), 11u);
  EXPECT_EQ(BoundRank(200, 0.9, 0.99), 190u);
  EXPECT_EQ(BoundRank(300, 0.99, 0.95), 300u);
}

TEST(BoundRankTest, RefusesArgumentsOutsideTheUnitInterval) {
  EXPECT_EQ(BoundRank(0, 0.95, 0.95), std::nullopt);
  EXPECT_EQ(BoundRank(100, 1.0, 0.95), std::nullopt);
  EXPECT_EQ(BoundRank(100, 0.95, 0.0), std::nullopt);
  EXPECT_EQ(MinSamples(0.0, 0.95), 0u);
}

// The same definition evaluated the slow way (every CDF term from lgamma),
// over many n: the fast upper-tail sum must agree everywhere.
TEST(BoundRankTest, AgreesWithTheCdfSummedFromBelow) {
  for (const double q : {0.5, 0.9, 0.95, 0.99}) {
    for (std::size_t n = 1; n <= 1500; n += 7) {
      std::optional<std::size_t> expected;
      long double cdf = 0;
      for (std::size_t k = 1; k <= n; ++k) {
        const std::size_t j = k - 1;
        cdf += std::exp(std::lgamma(n + 1.0L) - std::lgamma(j + 1.0L) - std::lgamma(n - j + 1.0L) +
                        j * std::log(static_cast<long double>(q)) +
                        (n - j) * std::log1p(-static_cast<long double>(q)));
        if (cdf >= 0.95L) {
          expected = k;
          break;
        }
      }
      EXPECT_EQ(BoundRank(n, q, 0.95), expected) << "n=" << n << " q=" << q;
    }
  }
}

TEST(BoundRankTest, MinSamplesIsTheFirstNWithABound) {
  EXPECT_EQ(MinSamples(0.95, 0.95), 59u);
  EXPECT_EQ(MinSamples(0.9, 0.9), 22u);
  EXPECT_EQ(MinSamples(0.99, 0.95), 299u);
  EXPECT_EQ(MinSamples(0.5, 0.95), 5u);
  EXPECT_NEAR(MaxConfidence(59, 0.95), 1 - std::pow(0.95, 59), 1e-12);
  EXPECT_EQ(MaxConfidence(0, 0.95), 0.0);
}

TEST(BoundRankTest, FewestForLargestIsTheFirstNWhoseLargestCoversOnAverage) {
  // n / (n + 1) >= q: 19/20 = 0.95 exactly, 18/19 short of it.
  EXPECT_EQ(FewestForLargest(0.95), 19u);
  EXPECT_EQ(FewestForLargest(0.9), 9u);
  EXPECT_EQ(FewestForLargest(0.99), 99u);
  EXPECT_EQ(FewestForLargest(0.5), 1u);
  EXPECT_EQ(FewestForLargest(1.0), 0u);
  EXPECT_EQ(FewestForLargest(0.0), 0u);
}

TEST(BoundRankTest, ChangeRunLengthIsTheShortestUnlikelyRun) {
  EXPECT_EQ(ChangeRunLength(0.95, 0.95), 2u);   // 0.05^2 = 0.0025 < 0.05
  EXPECT_EQ(ChangeRunLength(0.5, 0.95), 5u);    // 0.5^5 = 0.031 < 0.05, 0.5^4 is not
  EXPECT_EQ(ChangeRunLength(0.9, 0.9995), 4u);  // 0.1^4 < 0.0005 <= 0.1^3
}

WaitSeriesParams Params(std::size_t max_history, bool trim = true) {
  WaitSeriesParams params;
  params.max_history = max_history;
  params.trim_on_change = trim;
  return params;
}

TEST(WaitSeriesTest, BoundIsTheRankedValueOnceThereAreEnough) {
  WaitSeries series(Params(1000, false));
  for (int i = 1; i <= 58; ++i) series.Add(i);
  EXPECT_EQ(series.Bound(), std::nullopt);
  EXPECT_EQ(series.Max(), 58);
  series.Add(59);
  EXPECT_EQ(series.Bound(), 59);  // rank 59 of 59
  for (int i = 60; i <= 100; ++i) series.Add(i);
  EXPECT_EQ(series.Bound(), 99);  // rank 99 of 100
  EXPECT_EQ(series.Median(), 50);
  EXPECT_EQ(series.EmpiricalQuantile(0.95), 95);
}

TEST(WaitSeriesTest, KeepsOnlyTheNewestValues) {
  WaitSeries series(Params(3, false));
  for (const int v : {50, 10, 20, 30}) series.Add(v);
  EXPECT_EQ(series.size(), 3u);
  EXPECT_EQ(series.Newest(10), (std::vector<std::int64_t>{30, 20, 10}));
  EXPECT_EQ(series.Max(), 30);
  series.Add(-5);  // a negative wait counts as 0
  EXPECT_EQ(series.Newest(1), (std::vector<std::int64_t>{0}));
}

TEST(WaitSeriesTest, TrimsTheHistoryAfterARunOfMisses) {
  WaitSeries series(Params(1000));
  for (int i = 0; i < 500; ++i) series.Add(10 + i % 10);  // bound 19
  ASSERT_EQ(series.Bound(), 19);
  EXPECT_FALSE(series.Add(500));  // one miss: could be the 5%
  EXPECT_EQ(series.miss_run(), 1u);
  EXPECT_TRUE(series.Add(600));  // two in a row: (0.05)^2 < 0.05, a change
  // The newest 59 are kept (57 old, 2 new), and the bound is their largest.
  EXPECT_EQ(series.size(), 59u);
  EXPECT_EQ(series.Bound(), 600);
  EXPECT_EQ(series.miss_run(), 0u);
}

TEST(WaitSeriesTest, AHitEndsTheRun) {
  WaitSeries series(Params(1000));
  for (int i = 0; i < 500; ++i) series.Add(10 + i % 10);
  series.Add(500);
  series.Add(12);
  EXPECT_EQ(series.miss_run(), 0u);
  EXPECT_FALSE(series.Add(500));
  EXPECT_EQ(series.size(), 503u);
}

TEST(WaitSeriesTest, WithoutTrimmingARunOnlyAddsValues) {
  WaitSeries series(Params(1000, false));
  for (int i = 0; i < 500; ++i) series.Add(10 + i % 10);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(series.Add(600));
  EXPECT_EQ(series.size(), 505u);
  EXPECT_EQ(series.Bound(), 19);
}

// The property QBETS promises: on independent, identically distributed
// waits the bound covers at least q of new draws. Exponential waits (mean
// 600 s), fixed seed; each draw is first checked against the bound from the
// draws before it, then learned. Coverage must reach q overall and 0.93 in
// at least 90% of 1,000-draw windows (the goals), with and without
// trimming (false alarms of the change-point test must not cost coverage).
TEST(WaitSeriesTest, CoversTheQuantileOfNewIidDraws) {
  for (const bool trim : {false, true}) {
    std::mt19937_64 rng(20240607);
    std::exponential_distribution<double> wait(1.0 / 600.0);
    WaitSeries series(Params(1000, trim));
    int covered = 0, checked = 0, window_covered = 0, window_n = 0;
    int windows = 0, good_windows = 0;
    for (int i = 0; i < 60000; ++i) {
      const auto value = static_cast<std::int64_t>(wait(rng));
      if (const auto bound = series.Bound()) {
        const bool hit = value <= *bound;
        covered += hit;
        ++checked;
        window_covered += hit;
        if (++window_n == 1000) {
          ++windows;
          good_windows += window_covered >= 930;
          window_covered = window_n = 0;
        }
      }
      series.Add(value);
    }
    SCOPED_TRACE(trim ? "trim" : "no trim");
    EXPECT_GE(static_cast<double>(covered) / checked, 0.95);
    EXPECT_GE(static_cast<double>(good_windows) / windows, 0.9);
  }
}

// And the confidence: over independent histories of 59 draws, the bound
// (their largest) lies at or above the true 0.95-quantile in at least 95%
// of them (1 - 0.95^59 = 0.9515 in theory).
TEST(WaitSeriesTest, BoundExceedsTheTrueQuantileWithTheStatedConfidence) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> wait(0, 9999);  // 0.95-quantile: 9500
  int above = 0;
  const int trials = 20000;
  for (int t = 0; t < trials; ++t) {
    WaitSeries series(Params(59, false));
    for (int i = 0; i < 59; ++i) series.Add(wait(rng));
    above += *series.Bound() >= 9500;
  }
  EXPECT_NEAR(static_cast<double>(above) / trials, 0.9515, 0.006);
}

}  // namespace
}  // namespace bplace
