// Error counters read from a fake sysfs tree, judged against the baseline in
// the state file, with a manual clock.

#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rdma_probe/counter_judge.h"
#include "rdma_probe/counter_state.h"
#include "rdma_probe/probe.h"
#include "tests/fakes/fake_verbs_api.h"
#include "tests/rdma_probe/test_support.h"

namespace bplace::rdma {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::FakeVerbsApi;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class CountersTest : public ::testing::Test {
 protected:
  CountersTest() {
    settings_.host = "node1";
    settings_.ib.sysfs_root = tree_.sysfs_root();
    settings_.ib.state_file = tree_.state_file();
    settings_.boot_id_path = tree_.boot_id_path();
    settings_.ib.loopback = false;
    api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
    tree_.ZeroCounters("mlx5_0", 1);
  }

  Report Run() { return RunProbe(api_, clock_, settings_); }

  const CounterReading& Reading(const Report& report, const std::string& name) {
    for (const CounterReading& c : report.devices.at(0).ports.at(0).counters) {
      if (c.name == name) return c;
    }
    ADD_FAILURE() << "no counter " << name;
    static const CounterReading none;
    return none;
  }

  testing::SysfsTree tree_;
  testing::ManualClock clock_;
  FakeVerbsApi api_;
  ProbeSettings settings_;
};

TEST_F(CountersTest, FirstRunHasNoBaselineAndSavesOne) {
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy);
  EXPECT_THAT(report.notes, Contains(HasSubstr("no counter baseline")));
  Result<CounterState> saved = LoadCounterState(tree_.state_file());
  ASSERT_TRUE(saved) << saved.error().message;
  EXPECT_EQ(saved->boot_id, "11111111-2222-3333-4444-555555555555");
  ASSERT_TRUE(saved->ports.count("mlx5_0:1"));
  EXPECT_EQ(saved->ports["mlx5_0:1"].values.at("symbol_error"), 0u);
}

TEST_F(CountersTest, RisingLinkDownedIsUnhealthy) {
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  clock_.Advance(std::chrono::minutes(1));
  tree_.SetCounter("mlx5_0", 1, "link_downed", 1);
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons, ElementsAre("mlx5_0 port 1: link_downed rose by 1 (0 -> 1)"));
  EXPECT_EQ(Reading(report, "link_downed").delta, 1u);
}

TEST_F(CountersTest, UnchangedCountersStayHealthy) {
  tree_.SetCounter("mlx5_0", 1, "link_downed", 3);  // old, not rising
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  clock_.Advance(std::chrono::minutes(5));
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy) << ::testing::PrintToString(report.reasons);
  EXPECT_EQ(Reading(report, "link_downed").delta, 0u);
}

TEST_F(CountersTest, SymbolErrorRateAboveThresholdIsUnhealthy) {
  settings_.ib.symbol_error_per_hour = 10;
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 100);
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  clock_.Advance(std::chrono::hours(2));
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 130);  // 15 per hour
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons,
              ElementsAre("mlx5_0 port 1: symbol_error rising at 15.0/h (threshold 10.0/h; "
                          "100 -> 130)"));
  EXPECT_DOUBLE_EQ(*Reading(report, "symbol_error").per_hour, 15.0);
}

TEST_F(CountersTest, SymbolErrorRateBelowThresholdIsHealthy) {
  settings_.ib.symbol_error_per_hour = 10;
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 100);
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  clock_.Advance(std::chrono::hours(2));
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 110);  // 5 per hour
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy) << ::testing::PrintToString(report.reasons);
  EXPECT_DOUBLE_EQ(*Reading(report, "symbol_error").per_hour, 5.0);
}

TEST_F(CountersTest, FewErrorsBetweenCloseProbesAreNotReadAsAHighRate) {
  // One error a minute after the baseline is not "60 per hour": rates are
  // judged over at least an hour.
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  clock_.Advance(std::chrono::minutes(1));
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 1);
  EXPECT_EQ(Run().verdict, Verdict::kHealthy);
  // ... but a burst above the hourly threshold within minutes is.
  clock_.Advance(std::chrono::minutes(1));
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 50);
  EXPECT_EQ(Run().verdict, Verdict::kUnhealthy);
}

TEST_F(CountersTest, PortRcvErrorsAndLinkErrorRecoveryUseTheirThresholds) {
  settings_.ib.port_rcv_errors_per_hour = 100;
  settings_.ib.link_error_recovery_per_hour = 1;
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  clock_.Advance(std::chrono::hours(1));
  tree_.SetCounter("mlx5_0", 1, "port_rcv_errors", 50);
  tree_.SetCounter("mlx5_0", 1, "link_error_recovery", 2);
  const Report report = Run();
  EXPECT_THAT(report.reasons, ElementsAre(HasSubstr("link_error_recovery rising at 2.0/h")));
}

TEST_F(CountersTest, SaturatedCounterIsReported) {
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 65535);
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons,
              ElementsAre(HasSubstr("mlx5_0 port 1: symbol_error saturated at 65535")));
  EXPECT_TRUE(Reading(report, "symbol_error").saturated);
}

TEST_F(CountersTest, FourBitCounterSaturatesAtFifteen) {
  tree_.SetCounter("mlx5_0", 1, "local_link_integrity_errors", 15);
  EXPECT_THAT(Run().reasons,
              ElementsAre(HasSubstr("local_link_integrity_errors saturated at 15 (4-bit")));
}

