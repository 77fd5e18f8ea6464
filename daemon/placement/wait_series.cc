#include "daemon/placement/wait_series.h"

#include <algorithm>
#include <cmath>

namespace bplace {
namespace {

bool InOpenUnit(double x) { return x > 0.0 && x < 1.0; }

// Takes the sorted values and a 1-based rank.
std::int64_t RankValue(const std::vector<std::int64_t>& sorted, std::size_t rank) {
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

std::optional<std::size_t> BoundRank(std::size_t n, double quantile, double confidence) {
  if (n == 0 || !InOpenUnit(quantile) || !InOpenUnit(confidence)) return std::nullopt;
  // Sums P(Binomial(n, q) = j) from j = n downwards: the upper tail is the
  // small side at the quantiles that matter (q near 1), so it is summed
  // accurately; the terms are stepped in log space so that q^n for large n
  // does not underflow before the sum becomes meaningful.
  const double allowed = 1.0 - confidence;
  const double log_ratio = std::log1p(-quantile) - std::log(quantile);
  double log_pmf = static_cast<double>(n) * std::log(quantile);
  double tail = 0.0;
  for (std::size_t j = n; j >= 1; --j) {
    tail += std::exp(log_pmf);
    // tail is now P(Binomial >= j): rank j fails, so j + 1 is the smallest
    // rank whose tail (checked one step earlier) was within `allowed`.
    if (tail > allowed) {
      if (j == n) return std::nullopt;
      return j + 1;
    }
    log_pmf +=
        std::log(static_cast<double>(j)) - std::log(static_cast<double>(n - j + 1)) + log_ratio;
  }
  return 1;
}

std::size_t MinSamples(double quantile, double confidence) {
  if (!InOpenUnit(quantile) || !InOpenUnit(confidence)) return 0;
  // q^n <= 1 - c  <=>  n >= log(1 - c) / log(q); start just below the
  // estimate and let BoundRank, the definition, decide the last step.
  const double estimate = std::log1p(-confidence) / std::log(quantile);
  std::size_t n = estimate > 2.0 ? static_cast<std::size_t>(estimate) - 1 : 1;
  while (!BoundRank(n, quantile, confidence)) ++n;
  return n;
}

double MaxConfidence(std::size_t n, double quantile) {
  if (!InOpenUnit(quantile)) return 0.0;
  return 1.0 - std::pow(quantile, static_cast<double>(n));
}

std::size_t FewestForLargest(double quantile) {
  if (!InOpenUnit(quantile)) return 0;
  // n / (n + 1) >= q  <=>  n >= q / (1 - q); the tolerance keeps 0.95 at 19
  // where the division gives 19.000000000000004.
  return static_cast<std::size_t>(std::ceil(quantile / (1.0 - quantile) - 1e-9));
}

std::size_t ChangeRunLength(double quantile, double confidence) {
  if (!InOpenUnit(quantile) || !InOpenUnit(confidence)) return 2;
  std::size_t r = 2;
  while (std::pow(1.0 - quantile, static_cast<double>(r)) >= 1.0 - confidence) ++r;
  return r;
}

WaitSeries::WaitSeries(const WaitSeriesParams& params)
    : params_(params),
      min_samples_(MinSamples(params.quantile, params.confidence)),
      change_run_(ChangeRunLength(params.quantile, params.confidence)) {
  sorted_.reserve(params_.max_history);
}

bool WaitSeries::Add(std::int64_t wait_s) {
  wait_s = std::max<std::int64_t>(wait_s, 0);
  const auto bound = Bound();
  if (bound && wait_s > *bound) {
    ++miss_run_;
  } else if (bound) {
    miss_run_ = 0;
  }
  PushBack(wait_s);
  while (sorted_.size() > std::max<std::size_t>(params_.max_history, 1)) PopFront();
  if (!params_.trim_on_change || miss_run_ < change_run_) return false;
  // The run started the new regime. Keeping only the run would leave too
  // few values for any bound at the stated confidence; keeping the newest
  // min_samples_ keeps one whose largest values are the run's.
  const std::size_t keep = std::max(miss_run_, min_samples_);
  const bool trimmed = sorted_.size() > keep;
  while (sorted_.size() > keep) PopFront();
  miss_run_ = 0;
  return trimmed;
}

void WaitSeries::PushBack(std::int64_t wait_s) {
  in_order_.push_back(wait_s);
  sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), wait_s), wait_s);
}

void WaitSeries::PopFront() {
  const std::int64_t oldest = in_order_.front();
  in_order_.pop_front();
  sorted_.erase(std::lower_bound(sorted_.begin(), sorted_.end(), oldest));
}

std::optional<std::int64_t> WaitSeries::Bound(std::optional<double> quantile) const {
  const auto rank =
      BoundRank(sorted_.size(), quantile.value_or(params_.quantile), params_.confidence);
  if (!rank) return std::nullopt;
  return RankValue(sorted_, *rank);
}

std::optional<std::int64_t> WaitSeries::Median() const { return EmpiricalQuantile(0.5); }

std::optional<std::int64_t> WaitSeries::EmpiricalQuantile(double p) const {
  if (sorted_.empty()) return std::nullopt;
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted_.size())));
  return RankValue(sorted_, rank);
}

std::optional<std::int64_t> WaitSeries::Max() const {
  if (sorted_.empty()) return std::nullopt;
  return sorted_.back();
}

std::vector<std::int64_t> WaitSeries::Newest(std::size_t limit) const {
  std::vector<std::int64_t> out;
  for (auto it = in_order_.rbegin(); it != in_order_.rend() && out.size() < limit; ++it) {
    out.push_back(*it);
  }
  return out;
}

}  // namespace bplace
