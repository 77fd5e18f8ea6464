// Jobs that run for real: `lsfsim schedule --run`, `lsfsim daemon` and
// `lsfsim wait`, with what bsub records of the submitter (working
// directory, umask, environment, a stdin script), the LSF job variables,
// -o/-e files and the job report, exit codes, and bkill of a running job.
// Every wait goes through `lsfsim wait` (event-driven, with a timeout).

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The line two above "Resource usage summary:", which the Snakemake 7 LSF
// profile reads to tell how a job ended.
std::string LineTwoAboveSummary(const std::string& report) {
  std::vector<std::string> lines;
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (size_t i = 2; i < lines.size(); ++i) {
    if (lines[i] == "Resource usage summary:") return lines[i - 2];
  }
  return "<no summary>";
}

// Processes of process group `pgid` that are not zombies (a killed
// grandchild stays a zombie until PID 1 reaps it, and kill(-pgid, 0)
// still finds it).
int LiveProcessesIn(int pgid) {
  int live = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string stat = ReadText(entry.path().string() + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    int ppid = 0;
    int group = 0;
    fields >> state >> ppid >> group;
    if (group == pgid && state != "Z") ++live;
  }
  return live;
}

class RunTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    std::string toml = kTestCluster;
    const std::string anchor = "admins = [\"lsfadmin\"]\n";
    toml.insert(toml.find(anchor) + anchor.size(), "job_terminate_interval_s = 1\n");
    Init(toml);
    work_ = std::filesystem::path(dir_).parent_path() / "work";
    std::filesystem::create_directories(work_);
  }

  // Runs `script` with /bin/sh and the LSF environment (LSF commands by
  // their full path: `$BIN/bsub`).
  ProcessResult Shell(const std::string& script, const std::string& stdin_text = "") {
    auto env = Env(true);
    env["BIN"] = BinDir();
    return RunProcess("/bin/sh", {"-c", script}, env, stdin_text, std::chrono::seconds(10));
  }

  void ScheduleAndWait(const std::string& id) {
    ProcessResult scheduled = Sim({"schedule", "--run"});
    ASSERT_EQ(scheduled.exit_code, 0) << scheduled.err;
    ProcessResult waited = Sim({"wait", id, "--timeout-ms", "20000"});
    ASSERT_EQ(waited.exit_code, 0) << waited.err;
  }

  std::string Stat(const std::string& id) {
    return Lsf("bjobs", {"-a", "-o", "stat exit_code exit_reason", "-noheader", id}).out;
  }

  std::string work_;
};

TEST_F(RunTest, RunsTheCommandWhereAndAsItWasSubmitted) {
  ProcessResult r = Shell("cd " + work_ +
                          " && umask 027 && FOO=bar exec \"$BIN/bsub\" -J myjob -o out.%J -e "
                          "err.%J 'echo $LSB_JOBID $LSB_QUEUE $LSB_JOBNAME $FOO; echo "
                          "$LSB_HOSTS / $LSB_MCPU_HOSTS; pwd; umask; echo $LS_SUBCWD; echo oops "
                          ">&2'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is submitted to default queue <normal>.\n");
  ProcessResult scheduled = Sim({"schedule", "--run"});
  EXPECT_EQ(scheduled.out, "dispatched 1 job(s), finished 0 job(s), started 1 job(s)\n");
  ASSERT_EQ(Sim({"wait", "1", "--timeout-ms", "20000"}).exit_code, 0);
  EXPECT_EQ(Stat("1"), "DONE - -\n");
  std::string out = ReadText(work_ + "/out.1");
  std::string job_output =
      "1 normal myjob bar\nnode01 / node01 1\n" + work_ + "\n0027\n" + work_ + "\n";
  ASSERT_EQ(out.substr(0, job_output.size()), job_output);
  EXPECT_EQ(ReadText(work_ + "/err.1"), "oops\n");
  // The report, with the two measured figures blanked.
  std::string report = std::regex_replace(
      out.substr(job_output.size()),
      std::regex("(CPU time :|Max Memory :|Average Memory :)( +)[^\n]*"), "$1$2X");
  struct passwd* pw = ::getpwnam(user_.c_str());
  std::string home = pw != nullptr ? pw->pw_dir : "/";
  std::string command =
      "echo $LSB_JOBID $LSB_QUEUE $LSB_JOBNAME $FOO; echo $LSB_HOSTS / $LSB_MCPU_HOSTS; pwd; "
      "umask; echo $LS_SUBCWD; echo oops >&2";
  EXPECT_EQ(report,
            "\n"
            "------------------------------------------------------------\n"
            "Sender: LSF System <lsfadmin@node01>\n"
            "Subject: Job 1: <myjob> in cluster <testc> Done\n"
            "\n"
            "Job <myjob> was submitted from host <submit01> by user <" +
                user_ +
                "> in cluster <testc> at Sun Nov 30 11:40:00 2025\n"
                "Job was executed on host(s) <node01>, in queue <normal>, as user <" +
                user_ +
                "> in cluster <testc> at Sun Nov 30 11:40:00 2025\n"
                "<" +
                home +
                "> was used as the home directory.\n"
                "<" +
                work_ +
                "> was used as the working directory.\n"
                "Started at Sun Nov 30 11:40:00 2025\n"
                "Terminated at Sun Nov 30 11:40:00 2025\n"
                "Results reported at Sun Nov 30 11:40:00 2025\n"
                "\n"
                "Your job looked like:\n"
                "\n"
                "------------------------------------------------------------\n"
                "# LSBATCH: User input\n" +
                command +
                "\n"
                "------------------------------------------------------------\n"
                "\n"
                "Successfully completed.\n"
                "\n"
                "Resource usage summary:\n"
                "\n"
                "    CPU time :                                   X\n"
                "    Max Memory :                                 X\n"
                "    Average Memory :                             X\n"
                "    Total Requested Memory :                     -\n"
                "    Delta Memory :                               -\n"
                "    Max Swap :                                   -\n"
                "    Max Processes :                              -\n"
                "    Max Threads :                                -\n"
                "    Run time :                                   0 sec.\n"
                "    Turnaround time :                            0 sec.\n"
                "\n"
                "The output (if any) is above this job summary.\n"
                "\n"
                "\n"
                "\n"
                "PS:\n"
                "\n"
                "Read file <err.1> for stderr output of this job.\n"
                "\n");
}

