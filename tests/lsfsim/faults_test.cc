// Fault injection: LSF down (hang / fail), slow, truncated and garbage output,
// and chaos (a misbehaviour per invocation chosen by a seed).

#include <fstream>
#include <iterator>
#include <set>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/chaos.h"
#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

using std::chrono::milliseconds;

class FaultsTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    Init(kTestCluster);
  }

  void Fault(const std::vector<std::string>& args) {
    std::vector<std::string> full = {"fault"};
    full.insert(full.end(), args.begin(), args.end());
    ProcessResult r = Sim(full);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

TEST_F(FaultsTest, DownHangNeverReturnsAndOnlyHitsTheChosenCommand) {
  Fault({"--command", "bqueues", "--down", "hang"});
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = Lsf("bqueues", {"-w"}, "", milliseconds(400));
  EXPECT_TRUE(r.timed_out);
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(400));
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "LSF is down. Please wait...\n");
  EXPECT_EQ(Lsf("bhosts", {}).exit_code, 0);
  // The hung call was counted.
  EXPECT_EQ(nlohmann::json::parse(Sim({"counts"}).out)["bqueues"], 1);
}

TEST_F(FaultsTest, DownFailExitsWithLsfMessages) {
  Fault({"--down", "fail"});
  ProcessResult r = Lsf("bsub", {"-q", "short", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "LSF is down. Please wait...\nConnection refused by server. Job not submitted.\n");
  r = Lsf("bjobs", {"-w"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "LSF is down. Please wait...\nConnection refused by server\n");
  r = Lsf("lsload", {"-w"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "lsload: LIM is down; try later\n");
  // Nothing was submitted; clearing restores service.
  Fault({"--clear"});
  r = Lsf("bsub", {"-q", "short", "true"});
  EXPECT_EQ(r.out, "Job <1> is submitted to queue <short>.\n");
}

TEST_F(FaultsTest, DownOffClearsOnlyDown) {
  Fault({"--command", "bhosts", "--down", "fail", "--truncate"});
  Fault({"--command", "bhosts", "--down", "off"});
  ProcessResult r = Lsf("bhosts", {});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.back(), '\n');
}

TEST_F(FaultsTest, TruncateCutsOutputInsideALine) {
  std::string full = Lsf("bqueues", {"-l"}).out;
  Fault({"--command", "bqueues", "--truncate"});
  ProcessResult r = Lsf("bqueues", {"-l"});
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_FALSE(r.out.empty());
  EXPECT_LT(r.out.size(), full.size());
  EXPECT_GE(r.out.size(), full.size() / 2 - 1);
  EXPECT_EQ(full.compare(0, r.out.size(), r.out), 0);
  EXPECT_NE(r.out.back(), '\n');
}

TEST_F(FaultsTest, GarbageReplacesOutput) {
  Fault({"--command", "bhosts", "--garbage"});
  ProcessResult r = Lsf("bhosts", {"-w"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.size(), 512u);
  EXPECT_EQ(r.out.find("HOST_NAME"), std::string::npos);
}

TEST_F(FaultsTest, SlowDelaysTheAnswer) {
  Fault({"--command", "lsid", "--slow-ms", "300"});
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = Lsf("lsid", {});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(300));
  EXPECT_NE(r.out.find("My cluster name is testc\n"), std::string::npos);
}

// `fault --chaos SEED`: each bjobs misbehaves as ChaosPick(SEED, n) says
// for its invocation n, so the test knows what to expect of each.
TEST_F(FaultsTest, ChaosMisanswersEachInvocationAsItsSeedSays) {
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "sleep", "60"}).exit_code, 0);  // job 1, PEND
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "sleep", "60"}).exit_code, 0);  // job 2, PEND
  // A seed whose first 30 invocations never hang (each hang costs a timeout).
  long long seed = 0;
  auto hangs = [](long long s) {
    for (int n = 1; n <= 30; ++n) {
      if (ChaosPick(s, n) == Misbehaviour::kHang) return true;
    }
    return false;
  };
  while (hangs(seed)) ++seed;
  Fault({"--command", "bjobs", "--chaos", std::to_string(seed)});
  std::set<Misbehaviour> seen;
  for (int n = 1; n <= 30; ++n) {
    const Misbehaviour pick = ChaosPick(seed, n);
    seen.insert(pick);
    const ProcessResult r = Lsf("bjobs", {"-a", "-o", "jobid stat", "-json", "1"});
    const nlohmann::json answer = nlohmann::json::parse(r.out, nullptr, false);
    const std::string records = answer.is_object() ? answer["RECORDS"].dump() : "";
    switch (pick) {
      case Misbehaviour::kNone:
      case Misbehaviour::kSlow:
        EXPECT_EQ(r.exit_code, 0) << n;
        EXPECT_NE(records.find("\"JOBID\":\"1\",\"STAT\":\"PEND\""), std::string::npos) << n;
        break;
      case Misbehaviour::kDropIds:
        EXPECT_EQ(r.exit_code, 0) << n;
        EXPECT_EQ(records, "[]") << n;
        break;
      case Misbehaviour::kOtherIds:
        EXPECT_EQ(r.exit_code, 0) << n;
        EXPECT_EQ(records, R"([{"JOBID":"2","STAT":"PEND"}])") << n;
        break;
      case Misbehaviour::kNotFound:
        EXPECT_EQ(r.exit_code, 255) << n;
        EXPECT_EQ(records, R"([{"ERROR":"Job <1> is not found","JOBID":"1"}])") << n;
        break;
      case Misbehaviour::kGarbage:
      case Misbehaviour::kTruncate:
        EXPECT_FALSE(answer.is_object()) << n;
        break;
      case Misbehaviour::kHang:
        ADD_FAILURE() << "no hang was chosen";
    }
  }
  EXPECT_GE(seen.size(), 5u) << "30 invocations show most kinds";
  std::ifstream log(dir_ + "/chaos.log");
  std::string lines((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(lines.find(std::string("bjobs 1 ") + MisbehaviourName(ChaosPick(seed, 1)) + "\n"),
            std::string::npos)
      << lines;
  Fault({"--command", "bjobs", "--no-chaos"});
  EXPECT_EQ(Lsf("bjobs", {"-a", "-o", "jobid stat", "-json", "1"}).exit_code, 0);
}

TEST_F(FaultsTest, RejectsBadFaultArguments) {
  EXPECT_EQ(Sim({"fault", "--down", "sideways"}).exit_code, 2);
  EXPECT_EQ(Sim({"fault", "--command", "bfoo", "--truncate"}).exit_code, 2);
  EXPECT_EQ(Sim({"fault"}).exit_code, 2);
  EXPECT_EQ(Sim({"fault", "--chaos", "-1"}).exit_code, 2);
}

}  // namespace
}  // namespace bplace::lsfsim::testing
