#include "common/metrics.h"

#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsExpositionTest, CounterHasHelpTypeAndOneLinePerSeries) {
  Registry registry;
  auto& runs = registry.AddCounter("bplace_runs_total", "Runs.", {"tier", "outcome"});
  runs.WithLabels({"load", "success"}).Inc(3);
  runs.WithLabels({"load", "failure"});
  EXPECT_EQ(registry.Render(),
            "# HELP bplace_runs_total Runs.\n"
            "# TYPE bplace_runs_total counter\n"
            "bplace_runs_total{tier=\"load\",outcome=\"success\"} 3\n"
            "bplace_runs_total{tier=\"load\",outcome=\"failure\"} 0\n");
}

TEST(MetricsExpositionTest, SeriesWithoutLabelsHaveNoBraces) {
  Registry registry;
  registry.AddGauge("bplace_up", "Up.", {}).WithLabels({}).Set(1);
  EXPECT_EQ(registry.Render(), "# HELP bplace_up Up.\n# TYPE bplace_up gauge\nbplace_up 1\n");
}

TEST(MetricsExpositionTest, EscapesLabelValuesAndHelp) {
  Registry registry;
  auto& family = registry.AddGauge("bplace_x", "Help with \\ and\nnewline.", {"queue"});
  family.WithLabels({"a\"b\\c\nd"}).Set(2);
  const std::string text = registry.Render();
  EXPECT_THAT(text, HasSubstr("# HELP bplace_x Help with \\\\ and\\nnewline.\n"));
  EXPECT_THAT(text, HasSubstr("bplace_x{queue=\"a\\\"b\\\\c\\nd\"} 2\n"));
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
}

TEST(MetricsExpositionTest, HistogramBucketsAreCumulativeUpToInfWithSumAndCount) {
  Registry registry;
  auto& family = registry.AddHistogram("bplace_d_seconds", "D.", {"route"}, {0.5, 1, 10});
  Histogram& h = family.WithLabels({"/v1/queues"});
  h.Observe(0.25);                                      // first bucket
  h.Observe(0.5);                                       // le is inclusive: first bucket
  h.Observe(0.75);                                      // second
  h.Observe(100);                                       // only +Inf
  h.Observe(std::numeric_limits<double>::quiet_NaN());  // ignored
  EXPECT_EQ(registry.Render(),
            "# HELP bplace_d_seconds D.\n"
            "# TYPE bplace_d_seconds histogram\n"
            "bplace_d_seconds_bucket{route=\"/v1/queues\",le=\"0.5\"} 2\n"
            "bplace_d_seconds_bucket{route=\"/v1/queues\",le=\"1\"} 3\n"
            "bplace_d_seconds_bucket{route=\"/v1/queues\",le=\"10\"} 3\n"
            "bplace_d_seconds_bucket{route=\"/v1/queues\",le=\"+Inf\"} 4\n"
            "bplace_d_seconds_sum{route=\"/v1/queues\"} 101.5\n"
            "bplace_d_seconds_count{route=\"/v1/queues\"} 4\n");
}

TEST(MetricsExpositionTest, FamiliesAreSortedByNameSeriesInCreationOrder) {
  Registry registry;
  auto& z = registry.AddCounter("bplace_z_total", "Z.", {"k"});
  registry.AddGauge("bplace_a", "A.", {}).WithLabels({});
  z.WithLabels({"second"});
  z.WithLabels({"first"});
  z.WithLabels({"second"}).Inc();  // the same series again
  registry.AddCollector([] {
    return std::vector<CollectedFamily>{
        {"bplace_m", "M.", MetricType::kGauge, {"queue"}, {{{"normal"}, 7}, {{"short"}, 0.5}}}};
  });
  EXPECT_EQ(registry.Render(),
            "# HELP bplace_a A.\n# TYPE bplace_a gauge\nbplace_a 0\n"
            "# HELP bplace_m M.\n# TYPE bplace_m gauge\n"
            "bplace_m{queue=\"normal\"} 7\nbplace_m{queue=\"short\"} 0.5\n"
            "# HELP bplace_z_total Z.\n# TYPE bplace_z_total counter\n"
            "bplace_z_total{k=\"second\"} 1\nbplace_z_total{k=\"first\"} 0\n");
}

