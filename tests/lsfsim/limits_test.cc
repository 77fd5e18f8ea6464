// Limits LSF enforces: what bsub refuses, what schedule leaves pending (and
// why), and the pending-job thresholds with bsub's retries.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/sim_fixture.h"

namespace bplace::lsfsim::testing {
namespace {

constexpr const char* kLimitsCluster = R"toml(
[cluster]
name = "limc"
master = "m"
sub_try_interval_s = 0
#EXTRA

[[host]]
name = "h[1-2]"
max = 8

[[host]]
name = "hu"
max = 8
jl_u = 2

[[user_group]]
name = "ug_me"
members = "#USER"

#USERS

[[queue]]
name = "capped"
priority = 30
default = true
hosts = "h1 h2"
max = 6
jl_u = 4

[[queue]]
name = "perhost"
priority = 20
hosts = "h1 h2"
jl_h = 1

[[queue]]
name = "userhost"
priority = 10
hosts = "hu"
)toml";

class LimitsTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    // Without LSB_NTRIES a refused bsub would retry forever, as LSF's does.
    env_["LSB_NTRIES"] = "1";
    InitWith("", "");
  }

  // Initializes from kLimitsCluster with extra [cluster] keys and [[user]]
  // entries.
  void InitWith(const std::string& cluster_keys, const std::string& users) {
    std::string toml = kLimitsCluster;
    toml.replace(toml.find("#EXTRA"), 6, cluster_keys);
    toml.replace(toml.find("#USER"), 5, user_);
    toml.replace(toml.find("#USERS"), 6, users);
    Init(toml);
  }

  void Submit(const std::vector<std::string>& args) {
    ProcessResult r = Lsf("bsub", args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  void Schedule() { ASSERT_EQ(Sim({"schedule"}).exit_code, 0); }

  nlohmann::json Job(const std::string& id) {
    ProcessResult r = Lsf("bjobs", {"-a", "-o", "stat exec_host pend_reason", "-json", id});
    return nlohmann::json::parse(r.out)["RECORDS"][0];
  }

  void ExpectRefused(const std::vector<std::string>& args, const std::string& err) {
    ProcessResult r = Lsf("bsub", args);
    EXPECT_EQ(r.exit_code, 255);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, err);
  }
};

TEST_F(LimitsTest, BsubRefusesOnlyRequestsLargerThanALimit) {
  ExpectRefused({"-n", "7", "true"}, "Too many processors requested. Job not submitted.\n");
  ExpectRefused({"-n", "5", "true"},
                "Queue does not have enough per-user job slots. Job not submitted.\n");
  ExpectRefused({"-q", "userhost", "-n", "9", "true"},
                "Too many processors requested. Job not submitted.\n");
  // Above the host's JL/U is no refusal: the job pends (forever).
  Submit({"-q", "userhost", "-n", "3", "true"});
  Schedule();
  EXPECT_EQ(Job("4")["PEND_REASON"], "Host's per-user job slot limit reached: 1 host;");
}

TEST_F(LimitsTest, FullQueuePendsUntilSlotsFree) {
  Submit({"-n", "4", "sleep", "9"});
  Submit({"-n", "3", "sleep", "9"});
  Schedule();
  EXPECT_EQ(Job("1")["STAT"], "RUN");
  EXPECT_EQ(Job("2")["STAT"], "PEND");
  EXPECT_EQ(Job("2")["PEND_REASON"], "The queue has not enough job slots for the parallel job");
  ProcessResult q = Lsf("bqueues", {"capped"});
  EXPECT_NE(q.out.find("capped           30  Open:Active       6    4    -    -     7     3     4"),
            std::string::npos)
      << q.out;
  ASSERT_EQ(Sim({"finish", "1"}).exit_code, 0);
  Schedule();
  EXPECT_EQ(Job("2")["STAT"], "RUN");
  EXPECT_NE(Lsf("bqueues", {"capped"}).out.find("     3     0     3     0\n"), std::string::npos);
}

