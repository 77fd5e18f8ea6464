// bjobs -l in LSF 10.1's layout: the header, the event lines and their
// 79-column cuts (the expected texts were cut by an independent
// implementation of Platform's prtLine, the script that wrote
// tests/testdata/lsf/lsf10/bjobs_l.txt), pending reasons, the end of a job,
// and MAX MEM once a job ran for real.

#include <gtest/gtest.h>

#include <regex>

#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

constexpr const char* kSchedulingParameters =
    "\n"
    " SCHEDULING PARAMETERS:\n"
    "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
    " loadSched   -     -     -     -       -     -    -     -     -      -      -  \n"
    " loadStop    -     -     -     -       -     -    -     -     -      -      -  \n";

class LongTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    Init(kTestCluster);
    if (user_ != "root") GTEST_SKIP() << "the expected texts name root and /root";
  }

  // bsub from /tmp, so that CWD is the same wherever the tests run.
  void SubmitFromTmp(const std::string& options) {
    auto env = Env(true);
    env["BIN"] = BinDir();
    ProcessResult r = RunProcess("/bin/sh", {"-c", "cd /tmp && exec \"$BIN/bsub\" " + options}, env,
                                 "", std::chrono::seconds(10));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  void Control(const std::vector<std::string>& args) {
    ProcessResult r = Sim(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

TEST_F(LongTest, APendingJobWithItsReasonAndTheHeaderCutAt79Columns) {
  SubmitFromTmp("-J wide -q normal -n 2 -Jd bplace:5d6e7f80-1234-4abc-8def-000000000003 sleep 600");
  ProcessResult r = Lsf("bjobs", {"-l", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("\n"
                               "Job <1>, Job Name <wide>, User <root>, Project <default>, Status "
                               "<PEND>, Queue \n"
                               "                     <normal>, Command <sleep 600>, Job "
                               "Description <bplace:5d6\n"
                               "                     e7f80-1234-4abc-8def-000000000003>\n"
                               "Sun Nov 30 11:40:00: Submitted from host <submit01>, CWD </tmp>, "
                               "2 Task(s);\n"
                               " PENDING REASONS:\n"
                               " New job is waiting for scheduling;\n") +
                       kSchedulingParameters +
                       "\n"
                       " RESOURCE REQUIREMENT DETAILS:\n"
                       " Combined: select[type == local] order[r15s:pg]\n"
                       " Effective: -\n"
                       "\n");
}

TEST_F(LongTest, AJobThatExitedWithItsCode) {
  SubmitFromTmp("-q short -o o.%J -Jd 'nightly <main>, retry 2 of 3' sh -c 'exit 3'");
  SetNow(kT0 + 60);
  Control({"schedule"});
  SetNow(kT0 + 120);
  Control({"finish", "1", "--exit", "3"});
  ProcessResult r = Lsf("bjobs", {"-l", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            std::string("\n"
                        "Job <1>, User <root>, Project <default>, Status <EXIT>, Queue <short>, "
                        "Command \n"
                        "                     <sh -c \"exit 3\">, Job Description <nightly "
                        "<main>, retry 2\n"
                        "                     of 3>\n"
                        "Sun Nov 30 11:40:00: Submitted from host <submit01>, CWD </tmp>, Output "
                        "File <o\n"
                        "                     .%J>;\n"
                        "Sun Nov 30 11:41:00: Started 1 Task(s) on Host(s) <node01>, Allocated 1 "
                        "Slot(s)\n"
                        "                     on Host(s) <node01>, Execution Home </root>, "
                        "Execution CWD\n"
                        "                     </tmp>;\n"
                        "Sun Nov 30 11:42:00: Exited with exit code 3. The CPU time used is 0.0 "
                        "seconds.\n"
                        "Sun Nov 30 11:42:00: Completed <exit>.\n") +
                kSchedulingParameters +
                "\n"
                " RESOURCE REQUIREMENT DETAILS:\n"
                " Combined: select[type == local] order[r15s:pg]\n"
                " Effective: select[type == local] order[r15s:pg]\n"
                "\n");
  // Toil's fallback reads the code once the cuts are undone (lsf.py).
  std::string joined = std::regex_replace(r.out, std::regex("\n {21}"), "");
  EXPECT_NE(joined.find("Exited with exit code 3. The CPU"), std::string::npos);
}

TEST_F(LongTest, SeveralJobsAreSeparatedAndAnUnknownIdFails) {
  SubmitFromTmp("-q short true");
  SubmitFromTmp("-q short -J 'arr[1-2]' true");
  Control({"schedule"});
  Control({"finish", "1"});
  ASSERT_EQ(Lsf("bkill", {"2[2]"}).exit_code, 0);
  ProcessResult r = Lsf("bjobs", {"-l", "1", "2", "9"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Job <9> is not found\n");
  std::vector<std::string> headers;
  std::regex header("\nJob <([^>]+)>, (Job Name <[^>]+>, )?User");
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), header);
       it != std::sregex_iterator(); ++it) {
    headers.push_back((*it)[1]);
  }
  EXPECT_EQ(headers, (std::vector<std::string>{"1", "2[1]", "2[2]"}));
  EXPECT_NE(r.out.find("Done successfully. The CPU time used is 0.0 seconds.\n"
                       "Sun Nov 30 11:40:00: Post job process done successfully.\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("\n" + std::string(78, '-') + "\n\nJob <2[1]>, Job Name <arr[1]>"),
            std::string::npos);
  std::string joined = std::regex_replace(r.out, std::regex("\n {21}"), "");
  EXPECT_NE(joined.find("Exited with exit code 130. The CPU time used is 0.0 seconds.\n"
                        "Sun Nov 30 11:40:00: Completed <exit>; TERM_OWNER: job killed by "
                        "owner.\n"),
            std::string::npos)
      << r.out;
}

TEST_F(LongTest, AJobKilledBeforeItRanJustExited) {
  SubmitFromTmp("-q short true");
  ASSERT_EQ(Lsf("bkill", {"1"}).exit_code, 0);
  ProcessResult r = Lsf("bjobs", {"-l", "1"});
  EXPECT_NE(r.out.find("CWD </tmp>;\n"
                       "Sun Nov 30 11:40:00: Exited\n"
                       "Sun Nov 30 11:40:00: Completed <exit>; TERM_OWNER: job killed by "
                       "owner.\n"),
            std::string::npos)
      << r.out;
}

TEST_F(LongTest, MaxMemOnceTheJobRanForReal) {
  SubmitFromTmp("-q short true");
  Control({"schedule", "--run"});
  Control({"wait", "1", "--timeout-ms", "20000"});
  ProcessResult r = Lsf("bjobs", {"-l", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Toil 5.9.2's parse_mem_and_cmd_from_output (lsfHelper.py).
  std::string cleaned = std::regex_replace(r.out, std::regex("\n\\s*"), "");
  std::smatch max_mem;
  ASSERT_TRUE(std::regex_search(cleaned, max_mem, std::regex("MAX ?MEM: ?(.*?);"))) << r.out;
  EXPECT_TRUE(std::regex_match(max_mem[1].str(), std::regex("[0-9]+ Mbytes"))) << max_mem[1];
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n MEMORY USAGE:\n MAX MEM: [0-9]+ Mbytes;  "
                                                  "AVG MEM: [0-9]+ Mbytes; MEM Efficiency: "
                                                  "0.00%\n")))
      << r.out;
  EXPECT_TRUE(std::regex_search(Lsf("bjobs", {"-o", "max_mem", "-noheader", "1"}).out,
                                std::regex("^[0-9]+ Mbytes\n$")));
}

TEST_F(LongTest, MaxMemWhileTheJobRuns) {
  SubmitFromTmp("-q short sleep 30");
  Control({"schedule", "--run"});
  Control({"wait", "1", "--running", "--timeout-ms", "20000"});
  ProcessResult r = Lsf("bjobs", {"-l", "1"});
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Status <RUN>[^]*\n MEMORY USAGE:\n MAX MEM: "
                                                  "[0-9]+ Mbytes;")))
      << r.out;
  ASSERT_EQ(Lsf("bkill", {"-s", "KILL", "1"}).exit_code, 0);
  Control({"wait", "1", "--timeout-ms", "20000"});
}

}  // namespace
}  // namespace bplace::lsfsim::testing