TEST(MetricsExpositionTest, CollectorsRunAtEveryRender) {
  Registry registry;
  int value = 1;
  registry.AddCollector([&value] {
    return std::vector<CollectedFamily>{
        {"bplace_c_total", "C.", MetricType::kCounter, {}, {{{}, double(value)}}}};
  });
  EXPECT_THAT(registry.Render(), HasSubstr("# TYPE bplace_c_total counter\nbplace_c_total 1\n"));
  value = 5;
  EXPECT_THAT(registry.Render(), HasSubstr("bplace_c_total 5\n"));
}

TEST(MetricsExpositionTest, HideUnusedLeavesOutZeroSeriesOnly) {
  Registry registry;
  auto& codes = registry.AddCounter("bplace_r_total", "R.", {"code"}, {.hide_unused = true});
  codes.WithLabels({"200"}).Inc();
  codes.WithLabels({"404"});
  auto& h = registry.AddHistogram("bplace_h_seconds", "H.", {"r"}, {1}, {.hide_unused = true});
  h.WithLabels({"never"});
  const std::string text = registry.Render();
  EXPECT_THAT(text, HasSubstr("bplace_r_total{code=\"200\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("404")));
  EXPECT_THAT(text, Not(HasSubstr("never")));
  EXPECT_THAT(text, HasSubstr("# TYPE bplace_h_seconds histogram\n"));
}

TEST(MetricsExpositionTest, FormatsSpecialAndShortestValues) {
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatValue(0.005), "0.005");
  EXPECT_EQ(FormatValue(3), "3");
  EXPECT_EQ(FormatValue(-2.5), "-2.5");
}

TEST(MetricsRegistryTest, RefusesBadNamesLabelsAndBuckets) {
  Registry registry;
  EXPECT_THROW(registry.AddCounter("9lives", "x", {}), std::invalid_argument);
  EXPECT_THROW(registry.AddCounter("bplace-x", "x", {}), std::invalid_argument);
  EXPECT_THROW(registry.AddCounter("bplace_x", "x", {"__reserved"}), std::invalid_argument);
  EXPECT_THROW(registry.AddCounter("bplace_x", "x", {"a", "a"}), std::invalid_argument);
  EXPECT_THROW(registry.AddHistogram("bplace_h", "x", {"le"}, {1}), std::invalid_argument);
  EXPECT_THROW(registry.AddHistogram("bplace_h", "x", {}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(registry.AddHistogram("bplace_h", "x", {}, {2, 1}), std::invalid_argument);
  registry.AddGauge("bplace_once", "x", {"a"});
  EXPECT_THROW(registry.AddCounter("bplace_once", "x", {}), std::invalid_argument);
  auto& family = registry.AddGauge("bplace_two", "x", {"a", "b"});
  EXPECT_THROW(family.WithLabels({"only one"}), std::invalid_argument);
}

TEST(MetricsRegistryTest, ACollectedNameClashIsAnError) {
  Registry registry;
  registry.AddGauge("bplace_same", "x", {});
  registry.AddCollector([] {
    return std::vector<CollectedFamily>{{"bplace_same", "y", MetricType::kGauge, {}, {}}};
  });
  EXPECT_THROW(registry.Render(), std::logic_error);
}

TEST(MetricsRegistryTest, ACollectedSampleWithTheWrongLabelCountIsAnError) {
  Registry registry;
  registry.AddCollector([] {
    return std::vector<CollectedFamily>{
        {"bplace_q", "y", MetricType::kGauge, {"queue"}, {{{"a", "b"}, 1}}}};
  });
  EXPECT_THROW(registry.Render(), std::logic_error);
}

TEST(MetricsConcurrencyTest, ConcurrentUpdatesAreAllCounted) {
  Registry registry;
  Counter& counter = registry.AddCounter("bplace_n_total", "N.", {}).WithLabels({});
  Histogram& histogram = registry.AddHistogram("bplace_v", "V.", {}, {1}).WithLabels({});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        counter.Inc();
        histogram.Observe(0.5);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counter.Value(), 40000u);
  EXPECT_EQ(histogram.CumulativeCounts(), (std::vector<std::uint64_t>{40000, 40000}));
  EXPECT_DOUBLE_EQ(histogram.Sum(), 20000);
}

}  // namespace
}  // namespace bplace::metrics
