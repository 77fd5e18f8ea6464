#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace bplace {

// The QBETS binomial method (Nurmi, Brevik, Wolski, "QBETS: Queue Bounds
// Estimation from Time Series", JSSPP 2007). Of n values drawn
// independently, the number below the true q-quantile is Binomial(n, q); so
// the k-th smallest value lies at or above the q-quantile with probability
// P(Binomial(n, q) <= k - 1). Returns the smallest such rank k (1-based)
// for which that probability is at least `confidence`, or nullopt when even
// the largest value is not enough (q^n > 1 - confidence: too few values).
// Computed from the binomial distribution (log space, summing the upper
// tail), not a table. Takes 0 < quantile < 1, 0 < confidence < 1; other
// values give nullopt. Pure; O(n (1 - q)) in practice.
std::optional<std::size_t> BoundRank(std::size_t n, double quantile, double confidence);

// The fewest values for which BoundRank has an answer: the smallest n with
// q^n <= 1 - confidence (59 for 0.95 at 95% confidence). 0 for arguments
// outside (0, 1).
std::size_t MinSamples(double quantile, double confidence);

// The confidence that the largest of n independent values is at or above
// the true q-quantile: 1 - q^n. What a bound from fewer than MinSamples
// values is worth, stated instead of the configured confidence.
double MaxConfidence(std::size_t n, double quantile);

// The fewest values whose largest is at least a new value drawn alike with
// probability `quantile`: the smallest n with n / (n + 1) >= quantile (19
// for 0.95). Fewer cannot bound that quantile even on average, at any
// confidence. 0 for a quantile outside (0, 1).
std::size_t FewestForLargest(double quantile);

// How a WaitSeries judges its values.
struct WaitSeriesParams {
  double quantile = 0.95;
  double confidence = 0.95;
  // Values kept (the newest). More gives a bound closer to the quantile
  // itself; fewer follows slow drift sooner.
  std::size_t max_history = 1000;
  // Change-point trimming (see WaitSeries::Add): false keeps every value
  // until max_history pushes it out.
  bool trim_on_change = true;
};

// The run of consecutive misses (values above a correct bound, each with
// probability at most 1 - q) that is unlikely enough to mean a change:
// the smallest r >= 2 with (1 - q)^r < 1 - confidence, the binomial
// probability of r misses in r draws. 2 for 0.95/0.95.
std::size_t ChangeRunLength(double quantile, double confidence);

// One series of observed waits (seconds) for one queue, or one queue and
// slot-count class: the newest values in arrival order and the same values
// sorted, so that an order statistic costs O(1) and an addition O(n).
// Not thread-safe: one owner (WaitPredictor) calls it.
class WaitSeries {
 public:
  explicit WaitSeries(const WaitSeriesParams& params);

  // Adds a wait (seconds, >= 0; negative values are taken as 0). First
  // compares it with the series' current bound: a value above it is a miss.
  // After ChangeRunLength consecutive misses the series has changed (QBETS
  // change-point detection): the values before the run are dropped, except
  // that the newest MinSamples values are kept so that a bound at the
  // stated confidence still exists; their largest value, from the run, is
  // then the bound, so the bound follows the change at once. Returns true
  // when this addition trimmed the history.
  bool Add(std::int64_t wait_s);

  // Number of values held.
  std::size_t size() const { return sorted_.size(); }

  // The upper bound on the q-quantile at the series' confidence, or at
  // `quantile` when given (adaptive callers pass a corrected quantile):
  // the BoundRank-th smallest value. nullopt when there are too few values.
  std::optional<std::int64_t> Bound(std::optional<double> quantile = std::nullopt) const;

  // The median (the ceil(n/2)-th smallest value); nullopt when empty.
  std::optional<std::int64_t> Median() const;

  // The plain empirical p-quantile (the ceil(p n)-th smallest value, no
  // confidence margin), for baselines; nullopt when empty.
  std::optional<std::int64_t> EmpiricalQuantile(double p) const;

  // The largest value; nullopt when empty.
  std::optional<std::int64_t> Max() const;

  // The newest `limit` values, newest first.
  std::vector<std::int64_t> Newest(std::size_t limit) const;

  // Consecutive misses so far (0 after a value at or below the bound).
  std::size_t miss_run() const { return miss_run_; }

 private:
  void PushBack(std::int64_t wait_s);
  void PopFront();

  WaitSeriesParams params_;
  std::size_t min_samples_;
  std::size_t change_run_;
  std::deque<std::int64_t> in_order_;  // oldest first
  std::vector<std::int64_t> sorted_;   // ascending
  std::size_t miss_run_ = 0;
};

}  // namespace bplace
