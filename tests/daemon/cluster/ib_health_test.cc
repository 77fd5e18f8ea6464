#include "daemon/cluster/ib_health.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const auto kWhen = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

lsf::LoadIndexValue Row(std::string host, std::string status, std::optional<double> value) {
  return lsf::LoadIndexValue{std::move(host), std::move(status), value};
}

TEST(IbHealthFromLsloadTest, ReadsOneAsHealthyAndZeroAsUnhealthy) {
  const IbHealthState state =
      IbHealthFromLsload({Row("node01", "ok", 1.0), Row("node02", "busy", 0.0)}, kWhen);
  EXPECT_EQ(state.source, "lsload");
  EXPECT_EQ(state.as_of, kWhen);
  ASSERT_NE(state.Find("node01"), nullptr);
  EXPECT_EQ(state.Find("node01")->health, IbHealth::kHealthy);
  EXPECT_THAT(state.Find("node01")->reasons, IsEmpty());
  ASSERT_NE(state.Find("node02"), nullptr);
  EXPECT_EQ(state.Find("node02")->health, IbHealth::kUnhealthy);
  EXPECT_THAT(state.Find("node02")->reasons, ElementsAre(HasSubstr("ib_ok is 0")));
  EXPECT_EQ(state.Find("node03"), nullptr);
}

TEST(IbHealthFromLsloadTest, MissingValueIsUnknownAndSaysWhy) {
  const IbHealthState state = IbHealthFromLsload(
      {Row("node01", "unavail", std::nullopt), Row("node02", "ok", std::nullopt)}, kWhen);
  EXPECT_EQ(state.Find("node01")->health, IbHealth::kUnknown);
  EXPECT_THAT(state.Find("node01")->reasons,
              ElementsAre(HasSubstr("LIM on the host is unavailable")));
  EXPECT_EQ(state.Find("node02")->health, IbHealth::kUnknown);
  EXPECT_THAT(state.Find("node02")->reasons, ElementsAre(HasSubstr("elim.ib")));
}

TEST(IbHealthFromLsloadTest, OtherValuesAreUnknown) {
  const IbHealthState state = IbHealthFromLsload({Row("node01", "ok", 0.5)}, kWhen);
  EXPECT_EQ(state.Find("node01")->health, IbHealth::kUnknown);
  EXPECT_THAT(state.Find("node01")->reasons, ElementsAre(HasSubstr("unexpected value 0.5")));
}

TEST(IbHealthFromProbeTest, HealthyReportWithExitZeroIsHealthy) {
  const HostIbHealth health =
      IbHealthFromProbe(R"({"verdict":"healthy","reasons":[]})", 0, std::nullopt, kWhen);
  EXPECT_EQ(health.health, IbHealth::kHealthy);
  EXPECT_EQ(health.as_of, kWhen);
}

TEST(IbHealthFromProbeTest, UnhealthyReportKeepsTheProbesReasons) {
  const HostIbHealth health = IbHealthFromProbe(
      R"({"verdict":"unhealthy","reasons":["mlx5_0 port 1: state DOWN"]})", 1, std::nullopt, kWhen);
  EXPECT_EQ(health.health, IbHealth::kUnhealthy);
  EXPECT_THAT(health.reasons, ElementsAre("mlx5_0 port 1: state DOWN"));
}

TEST(IbHealthFromProbeTest, ErrorVerdictIsUnhealthy) {
  const HostIbHealth health = IbHealthFromProbe(
      R"({"verdict":"error","reasons":["probe timed out after 10 s"]})", 2, std::nullopt, kWhen);
  EXPECT_EQ(health.health, IbHealth::kUnhealthy);
  EXPECT_THAT(health.reasons,
              ElementsAre(HasSubstr("could not finish"), "probe timed out after 10 s"));
}

TEST(IbHealthFromProbeTest, HealthyVerdictWithFailingExitIsUnhealthy) {
  const HostIbHealth health =
      IbHealthFromProbe(R"({"verdict":"healthy","reasons":[]})", 2, std::nullopt, kWhen);
  EXPECT_EQ(health.health, IbHealth::kUnhealthy);
  EXPECT_THAT(health.reasons, ElementsAre(HasSubstr("exited with status 2")));
}

TEST(IbHealthFromProbeTest, UnreadableReportOrFailedRunIsUnhealthy) {
  EXPECT_THAT(IbHealthFromProbe("Segmentation fault", 139, std::nullopt, kWhen).reasons,
              ElementsAre(HasSubstr("without a readable JSON report")));
  EXPECT_THAT(IbHealthFromProbe("[1,2]", 0, std::nullopt, kWhen).reasons,
              ElementsAre(HasSubstr("without a readable JSON report")));
  const HostIbHealth failed = IbHealthFromProbe("", -1, "still running after 15 s; killed", kWhen);
  EXPECT_EQ(failed.health, IbHealth::kUnhealthy);
  EXPECT_THAT(failed.reasons, ElementsAre("rdma_probe: still running after 15 s; killed"));
}

}  // namespace
}  // namespace bplace
