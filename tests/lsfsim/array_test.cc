// Job arrays: the -J index list (pure) and arrays through bsub, bjobs,
// bkill and schedule (real binary).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/job_array.h"
#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

std::vector<int> Indices(const std::string& name, long long max = 1000) {
  auto spec = ParseArrayJobName(name, max);
  EXPECT_TRUE(spec.has_value()) << name;
  if (!spec || !*spec) return {};
  return (*spec)->indices;
}

TEST(JobArrayTest, ExpandsRangesStepsAndLists) {
  EXPECT_EQ(Indices("a[1-4]"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(Indices("a[1-10:3]"), (std::vector<int>{1, 4, 7, 10}));
  EXPECT_EQ(Indices("a[5,1,3-4]"), (std::vector<int>{1, 3, 4, 5}));
  auto spec = ParseArrayJobName("big job[1-8]%2", 1000);
  ASSERT_TRUE(spec && *spec);
  EXPECT_EQ((*spec)->name, "big job");
  EXPECT_EQ((*spec)->slot_limit, 2);
  EXPECT_FALSE(*ParseArrayJobName("plain", 1000));
}

TEST(JobArrayTest, RefusesWhatMbatchdRefuses) {
  auto error = [](const std::string& name, long long max = 1000) {
    auto spec = ParseArrayJobName(name, max);
    return spec ? std::string("accepted") : std::string(ArrayErrorMessage(spec.error()));
  };
  EXPECT_EQ(error("a[1-"), "Bad job name");
  EXPECT_EQ(error("a[x]"), "Bad job name");
  EXPECT_EQ(error("a[1-3]%0"), "Bad job name");
  EXPECT_EQ(error("a[1-3]x"), "Bad job name");
  EXPECT_EQ(error("a[0-3]"), "Job array index error");
  EXPECT_EQ(error("a[5-1]"), "Job array index error");
  EXPECT_EQ(error("a[1-5:0]"), "Job array index error");
  EXPECT_EQ(error("a[1-1000]"), "accepted");
  EXPECT_EQ(error("a[1-1001]"), "Job array index too large");
  EXPECT_EQ(error("a[1-3,10-12]", 5), "Job array index too large");
}

class ArrayTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    Init(kTestCluster);
  }

  void Submit(const std::vector<std::string>& args) {
    ProcessResult r = Lsf("bsub", args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  void Control(const std::vector<std::string>& args) {
    ProcessResult r = Sim(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  nlohmann::json Records(const std::vector<std::string>& ids,
                         const std::string& fields = "jobid jobindex stat job_name") {
    std::vector<std::string> args = {"-a", "-o", fields, "-json"};
    args.insert(args.end(), ids.begin(), ids.end());
    return nlohmann::json::parse(Lsf("bjobs", args).out)["RECORDS"];
  }

  int CountStat(const std::string& stat) {
    int n = 0;
    for (const auto& record : Records({"1"})) n += record["STAT"] == stat ? 1 : 0;
    return n;
  }
};

TEST_F(ArrayTest, OneJobIdWithARecordPerElement) {
  ProcessResult r = Lsf("bsub", {"-q", "normal", "-J", "arr[1-3]", "sleep", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is submitted to queue <normal>.\n");
  nlohmann::json records = Records({"1"});
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1],
            (nlohmann::json{
                {"JOBID", "1"}, {"JOBINDEX", "2"}, {"STAT", "PEND"}, {"JOB_NAME", "arr[2]"}}));
  // The next job gets the next id: the array used one.
  EXPECT_EQ(Lsf("bsub", {"-q", "normal", "true"}).out, "Job <2> is submitted to queue <normal>.\n");
  EXPECT_NE(Lsf("bqueues", {"normal"}).out.find("    8     7     1     0\n"), std::string::npos)
      << Lsf("bqueues", {"normal"}).out;  // 4 table jobs + background pend 3, run 1
}

TEST_F(ArrayTest, IdsSelectOneElementOrTheWholeArray) {
  Submit({"-q", "normal", "-J", "arr[1-3]", "true"});
  nlohmann::json one = Records({"1[2]"}, "jobid jobindex");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["JOBINDEX"], "2");
  EXPECT_EQ(Records({"1[1,3]"}).size(), 2u);
  nlohmann::json missing = Records({"1[9]"});
  EXPECT_EQ(missing[0], (nlohmann::json{{"JOBID", "1"}, {"ERROR", "Job <1[9]> is not found"}}));
  EXPECT_EQ(Lsf("bjobs", {"1[9]"}).err, "Job <1[9]> is not found\n");
}

TEST_F(ArrayTest, TablePrintsTheIndexInTheJobName) {
  Submit({"-q", "normal", "-J", "arr[1-2]", "true"});
  std::string out = Lsf("bjobs", {"-w"}).out;
  EXPECT_NE(out.find("\n1       " + user_), std::string::npos) << out;
  EXPECT_NE(out.find("arr[1]     Nov 30 11:40\n"), std::string::npos) << out;
  EXPECT_NE(out.find("arr[2]     Nov 30 11:40\n"), std::string::npos) << out;
}

TEST_F(ArrayTest, ScheduleDispatchesElementsWithinTheSlotLimit) {
  Submit({"-q", "normal", "-J", "arr[1-5]%2", "true"});
  EXPECT_EQ(Sim({"schedule"}).out, "dispatched 2 job(s), finished 0 job(s)\n");
  EXPECT_EQ(CountStat("RUN"), 2);
  Control({"finish", "1[1]"});
  EXPECT_EQ(Sim({"schedule"}).out, "dispatched 1 job(s), finished 0 job(s)\n");
  nlohmann::json records = Records({"1"}, "jobindex stat");
  EXPECT_EQ(records[0]["STAT"], "DONE");
  EXPECT_EQ(records[1]["STAT"], "RUN");
  EXPECT_EQ(records[2]["STAT"], "RUN");
  EXPECT_EQ(records[3]["STAT"], "PEND");
}

TEST_F(ArrayTest, BkillTakesAnElementOrTheArray) {
  Submit({"-q", "normal", "-J", "arr[1-3]", "true"});
  ProcessResult r = Lsf("bkill", {"1[2]"});
  EXPECT_EQ(r.out, "Job <1[2]> is being terminated\n");
  EXPECT_EQ(CountStat("EXIT"), 1);
  r = Lsf("bkill", {"1"});
  EXPECT_EQ(r.out, "Job <1> is being terminated\n");
  EXPECT_EQ(CountStat("EXIT"), 3);
  r = Lsf("bkill", {"1"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Job <1>: Job has already finished\n");
  EXPECT_EQ(Lsf("bkill", {"1[7]"}).err, "Job <1[7]>: No matching job found\n");
}

TEST_F(ArrayTest, RefusesAnArrayLargerThanMaxJobArraySize) {
  std::string toml = kTestCluster;
  toml.insert(toml.find("[[host]]"), "max_job_array_size = 5\n\n");
  Init(toml);
  ProcessResult r = Lsf("bsub", {"-q", "normal", "-J", "arr[1-6]", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Job array index too large. Job not submitted.\n");
  r = Lsf("bsub", {"-q", "normal", "-J", "arr[0-2]", "true"});
  EXPECT_EQ(r.err, "Job array index error. Job not submitted.\n");
  r = Lsf("bsub", {"-q", "normal", "-J", "arr[1-5]", "true"});
  EXPECT_EQ(r.out, "Job <3> is submitted to queue <normal>.\n");
}

}  // namespace
}  // namespace bplace::lsfsim::testing
