// #BSUB lines in a `script` and bounded job arrays through the real bplaced
// against the LSF simulator (docs/api.md "`#BSUB` lines in `script`").

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string ScriptBody(const std::string& script) {
  return json{{"host", "node007"}, {"queues", {"short"}}, {"script", script}}.dump();
}

// The records of LSF job `id` in the simulator (one per array element).
json Records(const SimCluster& sim, const std::string& id) {
  const ProcessOutput out =
      sim.Lsf({"bjobs", "-a", "-u", "all", "-o", "jobid jobindex job_name", "-json", id});
  const json answer = json::parse(out.out, nullptr, false);
  return answer.is_object() ? answer.value("RECORDS", json::array()) : json::array();
}

class DirectivesTest : public ::testing::Test {
 protected:
  DirectivesTest() : sim_(DEMO_CLUSTER), daemon_(sim_, DaemonSettings{}) {}
  int Bsubs() const { return sim_.Counts().value("bsub", 0); }
  SimCluster sim_;
  DaemonProcess daemon_;
};

TEST_F(DirectivesTest, EachHoleOfIssue11Is400AndRunsNoBsub) {
  struct Hole {
    std::string script;
    std::string detail;
  };
  const std::vector<Hole> holes = {
      {"#!/bin/sh\n#BSUB -W 10\n#BSUB -q night\necho hi\n",
       "script: line 3: #BSUB -q is set by bplace (use the queues field)"},
      {"#BSUB -m node001\necho hi\n", "script: line 1: #BSUB -m is set by bplace"},
      {"#BSUB -I\necho hi\n", "script: line 1: #BSUB -I makes bsub wait"},
      {"#BSUB -K\necho hi\n", "script: line 1: #BSUB -K makes bsub wait"},
      {"#BSUB -n 99999999\necho hi\n", "script: line 1: #BSUB -n 99999999: more than"},
      {"#BSUB -Jd bplace:other\necho hi\n", "script: line 1: #BSUB -Jd is set by bplace"},
      {"#BSUB -J arr[1-1000000]\necho hi\n", "use the `array` field"},
      {"echo hi\n#BSUB -q night\n", "script: line 2: #BSUB -q is set by bplace"},
      {"#BSUB -W 10 \\\n -q night\necho hi\n", "script: line 1: #BSUB -q is set by bplace"},
  };
  for (const Hole& hole : holes) {
    const HttpReply reply = daemon_.Post("/v1/jobs", ScriptBody(hole.script));
    EXPECT_EQ(reply.status, 400) << hole.script << reply.body;
    EXPECT_THAT(reply.Json().value("detail", ""), HasSubstr(hole.detail)) << hole.script;
  }
  const HttpReply name = daemon_.Post(
      "/v1/jobs",
      json{{"host", "node007"}, {"command", "true"}, {"job_name", "arr[1-1000000]"}}.dump());
  EXPECT_EQ(name.status, 400);
  EXPECT_THAT(name.Json().value("detail", ""), HasSubstr("job_name: holds [ or ]"));
  const HttpReply huge = daemon_.Post(
      "/v1/jobs", json{{"host", "node007"}, {"command", "true"}, {"array", "1-1000000"}}.dump());
  EXPECT_EQ(huge.status, 400);
  EXPECT_THAT(huge.Json().value("detail", ""), HasSubstr("submit.max_array_elements (1000)"));
  EXPECT_EQ(Bsubs(), 0) << "no refused request reaches bsub";
}

TEST_F(DirectivesTest, AScriptWithHarmlessDirectivesIsSubmittedAndLsfAppliesThem) {
  const HttpReply reply = daemon_.Post(
      "/v1/jobs", ScriptBody("#!/bin/sh\n#BSUB -W 10\n#BSUB -J stage-two -n 2\necho hi\n"));
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.Json()["queue"], "short");
  const json jobs = json::parse(sim_.Lsf({"lsfsim", "jobs"}).out)["jobs"];
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["options"]["-W"], "10");
  EXPECT_EQ(jobs[0]["name"], "stage-two");
  EXPECT_EQ(Bsubs(), 1);
}

TEST_F(DirectivesTest, AnArrayLandsInLsfAsOneJobWithAnElementPerIndex) {
  const HttpReply reply = daemon_.Post(
      "/v1/jobs",
      json{{"host", "node007"}, {"command", "true"}, {"job_name", "sweep"}, {"array", "1-5"}}
          .dump());
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_THAT(reply.Json()["bsub_argv"].get<std::vector<std::string>>(),
              ::testing::Contains("sweep[1-5]"));
  const json records = Records(sim_, reply.Json()["job_id"].get<std::string>());
  ASSERT_EQ(records.size(), 5u) << records.dump();
  EXPECT_EQ(records[0]["JOB_NAME"], "sweep[1]");
  EXPECT_EQ(records[4]["JOBINDEX"], "5");
}

TEST(DirectivesLimitsTest, AnArrayCostsItsElementsAndOneLargerThanTheBurstIs400) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.limits =
      "submit_burst = 4\nsubmit_per_minute = 0.01\nlsf_calls_burst = 1000\n"
      "lsf_calls_per_minute = 6000";
  DaemonProcess daemon(sim, settings);
  const auto array = [&](const std::string& list) {
    return daemon.Post("/v1/jobs",
                       json{{"host", "node007"}, {"command", "true"}, {"array", list}}.dump());
  };
  const HttpReply too_big = array("1-5");
  EXPECT_EQ(too_big.status, 400) << too_big.body;
  EXPECT_THAT(too_big.Json().value("detail", ""), HasSubstr("[limits] submit_burst (4)"));
  EXPECT_EQ(array("1-3").status, 201);
  const HttpReply over = array("1-2");
  EXPECT_EQ(over.status, 429) << over.body << "3 of 4 tokens were taken: 2 more do not fit";
  EXPECT_EQ(array("7").status, 201) << "the last token is still there";
  EXPECT_EQ(sim.Counts().value("bsub", 0), 2);
}

}  // namespace
}  // namespace bplace::testing
