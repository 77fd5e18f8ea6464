// bparams, lsadmin showconf lim and bacct -l: the configuration queries
// Toil makes on every submission (lsfHelper.apply_bparams/apply_lsadmin)
// and its last-resort accounting query.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

// Toil's tokenize_conf_stream: the value of KEY in "KEY = value" lines.
std::string ToilValue(const std::string& output, const std::string& key) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind('#', 0) == 0) continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos || line.find('=', eq + 1) != std::string::npos) continue;
    std::string k = line.substr(0, eq);
    k.erase(0, k.find_first_not_of(' '));
    k.erase(k.find_last_not_of(' ') + 1);
    if (k != key) continue;
    std::string v = line.substr(eq + 1);
    v.erase(0, v.find_first_not_of(' '));
    return v;
  }
  return "<absent>";
}

class ParamsTest : public SimFixture {};

TEST_F(ParamsTest, BparamsAllPrintsTheDefinitionsParameters) {
  Init(
      ClusterWith("clean_period_s = 600\nmax_pend_jobs = 50\nresource_reserve_per_task = true\n"
                  "lsf_unit_for_limits = \"MB\"\n"));
  ProcessResult r = Lsf("bparams", {"-a"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "lsb.params configuration at Sun Nov 30 11:40:00 2025\n"
            "    DEFAULT_QUEUE = normal\n"
            "    MBD_SLEEP_TIME = 10\n"
            "    SBD_SLEEP_TIME = 7\n"
            "    JOB_ACCEPT_INTERVAL = 0\n"
            "    CLEAN_PERIOD = 600\n"
            "    MAX_JOB_ARRAY_SIZE = 1000\n"
            "    MAX_PEND_JOBS = 50\n"
            "    SUB_TRY_INTERVAL = 60\n"
            "    JOB_TERMINATE_INTERVAL = 10\n"
            "    RESOURCE_RESERVE_PER_TASK = Y\n");
  EXPECT_EQ(ToilValue(r.out, "RESOURCE_RESERVE_PER_TASK"), "Y");
  ProcessResult lim = Lsf("lsadmin", {"showconf", "lim"});
  ASSERT_EQ(lim.exit_code, 0) << lim.err;
  EXPECT_EQ(lim.out,
            "LIM configuration at Sun Nov 30 11:40:00 2025\n"
            "    LSF_ENVDIR = " +
                dir_ +
                "\n"
                "    LSF_LIM_PORT = 7869\n"
                "    LSF_RES_PORT = 6878\n"
                "    LSB_MBD_PORT = 6881\n"
                "    LSB_SBD_PORT = 6882\n"
                "    LSF_UNIT_FOR_LIMITS = MB\n");
  EXPECT_EQ(ToilValue(lim.out, "LSF_UNIT_FOR_LIMITS"), "MB");
  ProcessResult conf =
      RunProcess("/bin/cat", {dir_ + "/lsf.conf"}, {}, "", std::chrono::seconds(5));
  EXPECT_NE(conf.out.find("\nLSF_UNIT_FOR_LIMITS=MB\n"), std::string::npos) << conf.out;
}

TEST_F(ParamsTest, LsfDefaultsWithoutKeys) {
  Init(kTestCluster);
  ProcessResult r = Lsf("bparams", {"-a"});
  EXPECT_EQ(ToilValue(r.out, "RESOURCE_RESERVE_PER_TASK"), "N");
  EXPECT_EQ(ToilValue(r.out, "MAX_PEND_JOBS"), "<absent>");
  EXPECT_EQ(ToilValue(Lsf("lsadmin", {"showconf", "lim"}).out, "LSF_UNIT_FOR_LIMITS"), "KB");
  EXPECT_EQ(Lsf("bparams", {}).out,
            "Default Queues:  normal\n"
            "MBD_SLEEP_TIME used for calculations:  10 seconds\n"
            "Job Checking Interval:  7 seconds\n"
            "Job Accepting Interval:  0 seconds\n");
  ProcessResult bad = Lsf("lsadmin", {"reconfig"});
  EXPECT_EQ(bad.exit_code, 255);
  EXPECT_EQ(Lsf("bparams", {"-x"}).exit_code, 255);
}

TEST_F(ParamsTest, BadParameterValuesAreRefused) {
  std::string path = std::filesystem::path(dir_).parent_path() / "bad.toml";
  std::ofstream(path) << ClusterWith("lsf_unit_for_limits = \"QB\"\n");
  ProcessResult r = Sim({"init", "--state", dir_, "--cluster", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("lsf_unit_for_limits must be KB MB GB TB PB EB or ZB"), std::string::npos)
      << r.err;
  std::ofstream(path) << ClusterWith("dialect = \"slurm\"\n");
  EXPECT_NE(Sim({"init", "--state", dir_, "--cluster", path}).err.find("dialect must be"),
            std::string::npos);
}

TEST_F(ParamsTest, BacctSaysHowFinishedJobsEnded) {
  Init(kTestCluster);
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "true"}).exit_code, 0);
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "false"}).exit_code, 0);
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "sleep", "9"}).exit_code, 0);
  ASSERT_EQ(Sim({"schedule"}).exit_code, 0);
  ASSERT_EQ(Sim({"finish", "1"}).exit_code, 0);
  ASSERT_EQ(Sim({"finish", "2", "--exit", "1"}).exit_code, 0);
  ProcessResult done = Lsf("bacct", {"-l", "1"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_EQ(done.out.rfind("Accounting information about jobs that are: \n", 0), 0u);
  EXPECT_NE(done.out.find("\nJob <1>, User <" + user_ +
                          ">, Project <default>, Status <DONE>, Queue <short>, Command <true>\n"),
            std::string::npos)
      << done.out;
  EXPECT_NE(done.out.find("Sun Nov 30 11:40:00: Completed <done>.\n"), std::string::npos);
  EXPECT_NE(done.out.find(" Total number of done jobs:       1      Total number of exited "
                          "jobs:     0\n"),
            std::string::npos)
      << done.out;
  EXPECT_NE(Lsf("bacct", {"-l", "2"}).out.find("Completed <exit>."), std::string::npos);
  ProcessResult running = Lsf("bacct", {"-l", "3"});
  EXPECT_EQ(running.exit_code, 255);
  EXPECT_EQ(running.err, "No matching job found\n");
}

TEST_F(ParamsTest, TheNewCommandsAreCountedAndFollowFaults) {
  Init(kTestCluster);
  ASSERT_EQ(Sim({"fault", "--command", "lsadmin", "--down", "fail"}).exit_code, 0);
  ProcessResult down = Lsf("lsadmin", {"showconf", "lim"});
  EXPECT_EQ(down.exit_code, 255);
  EXPECT_EQ(down.err, "lsadmin: LIM is down; try later\n");
  ASSERT_EQ(Lsf("bparams", {"-a"}).exit_code, 0);
  ProcessResult counts = Sim({"counts"});
  EXPECT_NE(counts.out.find("\"bparams\":1"), std::string::npos) << counts.out;
  EXPECT_NE(counts.out.find("\"lsadmin\":1"), std::string::npos) << counts.out;
}

}  // namespace
}  // namespace bplace::lsfsim::testing