TEST_F(CountersTest, NewBootIdRestartsBaselineInsteadOfFalseVerdict) {
  tree_.SetCounter("mlx5_0", 1, "link_downed", 5);
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  // After a reboot the counters start over, and may already have risen
  // (the link came up once more than before): not a rise to judge.
  tree_.SetBootId("99999999-2222-3333-4444-555555555555");
  tree_.SetCounter("mlx5_0", 1, "link_downed", 7);
  clock_.Advance(std::chrono::minutes(10));
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy) << ::testing::PrintToString(report.reasons);
  EXPECT_THAT(report.devices[0].ports[0].notes, Contains(HasSubstr("new boot id")));
  Result<CounterState> saved = LoadCounterState(tree_.state_file());
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->boot_id, "99999999-2222-3333-4444-555555555555");
  EXPECT_EQ(saved->ports["mlx5_0:1"].values.at("link_downed"), 7u);
  // The next rise is judged against the new baseline.
  clock_.Advance(std::chrono::minutes(1));
  tree_.SetCounter("mlx5_0", 1, "link_downed", 8);
  EXPECT_THAT(Run().reasons, ElementsAre("mlx5_0 port 1: link_downed rose by 1 (7 -> 8)"));
}

TEST_F(CountersTest, CounterGoingDownRestartsBaseline) {
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 500);
  tree_.SetCounter("mlx5_0", 1, "link_downed", 2);
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  clock_.Advance(std::chrono::hours(3));
  tree_.SetCounter("mlx5_0", 1, "symbol_error", 0);  // perfquery -R
  tree_.SetCounter("mlx5_0", 1, "link_downed", 0);
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy) << ::testing::PrintToString(report.reasons);
  EXPECT_THAT(report.devices[0].ports[0].notes, Contains(HasSubstr("counters were reset")));
  clock_.Advance(std::chrono::minutes(1));
  tree_.SetCounter("mlx5_0", 1, "link_downed", 1);
  EXPECT_THAT(Run().reasons, ElementsAre("mlx5_0 port 1: link_downed rose by 1 (0 -> 1)"));
}

TEST_F(CountersTest, BaselineIsKeptWithinTheWindowAndRolledAfter) {
  ASSERT_EQ(Run().verdict, Verdict::kHealthy);
  clock_.Advance(std::chrono::minutes(30));
  tree_.SetCounter("mlx5_0", 1, "link_downed", 1);
  EXPECT_EQ(Run().verdict, Verdict::kUnhealthy);
  clock_.Advance(std::chrono::minutes(29));
  EXPECT_EQ(Run().verdict, Verdict::kUnhealthy);  // still against the old baseline
  clock_.Advance(std::chrono::minutes(2));
  EXPECT_EQ(Run().verdict, Verdict::kUnhealthy);  // window full: judged, then rolled
  clock_.Advance(std::chrono::minutes(1));
  EXPECT_EQ(Run().verdict, Verdict::kHealthy);
}

TEST_F(CountersTest, CorruptStateFileIsANoteNotAFailure) {
  testing::SysfsTree::Write(tree_.state_file(), "{not json");
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy);
  EXPECT_THAT(report.notes, Contains(HasSubstr("not JSON")));
  EXPECT_TRUE(LoadCounterState(tree_.state_file()));  // rewritten
}

TEST_F(CountersTest, MissingStateDirectoryIsANoteAndNothingIsJudged) {
  settings_.ib.state_file = (tree_.root() / "no-such-dir" / "state.json").string();
  tree_.SetCounter("mlx5_0", 1, "link_downed", 4);
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy);
  EXPECT_THAT(report.notes, Contains(HasSubstr("unusable")));
  EXPECT_FALSE(std::filesystem::exists(settings_.ib.state_file));
}

TEST_F(CountersTest, NoStateSkipsTheFile) {
  settings_.use_state = false;
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy);
  EXPECT_FALSE(std::filesystem::exists(tree_.state_file()));
  EXPECT_THAT(report.notes, Contains(HasSubstr("--no-state")));
}

TEST_F(CountersTest, MissingCountersDirectoryIsANote) {
  std::filesystem::remove_all(tree_.root() / "sys" / "mlx5_0" / "ports" / "1" / "counters");
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy);
  EXPECT_THAT(report.devices[0].ports[0].notes, Contains(HasSubstr("counters not read")));
}

TEST(CounterStateTest, SaveIsAtomicAndRoundTrips) {
  testing::SysfsTree tree;
  CounterState state;
  state.boot_id = "abc";
  state.ports["mlx5_0:1"] =
      CounterSample{std::chrono::system_clock::time_point(std::chrono::seconds(1714564800)),
                    {{"symbol_error", 7}, {"link_downed", 1}}};
  ASSERT_TRUE(SaveCounterState(tree.state_file(), state));
  Result<CounterState> loaded = LoadCounterState(tree.state_file());
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->boot_id, "abc");
  EXPECT_EQ(loaded->ports["mlx5_0:1"].values, state.ports["mlx5_0:1"].values);
  EXPECT_EQ(loaded->ports["mlx5_0:1"].at, state.ports["mlx5_0:1"].at);
  // No temp file left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator(tree.root() / "state")) {
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(CounterStateTest, WrongShapeIsAParseError) {
  testing::SysfsTree tree;
  testing::SysfsTree::Write(tree.state_file(), R"({"version": 1, "ports": {"x": 3}})");
  Result<CounterState> loaded = LoadCounterState(tree.state_file());
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, ErrorCode::kParseError);
}

TEST(CounterJudgeTest, ClockGoingBackRestartsBaseline) {
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1714564800));
  CounterSample baseline{now + std::chrono::hours(1), {{"link_downed", 0}}};
  CounterJudgement judged =
      JudgeCounters({{"link_downed", 3}}, now, baseline, false, ProbeOptions{});
  EXPECT_THAT(judged.reasons, IsEmpty());
  EXPECT_THAT(judged.notes, ElementsAre(HasSubstr("clock")));
  EXPECT_EQ(judged.next_baseline.at, now);
}

}  // namespace
}  // namespace bplace::rdma
