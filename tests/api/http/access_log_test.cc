#include "api/http/access_log.h"

#include <chrono>

#include <gtest/gtest.h>

namespace bplace::api {
namespace {

using namespace std::chrono_literals;
using TimePoint = AccessLogSampler::TimePoint;

const TimePoint kStart = TimePoint() + 1000s;

TEST(AccessLogSamplerTest, LogsUpToTheBudgetEachSecondThenCountsTheRest) {
  AccessLogSampler sampler(3);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(sampler.AdmitLogLine(kStart + i * 10ms).log) << i;
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(sampler.AdmitLogLine(kStart + 500ms).log) << i;
  // The next second's first line reports the 5 skipped, once.
  const auto next = sampler.AdmitLogLine(kStart + 1s);
  EXPECT_TRUE(next.log);
  EXPECT_EQ(next.skipped, 5u);
  const auto after = sampler.AdmitLogLine(kStart + 1s + 1ms);
  EXPECT_TRUE(after.log);
  EXPECT_EQ(after.skipped, 0u);
}

TEST(AccessLogSamplerTest, WindowsStartAtTheFirstLineAfterAQuietSpell) {
  AccessLogSampler sampler(1);
  EXPECT_TRUE(sampler.AdmitLogLine(kStart).log);
  EXPECT_FALSE(sampler.AdmitLogLine(kStart + 999ms).log);
  // A minute of silence, then the skipped one is still reported.
  const auto later = sampler.AdmitLogLine(kStart + 60s);
  EXPECT_TRUE(later.log);
  EXPECT_EQ(later.skipped, 1u);
  EXPECT_FALSE(sampler.AdmitLogLine(kStart + 60s + 999ms).log);
  EXPECT_TRUE(sampler.AdmitLogLine(kStart + 61s).log);
}

TEST(AccessLogSamplerTest, TimeGoingBackCountsInTheCurrentWindow) {
  AccessLogSampler sampler(1);
  EXPECT_TRUE(sampler.AdmitLogLine(kStart + 5s).log);
  EXPECT_FALSE(sampler.AdmitLogLine(kStart + 4s).log);
}

TEST(AccessLogSamplerTest, ZeroLogsNothing) {
  AccessLogSampler sampler(0);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(sampler.AdmitLogLine(kStart + i * 2s).log);
}

}  // namespace
}  // namespace bplace::api
