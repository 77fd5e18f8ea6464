// Job lifecycle against the real binary: bjobs -o -json fields, finish and
// set-job, CLEAN_PERIOD, bkill outcomes, and an LSF without bjobs -o.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

class LifecycleTest : public SimFixture {
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

  // `bjobs -a -o FIELDS -json IDS...` parsed; the exit status in *exit_code.
  nlohmann::json Bjobs(const std::string& fields, const std::vector<std::string>& ids,
                       int* exit_code = nullptr) {
    std::vector<std::string> args = {"-a", "-w", "-o", fields, "-json"};
    args.insert(args.end(), ids.begin(), ids.end());
    ProcessResult r = Lsf("bjobs", args);
    if (exit_code != nullptr) *exit_code = r.exit_code;
    EXPECT_EQ(r.err, "");
    return nlohmann::json::parse(r.out);
  }

  nlohmann::json Record(const std::string& fields, const std::string& id) {
    nlohmann::json out = Bjobs(fields, {id});
    EXPECT_EQ(out["RECORDS"].size(), 1u);
    return out["RECORDS"].empty() ? nlohmann::json::object() : out["RECORDS"][0];
  }
};

TEST_F(LifecycleTest, PendingJobPrintsEveryFieldAsAString) {
  Submit({"-q", "short", "-J", "j1", "-Jd", "bplace:t1", "-P", "proj7", "-n", "2", "sleep", "9"});
  ProcessResult r = Lsf(
      "bjobs", {"-a", "-w", "-o",
                "jobid jobindex user stat queue exit_code exit_reason pend_reason submit_time "
                "start_time finish_time exec_host nexec_host slots nreq_slot nalloc_slot job_name "
                "job_description from_host command proj_name",
                "-json", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\n"
            "  \"COMMAND\":\"bjobs\",\n"
            "  \"JOBS\":1,\n"
            "  \"RECORDS\":[\n"
            "    {\n"
            "      \"JOBID\":\"1\",\n"
            "      \"JOBINDEX\":\"0\",\n"
            "      \"USER\":\"" +
                user_ +
                "\",\n"
                "      \"STAT\":\"PEND\",\n"
                "      \"QUEUE\":\"short\",\n"
                "      \"EXIT_CODE\":\"\",\n"
                "      \"EXIT_REASON\":\"\",\n"
                "      \"PEND_REASON\":\"New job is waiting for scheduling\",\n"
                "      \"SUBMIT_TIME\":\"Nov 30 11:40\",\n"
                "      \"START_TIME\":\"\",\n"
                "      \"FINISH_TIME\":\"\",\n"
                "      \"EXEC_HOST\":\"\",\n"
                "      \"NEXEC_HOST\":\"\",\n"
                "      \"SLOTS\":\"2\",\n"
                "      \"NREQ_SLOT\":\"2\",\n"
                "      \"NALLOC_SLOT\":\"0\",\n"
                "      \"JOB_NAME\":\"j1\",\n"
                "      \"JOB_DESCRIPTION\":\"bplace:t1\",\n"
                "      \"FROM_HOST\":\"submit01\",\n"
                "      \"COMMAND\":\"sleep 9\",\n"
                "      \"PROJ_NAME\":\"proj7\"\n"
                "    }\n"
                "  ]\n"
                "}\n");
}

TEST_F(LifecycleTest, FinishWithNonZeroExitMakesExitWithTimes) {
  Submit({"-q", "short", "true"});
  SetNow(kT0 + 60);
  Control({"schedule"});
  SetNow(kT0 + 180);
  Control({"finish", "1", "--exit", "3", "--reason",
           "TERM_RUNLIMIT: job killed after reaching LSF run time limit"});
  nlohmann::json job =
      Record("stat exit_code exit_reason start_time finish_time exec_host nalloc_slot", "1");
  EXPECT_EQ(job["STAT"], "EXIT");
  EXPECT_EQ(job["EXIT_CODE"], "3");
  EXPECT_EQ(job["EXIT_REASON"], "TERM_RUNLIMIT: job killed after reaching LSF run time limit");
  EXPECT_EQ(job["START_TIME"], "Nov 30 11:41");
  EXPECT_EQ(job["FINISH_TIME"], "Nov 30 11:43");
  EXPECT_EQ(job["EXEC_HOST"], "node01");
  EXPECT_EQ(job["NALLOC_SLOT"], "0");
}

TEST_F(LifecycleTest, FinishWithExitZeroIsDoneWithoutExitCode) {
  Submit({"-q", "short", "true"});
  Control({"schedule"});
  Control({"finish", "1"});
  nlohmann::json job = Record("stat exit_code pend_reason", "1");
  EXPECT_EQ(job["STAT"], "DONE");
  EXPECT_EQ(job["EXIT_CODE"], "");
  EXPECT_EQ(job["PEND_REASON"], "");
}

TEST_F(LifecycleTest, RunningJobWithRunLimitShowsEstimatedFinish) {
  Submit({"-q", "short", "-W", "1:30", "true"});
  Control({"schedule"});
  EXPECT_EQ(Record("finish_time", "1")["FINISH_TIME"], "Nov 30 13:10 L");
}

TEST_F(LifecycleTest, FinishRefusesAJobNotDispatched) {
  Submit({"-q", "short", "-m", "node03", "true"});  // node03 is closed_Adm: stays pending
  ProcessResult r = Sim({"finish", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "lsfsim: job 1: has not been dispatched\n");
  EXPECT_EQ(Sim({"finish", "7"}).exit_code, 1);
}

TEST_F(LifecycleTest, UnknownIdsBecomeErrorRecordsInTheJson) {
  Submit({"-q", "short", "true"});
  int exit_code = 0;
  nlohmann::json out = Bjobs("jobid stat", {"1", "999"}, &exit_code);
  EXPECT_EQ(exit_code, 255);
  EXPECT_EQ(out["JOBS"], 2);
  EXPECT_EQ(out["RECORDS"][0], (nlohmann::json{{"JOBID", "1"}, {"STAT", "PEND"}}));
  EXPECT_EQ(out["RECORDS"][1],
            (nlohmann::json{{"JOBID", "999"}, {"ERROR", "Job <999> is not found"}}));
}

TEST_F(LifecycleTest, AnswersHundredsOfIdsInOneCall) {
  for (int i = 0; i < 3; ++i) Submit({"-q", "short", "true"});
  std::vector<std::string> ids;
  for (int id = 1; id <= 400; ++id) ids.push_back(std::to_string(id));
  int exit_code = 0;
  nlohmann::json out = Bjobs("jobid stat", ids, &exit_code);
  EXPECT_EQ(exit_code, 255);
  ASSERT_EQ(out["RECORDS"].size(), 400u);
  EXPECT_EQ(out["RECORDS"][2]["STAT"], "PEND");
  EXPECT_EQ(out["RECORDS"][399]["ERROR"], "Job <400> is not found");
}

TEST_F(LifecycleTest, FinishedJobIsGoneAfterCleanPeriod) {
  Submit({"-q", "short", "true"});
  Control({"schedule"});
  Control({"finish", "1"});
  SetNow(kT0 + 3599);
  EXPECT_EQ(Record("stat", "1")["STAT"], "DONE");
  EXPECT_NE(Lsf("bjobs", {"-a"}).out.find("DONE"), std::string::npos);
  SetNow(kT0 + 3600);
  ProcessResult r = Lsf("bjobs", {"1"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Job <1> is not found\n");
  EXPECT_EQ(Lsf("bjobs", {"-a"}).err, "No job found\n");
  EXPECT_EQ(Lsf("bkill", {"1"}).err, "Job <1>: No matching job found\n");
}

TEST_F(LifecycleTest, CleanPeriodComesFromTheClusterDefinition) {
  Init(ClusterWith("clean_period_s = 60\n"));
  Submit({"-q", "short", "true"});
  ASSERT_EQ(Lsf("bkill", {"1"}).exit_code, 0);
  SetNow(kT0 + 59);
  EXPECT_EQ(Lsf("bjobs", {"1"}).exit_code, 0);
  SetNow(kT0 + 60);
  EXPECT_EQ(Lsf("bjobs", {"1"}).err, "Job <1> is not found\n");
}

TEST_F(LifecycleTest, BkillOfRunningJobRecordsTermOwnerAndExitCode) {
  Submit({"-q", "short", "sleep", "60"});
  Submit({"-q", "short", "-m", "node03", "sleep", "60"});  // stays pending
  Control({"schedule"});
  ProcessResult r = Lsf("bkill", {"1", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is being terminated\nJob <2> is being terminated\n");
  nlohmann::json out = Bjobs("jobid stat exit_code exit_reason", {"1", "2"});
  EXPECT_EQ(out["RECORDS"][0],
            (nlohmann::json{{"JOBID", "1"},
                            {"STAT", "EXIT"},
                            {"EXIT_CODE", "130"},
                            {"EXIT_REASON", "TERM_OWNER: job killed by owner"}}));
  EXPECT_EQ(out["RECORDS"][1],
            (nlohmann::json{{"JOBID", "2"},
                            {"STAT", "EXIT"},
                            {"EXIT_CODE", ""},
                            {"EXIT_REASON", "TERM_OWNER: job killed by owner"}}));
}

TEST_F(LifecycleTest, BkillSignalSetsTheExitCode) {
  Submit({"-q", "short", "sleep", "60"});
  Control({"schedule"});
  ASSERT_EQ(Lsf("bkill", {"-s", "KILL", "1"}).exit_code, 0);
  EXPECT_EQ(Record("exit_code", "1")["EXIT_CODE"], "137");
}

TEST_F(LifecycleTest, BkillAnswersEachIdOnItsOwnLine) {
  Submit({"-q", "short", "true"});
  Submit({"-q", "short", "true"});
  ASSERT_EQ(Lsf("bkill", {"2"}).exit_code, 0);
  ProcessResult r = Lsf("bkill", {"1", "2", "999"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.out, "Job <1> is being terminated\n");
  EXPECT_EQ(r.err,
            "Job <2>: Job has already finished\n"
            "Job <999>: No matching job found\n");
}

TEST_F(LifecycleTest, KillingAnUnknownJobMakesItZombi) {
  Submit({"-q", "short", "sleep", "60"});
  Control({"schedule"});
  Control({"set-job", "1", "UNKWN"});
  EXPECT_EQ(Record("stat", "1")["STAT"], "UNKWN");
  ASSERT_EQ(Lsf("bkill", {"1"}).exit_code, 0);
  EXPECT_EQ(Record("stat", "1")["STAT"], "ZOMBI");
  Control({"finish", "1", "--exit", "130"});
  EXPECT_EQ(Record("stat", "1")["STAT"], "EXIT");
}

TEST_F(LifecycleTest, SuspendedJobsKeepTheirSlotsAndCountAsSusp) {
  Submit({"-q", "short", "-n", "3", "sleep", "60"});
  Control({"schedule"});
  Control({"set-job", "1", "USUSP"});
  EXPECT_NE(Lsf("bqueues", {"short"}).out.find("    3     0     0     3\n"), std::string::npos);
  EXPECT_EQ(Lsf("bhosts", {"-w", "node01"}).out,
            "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"
            "node01             ok              -      8      3      0      0      3      0\n");
  Control({"set-job", "1", "RUN"});
  EXPECT_EQ(Record("stat", "1")["STAT"], "RUN");
}

TEST_F(LifecycleTest, PendingJobCanBeHeldAndReleased) {
  Submit({"-q", "short", "true"});
  Control({"set-job", "1", "PSUSP"});
  EXPECT_EQ(Sim({"schedule"}).out, "dispatched 0 job(s), finished 0 job(s)\n");
  EXPECT_NE(Lsf("bqueues", {"short"}).out.find("    1     1     0     0\n"), std::string::npos);
  Control({"set-job", "1", "PEND"});
  EXPECT_EQ(Sim({"schedule"}).out, "dispatched 1 job(s), finished 0 job(s)\n");
}

TEST_F(LifecycleTest, SetJobRefusesWhatLsfCannotDo) {
  Submit({"-q", "short", "true"});
  ProcessResult r = Sim({"set-job", "1", "UNKWN"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "lsfsim: job 1: cannot go from PEND to UNKWN\n");
  EXPECT_EQ(Sim({"set-job", "1", "DONE"}).exit_code, 2);
  EXPECT_EQ(Sim({"set-job", "9", "PSUSP"}).exit_code, 1);
}

TEST_F(LifecycleTest, FormatTableTakesWidthsDelimiterAndNoheader) {
  Submit({"-q", "short", "-J", "averyverylongname", "true"});
  ProcessResult r =
      Lsf("bjobs", {"-noheader", "-o", "jobid stat:-6 job_name:8 exec_host delimiter='|'", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1|  PEND|*ongname|-\n");
  r = Lsf("bjobs", {"-o", "id queue", "1"});
  EXPECT_EQ(r.out, "JOBID QUEUE\n1 short\n");
}

TEST_F(LifecycleTest, UnknownFieldIsRefused) {
  ProcessResult r = Lsf("bjobs", {"-o", "jobid nosuchfield", "-json"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "nosuchfield: Illegal field name. Specify a valid field name.\n");
}

TEST_F(LifecycleTest, JsonWithoutFormatIsRefused) {
  ProcessResult r = Lsf("bjobs", {"-json"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err.rfind("bjobs: You cannot use the -json option", 0), 0u) << r.err;
}

TEST_F(LifecycleTest, FindsJobsByDescriptionPattern) {
  Submit({"-q", "short", "-Jd", "bplace:a1", "true"});
  Submit({"-q", "short", "-Jd", "other", "true"});
  Submit({"-q", "short", "-Jd", "bplace:b2", "true"});
  ProcessResult r = Lsf("bjobs", {"-a", "-Jd", "bplace:*", "-o", "jobid", "-json"});
  nlohmann::json out = nlohmann::json::parse(r.out);
  ASSERT_EQ(out["RECORDS"].size(), 2u);
  EXPECT_EQ(out["RECORDS"][0]["JOBID"], "1");
  EXPECT_EQ(out["RECORDS"][1]["JOBID"], "3");
}

TEST_F(LifecycleTest, OldLsfWithoutBjobsOPrintsUsage) {
  Init(ClusterWith("bjobs_o = false\n"));
  Submit({"-q", "short", "true"});
  ProcessResult r = Lsf("bjobs", {"-a", "-w", "-o", "jobid stat", "-json", "1"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("bjobs: illegal option -- o\nUsage: bjobs ", 0), 0u) << r.err;
  r = Lsf("bjobs", {"-a", "-w", "-u", "all"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("\n1       "), std::string::npos) << r.out;
}

TEST_F(LifecycleTest, AdministratorKillRecordsTermAdmin) {
  if (!CanRunAs("alice")) GTEST_SKIP() << "needs root and the test user alice";
  // The test user becomes the LSF administrator; alice owns the job.
  Init([&] {
    std::string toml = kTestCluster;
    toml.replace(toml.find("admins = [\"lsfadmin\"]"), 21, "admins = [\"" + user_ + "\"]");
    return toml;
  }());
  ProcessResult r = LsfAs("alice", "bsub", {"-q", "short", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Lsf("bkill", {"1"}).exit_code, 0);
  EXPECT_EQ(Record("exit_reason", "1")["EXIT_REASON"],
            "TERM_ADMIN: job killed by root or LSF administrator");
}

}  // namespace
}  // namespace bplace::lsfsim::testing