TEST_F(RunTest, AFailingJobExitsWithItsCodeAndStderrGoesToTheOutputFile) {
  ASSERT_EQ(Shell("cd " + work_ + " && exec \"$BIN/bsub\" -o o.%J 'echo out; echo err >&2; exit 3'")
                .exit_code,
            0);
  ScheduleAndWait("1");
  EXPECT_EQ(Stat("1"), "EXIT 3 -\n");
  std::string out = ReadText(work_ + "/o.1");
  EXPECT_EQ(out.rfind("out\nerr\n\n----", 0), 0u) << out;
  EXPECT_EQ(LineTwoAboveSummary(out), "Exited with exit code 3.");
  EXPECT_NE(out.find("Subject: Job 1: <echo out; echo err >&2; exit 3> in cluster <testc> "
                     "Exited\n"),
            std::string::npos);
  EXPECT_EQ(out.find("PS:"), std::string::npos);  // no -e: no pointer to a stderr file
}

TEST_F(RunTest, AScriptOnStdinRunsWithItsBsubLines) {
  std::ofstream(work_ + "/script.1.out") << "left from an earlier run\n";
  std::string script =
      "#!/bin/sh\n#BSUB -J scripted\n#BSUB -oo script.%J.out\necho \"in $LSB_JOBNAME\"\n";
  ProcessResult r = Shell("cd " + work_ + " && exec \"$BIN/bsub\"", script);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ScheduleAndWait("1");
  std::string out = ReadText(work_ + "/script.1.out");
  EXPECT_EQ(out.rfind("in scripted\n\n---", 0), 0u) << out;  // -oo overwrote the old file
  EXPECT_NE(out.find("# LSBATCH: User input\n" + script +
                     "------------------------------------------------------------\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(LineTwoAboveSummary(out), "Successfully completed.");
}

TEST_F(RunTest, ArrayElementsRunWithTheirIndex) {
  ASSERT_EQ(Shell("cd " + work_ +
                  " && exec \"$BIN/bsub\" -J 'arr[1-3]' -o 'arr.%J.%I' 'echo $LSB_JOBINDEX "
                  "$LSB_JOBNAME'")
                .exit_code,
            0);
  ScheduleAndWait("1");
  for (int index = 1; index <= 3; ++index) {
    std::string out = ReadText(work_ + "/arr.1." + std::to_string(index));
    std::string first = std::to_string(index) + " arr[" + std::to_string(index) + "]\n";
    EXPECT_EQ(out.substr(0, first.size()), first);
    EXPECT_NE(out.find("Subject: Job 1[" + std::to_string(index) + "]: <arr[" +
                       std::to_string(index) + "]>"),
              std::string::npos);
  }
}

TEST_F(RunTest, CwdOptionAndAnOutputDirectory) {
  std::filesystem::create_directories(work_ + "/sub/logs");
  ASSERT_EQ(Shell("cd " + work_ + " && exec \"$BIN/bsub\" -cwd sub -o logs/ pwd").exit_code, 0);
  ScheduleAndWait("1");
  std::string out = ReadText(work_ + "/sub/logs/1.out");
  EXPECT_EQ(out.rfind(work_ + "/sub\n", 0), 0u) << out;
  EXPECT_NE(out.find("<" + work_ + "/sub> was used as the working directory."), std::string::npos);
}

TEST_F(RunTest, BkillKillsTheWholeProcessGroup) {
  // The job ignores SIGINT (bkill's first signal), and so does the sleep
  // it starts: only the SIGKILL JOB_TERMINATE_INTERVAL (1 s) later ends it.
  ASSERT_EQ(Shell("cd " + work_ + " && exec \"$BIN/bsub\" -o k.%J 'trap \"\" INT; sleep 60; true'")
                .exit_code,
            0);
  ASSERT_EQ(Sim({"schedule", "--run"}).exit_code, 0);
  ASSERT_EQ(Sim({"wait", "1", "--running", "--timeout-ms", "20000"}).exit_code, 0);
  int pgid = nlohmann::json::parse(Sim({"jobs"}).out)["jobs"][0]["pgid"];
  ASSERT_GT(pgid, 0);
  ASSERT_GT(LiveProcessesIn(pgid), 0);  // the job's group runs
  ProcessResult killed = Lsf("bkill", {"1"});
  EXPECT_EQ(killed.out, "Job <1> is being terminated\n");
  EXPECT_EQ(Stat("1"), "EXIT 130 TERM_OWNER: job killed by owner\n");
  ASSERT_EQ(Sim({"wait", "1", "--timeout-ms", "20000"}).exit_code, 0);
  EXPECT_EQ(LiveProcessesIn(pgid), 0);
  std::string out = ReadText(work_ + "/k.1");
  EXPECT_NE(out.find("\nTERM_OWNER: job killed by owner.\nExited with exit code 130.\n\nResource "
                     "usage summary:\n"),
            std::string::npos)
      << out;
}

TEST_F(RunTest, TheDaemonRunsJobsAsTheyArrive) {
  BackgroundProcess daemon(BinDir() + "/lsfsim", {"daemon", "--interval-ms", "20"}, Env(false));
  ASSERT_EQ(Shell("cd " + work_ + " && exec \"$BIN/bsub\" -o d.%J 'echo first'").exit_code, 0);
  ASSERT_EQ(Sim({"wait", "1", "--timeout-ms", "20000"}).exit_code, 0);
  ASSERT_EQ(Shell("cd " + work_ + " && exec \"$BIN/bsub\" -o d.%J 'exit 4'").exit_code, 0);
  ASSERT_EQ(Sim({"wait", "2", "--timeout-ms", "20000"}).exit_code, 0);
  EXPECT_EQ(daemon.Stop(std::chrono::seconds(10)), 0);
  EXPECT_EQ(Stat("1"), "DONE - -\n");
  EXPECT_EQ(Stat("2"), "EXIT 4 -\n");
  EXPECT_EQ(ReadText(work_ + "/d.1").rfind("first\n", 0), 0u);
}

TEST_F(RunTest, WaitTimesOutOnAJobThatDoesNotEnd) {
  ASSERT_EQ(Lsf("bsub", {"sleep", "60"}).exit_code, 0);  // never dispatched
  ProcessResult r = Sim({"wait", "1", "--timeout-ms", "50"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "lsfsim: wait: timed out after 50 ms\n");
  EXPECT_EQ(Sim({"wait", "7", "--timeout-ms", "50"}).err, "lsfsim: wait: no job 7\n");
}

TEST_F(RunTest, AJobRunsAsItsSubmitterWhenTheSimulatorIsRoot) {
  if (!CanRunAs("alice")) GTEST_SKIP() << "needs root and the user alice (tools/test-users.sh)";
  struct passwd* alice = ::getpwnam("alice");
  std::string home = work_ + "/alice";
  std::filesystem::create_directories(home);
  ASSERT_EQ(::chown(home.c_str(), alice->pw_uid, alice->pw_gid), 0);
  ProcessResult r = RunProcess(
      "/usr/bin/setpriv",
      {"--reuid=" + std::to_string(alice->pw_uid), "--regid=" + std::to_string(alice->pw_gid),
       "--init-groups", "/bin/sh", "-c",
       "cd " + home + " && umask 077 && exec " + BinDir() + "/bsub -o who.%J 'id -un; umask'"},
      Env(true), "", std::chrono::seconds(10));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ScheduleAndWait("1");  // as root
  std::string out = ReadText(home + "/who.1");
  EXPECT_EQ(out.rfind("alice\n0077\n", 0), 0u) << out;
  struct stat st {};
  ASSERT_EQ(::stat((home + "/who.1").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, alice->pw_uid);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // created under her umask
}

}  // namespace
}  // namespace bplace::lsfsim::testing
