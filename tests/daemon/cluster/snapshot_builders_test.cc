#include "daemon/cluster/snapshot_builders.h"

#include <string>

#include <gtest/gtest.h>

#include "tests/fakes/fake_command_runner.h"

namespace bplace {
namespace {

using namespace std::chrono_literals;
using testing::FakeCommandRunner;

constexpr char kBqueuesW[] =
    "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
    "normal           30  Open:Active       -    -    -    -    12     4     8     0\n";

constexpr char kBhostsW[] =
    "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV\n"
    "node001            ok              -     48     12     12      0      0      0\n"
    "node002            ok              -     48      0      0      0      0      0\n";

constexpr char kLsload[] =
    "HOST_NAME               status  ib_ok\n"
    "node001                     ok    1.0\n"
    "node002                     ok    0.0\n";

Result<lsf::CommandResult> Out(std::string text) { return FakeCommandRunner::Output(text); }

TEST(BuildLoadTest, BuildsCountersAndHosts) {
  auto load = BuildLoad(Out(kBqueuesW), Out(kBhostsW), SteadyTime{});
  ASSERT_TRUE(load) << load.error().message;
  EXPECT_EQ((*load)->queues.at("normal").pend, 4);
  ASSERT_NE((*load)->FindHost("node002"), nullptr);
}

// A bug once: output cut mid-line by a dropped connection (exit status 0) was
// published as a complete snapshot, and half the hosts vanished.
TEST(BuildLoadTest, RefusesHostsOutputCutMidLine) {
  const std::string cut = std::string(kBhostsW).substr(0, std::string(kBhostsW).size() - 30);
  auto load = BuildLoad(Out(kBqueuesW), Out(cut), SteadyTime{});
  ASSERT_FALSE(load);
  EXPECT_EQ(load.error().code, ErrorCode::kParseError);
  EXPECT_EQ(load.error().message.rfind("bhosts -w: output cut short", 0), 0u)
      << load.error().message;
}

TEST(BuildLoadTest, RefusesOutputTheRunnerCut) {
  lsf::CommandResult cut = FakeCommandRunner::Output(kBqueuesW);
  cut.output_truncated = true;
  EXPECT_FALSE(BuildLoad(cut, Out(kBhostsW), SteadyTime{}));
}

// A bug once: a cut lsload made a sick host "unknown", and so eligible.
TEST(BuildIbFromLsloadTest, CutOutputKeepsThePreviousVerdicts) {
  const SystemTime t0 = std::chrono::sys_days(std::chrono::year(2026) / 1 / 1);
  const auto first = BuildIbFromLsload(Out(kLsload), nullptr, t0, 45s);
  ASSERT_EQ(first->Find("node002")->health, IbHealth::kUnhealthy);
  const std::string cut = std::string(kLsload).substr(0, std::string(kLsload).size() - 10);
  const auto next = BuildIbFromLsload(Out(cut), first.get(), t0 + 15s, 45s);
  EXPECT_EQ(next->Find("node002")->health, IbHealth::kUnhealthy);
  EXPECT_NE(next->last_error.find("output cut short"), std::string::npos);
}

TEST(BuildTopologyTest, NoGroupsIsAnEmptyListAndLsidFailureAnEmptyIdentity) {
  constexpr char kBqueuesL[] =
      "QUEUE: normal\n"
      "  -- For normal low priority jobs, running only if hosts are lightly loaded.  This is "
      "the default queue.\n\n"
      "PARAMETERS/STATISTICS\n"
      "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV PJOBS\n"
      " 30   20  Open:Active       -    -    -    -     0     0     0     0     0    0     0\n\n"
      "USERS: all  \n"
      "HOSTS:  all \n";
  auto parts =
      BuildTopology(Out(kBqueuesL), FakeCommandRunner::Output("", "No host group found\n", 255),
                    FakeCommandRunner::Output("", "No user group found\n", 255),
                    FakeCommandRunner::Output("", "LIM is down\n", 255),
                    FakeCommandRunner::Output("", "lsclusters: LIM is down\n", 255));
  ASSERT_TRUE(parts) << parts.error().message;
  EXPECT_EQ(parts->topology->queues().size(), 1u);
  EXPECT_TRUE(parts->identity.cluster_name.empty());
  EXPECT_TRUE(parts->topology->lsf_administrators().empty());
  ASSERT_EQ(parts->topology->warnings().size(), 1u);
  EXPECT_NE(parts->topology->warnings().front().find("LSF administrators unknown (lsclusters -l"),
            std::string::npos);
}

TEST(BuildPermissionsTest, NamesTheUserInErrors) {
  auto permissions =
      BuildPermissions("alice", FakeCommandRunner::Output("", "LSF is down.\n", 255), {});
  ASSERT_FALSE(permissions);
  EXPECT_EQ(permissions.error().message.rfind("bqueues -u alice -w: ", 0), 0u);
}

}  // namespace
}  // namespace bplace