TEST_F(LimitsTest, UserAtJlUPendsWhileTheQueueHasRoom) {
  Submit({"-n", "2", "true"});
  Submit({"-n", "2", "true"});
  Submit({"true"});
  Schedule();
  EXPECT_EQ(Job("2")["STAT"], "RUN");
  EXPECT_EQ(Job("3")["STAT"], "PEND");
  EXPECT_EQ(Job("3")["PEND_REASON"], "User has reached the per-user job slot limit of the queue");
  if (!CanRunAs("alice")) GTEST_SKIP() << "another user's job needs root and alice";
  ASSERT_EQ(LsfAs("alice", "bsub", {"true"}).exit_code, 0);
  Schedule();
  EXPECT_EQ(Job("4")["STAT"], "RUN");  // alice has her own JL/U
  EXPECT_EQ(Job("3")["STAT"], "PEND");
}

TEST_F(LimitsTest, JlHSpreadsAQueueOverHosts) {
  for (int i = 0; i < 3; ++i) Submit({"-q", "perhost", "true"});
  Schedule();
  EXPECT_EQ(Job("1")["EXEC_HOST"], "h1");
  EXPECT_EQ(Job("2")["EXEC_HOST"], "h2");
  EXPECT_EQ(Job("3")["PEND_REASON"], "Queue's per-host job slot limit reached: 2 hosts;");
}

TEST_F(LimitsTest, HostJlUPendsTheUserOnThatHost) {
  for (int i = 0; i < 3; ++i) Submit({"-q", "userhost", "true"});
  Schedule();
  EXPECT_EQ(Job("2")["STAT"], "RUN");
  EXPECT_EQ(Job("3")["PEND_REASON"], "Host's per-user job slot limit reached: 1 host;");
  EXPECT_EQ(Lsf("bhosts", {"-w", "hu"}).out,
            "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"
            "hu                 ok              2      8      2      2      0      0      0\n");
}

TEST_F(LimitsTest, ClusterPendingJobThresholdRefusesAfterRetries) {
  InitWith("max_pend_jobs = 2\n", "");
  Submit({"true"});
  Submit({"true"});
  ExpectRefused({"true"}, "Pending job threshold reached. Job not submitted.\n");
  env_["LSB_NTRIES"] = "3";
  ExpectRefused({"true"},
                "Pending job threshold reached. Retrying in 0 seconds...\n"
                "Pending job threshold reached. Retrying in 0 seconds...\n"
                "Pending job threshold reached. Job not submitted.\n");
  // Dispatching makes room.
  Schedule();
  Submit({"true"});
}

TEST_F(LimitsTest, ArrayElementsCountAgainstPendingThresholds) {
  InitWith("max_pend_jobs = 4\n", "");
  ExpectRefused({"-J", "a[1-5]", "true"}, "Pending job threshold reached. Job not submitted.\n");
  Submit({"-J", "a[1-4]", "true"});
}

TEST_F(LimitsTest, UserPendingSlotThreshold) {
  InitWith("", "[[user]]\nname = \"" + user_ + "\"\nmax_pend_slots = 4\n");
  Submit({"-n", "3", "true"});
  ExpectRefused({"-n", "2", "true"}, "Pending job slots threshold reached. Job not submitted.\n");
  Submit({"-n", "1", "true"});
}

TEST_F(LimitsTest, DefaultUserEntryAppliesToUsersWithoutOne) {
  InitWith("", "[[user]]\nname = \"default\"\nmax_pend_jobs = 1\n");
  Submit({"true"});
  ExpectRefused({"true"}, "Pending job threshold reached. Job not submitted.\n");
}

TEST_F(LimitsTest, UserGroupEntryLimitsItsMembersTogether) {
  InitWith("", "[[user]]\nname = \"ug_me\"\nmax_pend_jobs = 2\n");
  Submit({"true"});
  Submit({"true"});
  ExpectRefused({"true"}, "Pending job threshold reached. Job not submitted.\n");
}

TEST_F(LimitsTest, UserEntryNeedsAName) {
  std::string path = dir_ + ".bad.toml";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(
      "[cluster]\nname = \"c\"\nmaster = \"m\"\n[[host]]\nname = \"h\"\n"
      "[[user]]\nmax_pend_jobs = 1\n",
      f);
  std::fclose(f);
  ProcessResult r = Sim({"init", "--state", dir_, "--cluster", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "lsfsim: " + path + ":6: [[user]]: name is required\n");
}

}  // namespace
}  // namespace bplace::lsfsim::testing
