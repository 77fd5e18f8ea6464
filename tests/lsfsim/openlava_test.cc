// The OpenLava dialect (`[cluster] dialect = "openlava"`): where volclava
// 2.2 answers differently from LSF 10.1, the simulator answers as the
// volclava captures (docs/lsf-formats.md "Sources") and
// tests/realsched/captures/ show, byte for byte (the captured texts are
// quoted here with their file).

#include <gtest/gtest.h>
#include <pwd.h>

#include <filesystem>

#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

// tests/realsched/captures/bjobs-o-errors.txt, `bjobs -a -w -o ... -json 18`.
constexpr const char* kBjobsUsage =
    "Usage: bjobs [-h] [-V] [-w |-l |-UF] [-a] [-d] [-p] [-s] [-r] [-o] [-json] [-A]\n"
    "             [-m host_name] [-q queue_name] [-u user_name | -u all]\n"
    "             [-P project_name] [-N host_spec]\n"
    "             [-J name_spec] [jobId | \"jobId[idxList]\" ...]\n";

// tests/realsched/captures/bjobs-json-nojobs.txt
constexpr const char* kEmptyJson =
    "{\n"
    "\t\"COMMAND\":\t\"bjobs\",\n"
    "\t\"JOBS\":\t0,\n"
    "\t\"RECORDS\":\t[]\n"
    "}\n";

class OpenlavaTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    std::string toml = kTestCluster;
    const std::string anchor = "admins = [\"lsfadmin\"]\n";
    toml.insert(toml.find(anchor) + anchor.size(), "dialect = \"openlava\"\n");
    Init(toml);
  }

  // Job 1 DONE (ended at T0+2) and job 2 EXIT 3 (ended at T0+1).
  void TwoFinishedJobs() {
    ASSERT_EQ(Lsf("bsub", {"-q", "short", "sleep", "1"}).exit_code, 0);
    ASSERT_EQ(Lsf("bsub", {"-q", "short", "sh", "-c", "exit 3"}).exit_code, 0);
    ASSERT_EQ(Sim({"schedule"}).exit_code, 0);
    SetNow(kT0 + 1);
    ASSERT_EQ(Sim({"finish", "2", "--exit", "3"}).exit_code, 0);
    SetNow(kT0 + 2);
    ASSERT_EQ(Sim({"finish", "1"}).exit_code, 0);
  }

  void ExpectRefused(const std::vector<std::string>& args, int exit_code, const std::string& err) {
    ProcessResult r = Lsf("bjobs", args);
    EXPECT_EQ(r.exit_code, exit_code) << args.back();
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, err);
  }
};

TEST_F(OpenlavaTest, LsidNamesVolclava) {
  // The volclava captures (docs/lsf-formats.md "lsid").
  EXPECT_EQ(Lsf("lsid", {}).out,
            "volclava project 2.2, Nov 30 2026\n\nMy cluster name is testc\nMy master name is "
            "hostm\n");
}

TEST_F(OpenlavaTest, ToilsBsubLineIsRefusedAsVolclavaRefusesIt) {
  // bsub reads `-cwd .` as `-c wd` (my_getopt matches option prefixes).
  ProcessResult r = Lsf(
      "bsub", {"-cwd", ".", "-J", "toil_job_1", "-R", "select[mem>2147MB] rusage[mem=2147MB]", "-M",
               "2147MB", "-n", "1", "-o", "out.%J.log", "-e", "err.%J.log", "_toil_worker job"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "wd: Bad CPULIMIT specification. Job not submitted.\n");
  r = Lsf("bsub", {"-M", "2147MB", "-n", "1", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "2147MB: MEMLIMT value should be a positive integer. Job not submitted.\n");
  // Units in a resource requirement: mbatchd refuses the job (an id is used).
  r = Lsf("bsub", {"-R", "select[mem>2147MB] rusage[mem=2147MB]", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Bad resource requirement syntax. Job not submitted.\n");
  // The same without units is fine; the refusals before mbatchd used no id.
  r = Lsf("bsub", {"-R", "select[mem>2147] rusage[mem=2147]", "-M", "2147", "true"});
  EXPECT_EQ(r.out, "Job <2> is submitted to default queue <normal>.\n");
  // -oo is -o "o", so the file name becomes the command.
  ASSERT_EQ(Lsf("bsub", {"-oo", "out.log", "true"}).exit_code, 0);
  EXPECT_EQ(Lsf("bjobs", {"-o", "job_name", "3"}).out, "JOB_NAME\nout.log true\n");
}

TEST_F(OpenlavaTest, EmptyAnswers) {
  // tests/realsched/captures/bjobs-json-nojobs.txt: -json exits 255 when
  // no job is printed, and checks no field name then.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-o", "jobid stat", "-json"},
        std::vector<std::string>{"-a", "-o", "jobid stat", "-json"},
        std::vector<std::string>{"-a", "-o", "jobid exit_code", "-json"}}) {
    ProcessResult r = Lsf("bjobs", args);
    EXPECT_EQ(r.exit_code, 255);
    EXPECT_EQ(r.out, kEmptyJson);
    EXPECT_EQ(r.err, "");
  }
  ExpectRefused({"-w"}, 254, "No unfinished job found\n");
}

TEST_F(OpenlavaTest, FieldsVolclavaLacksExit99) {
  TwoFinishedJobs();
  // tests/realsched/captures/bjobs-o-errors.txt
  ExpectRefused({"-a", "-o", "jobid exit_code", "-json", "1"}, 99,
                "<EXIT_CODE> in the format string is not a valid field name.\n");
  ExpectRefused({"-a", "-o", "jobid exit_reason", "-json", "1"}, 99,
                "<EXIT_REASON> in the format string is not a valid field name.\n");
  ExpectRefused({"-a", "-o", "jobid pend_reason", "-json", "1"}, 99,
                "<PEND_REASON> in the format string is not a valid field name.\n");
  ExpectRefused({"-a", "-o", "jobid jobindex", "-json", "1"}, 99,
                "<JOBINDEX> in the format string is not a valid field name.\n");
  ExpectRefused({"-a", "-o", "jobid slots", "-json", "1"}, 99,
                "<SLOTS> in the format string is not a valid field name.\n");
  ExpectRefused({"-a", "-o", "jobid job_description", "-json", "1"}, 99,
                "<JOB_DESCRIPTION> in the format string is not a valid field name.\n");
  ExpectRefused({"-a", "-o", "jobid,stat", "-json", "1"}, 99,
                "<JOBID,STAT> in the format string is not a valid field name.\n");
  ExpectRefused({"-a", "-w", "-o", "jobid stat", "-json", "1"}, 255, kBjobsUsage);
  ExpectRefused({"-a", "-json", "1"}, 255, kBjobsUsage);
  ExpectRefused({"-o", "stat", "-noheader", "1"}, 255,
                std::string("bjobs: invalid option -- 'n'\n") + kBjobsUsage);
  const char* one_done =
      "{\n"
      "\t\"COMMAND\":\t\"bjobs\",\n"
      "\t\"JOBS\":\t1,\n"
      "\t\"RECORDS\":\t[{\n"
      "\t\t\t\"JOBID\":\t\"1\",\n"
      "\t\t\t\"STAT\":\t\"DONE\"\n"
      "\t\t}]\n"
      "}\n";
  EXPECT_EQ(Lsf("bjobs", {"-a", "-o", "JOBID Stat", "-json", "1"}).out, one_done);
  EXPECT_EQ(Lsf("bjobs", {"-a", "-o", "jobid stat jobid", "-json", "1"}).out, one_done);
}

TEST_F(OpenlavaTest, UnknownIdsAndTheOrderOfRecords) {
  TwoFinishedJobs();
  // tests/realsched/captures/bjobs-json-unknown.txt
  ProcessResult r = Lsf("bjobs", {"-a", "-o", "jobid stat", "-json", "999999"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.out,
            "{\n\t\"COMMAND\":\t\"bjobs\",\n\t\"JOBS\":\t1,\n\t\"RECORDS\":\t[{\n"
            "\t\t\t\"JOBID\":\t\"999999\",\n"
            "\t\t\t\"ERROR\":\t\"Job <999999> is not found\"\n"
            "\t\t}]\n}\n");
  r = Lsf("bjobs", {"-a", "-o", "jobid stat", "-json", "999999", "1", "2"});
  EXPECT_EQ(r.exit_code, 0);  // one found: volclava exits 0, LSF 10.1 255
  // Finished jobs in the order they ended, then the unknown ids.
  EXPECT_EQ(r.out,
            "{\n\t\"COMMAND\":\t\"bjobs\",\n\t\"JOBS\":\t3,\n\t\"RECORDS\":\t[{\n"
            "\t\t\t\"JOBID\":\t\"2\",\n"
            "\t\t\t\"STAT\":\t\"EXIT\"\n"
            "\t\t}, {\n"
            "\t\t\t\"JOBID\":\t\"1\",\n"
            "\t\t\t\"STAT\":\t\"DONE\"\n"
            "\t\t}, {\n"
            "\t\t\t\"JOBID\":\t\"999999\",\n"
            "\t\t\t\"ERROR\":\t\"Job <999999> is not found\"\n"
            "\t\t}]\n}\n");
  EXPECT_EQ(Lsf("bjobs", {"-a", "-o", "jobid stat", "-json", "999998", "999999"}).exit_code, 255);
  ExpectRefused({"999999"}, 255, "Job <999999> is not found\n");
  ExpectRefused({"-a", "-o", "jobid stat", "999999"}, 255, "Job <999999> is not found\n");
}

TEST_F(OpenlavaTest, ValuesAsVolclavaPrintsThem) {
  TwoFinishedJobs();
  ASSERT_EQ(Lsf("bsub", {"-q", "tiny_missing_is_fine", "true"}).exit_code, 255);
  ASSERT_EQ(Lsf("bsub", {"-q", "inactq", "sleep", "60"}).exit_code, 0);  // stays pending
  std::string fields =
      "jobid stat user queue from_host exec_host job_name submit_time proj_name cpu_used mem "
      "swap pids start_time finish_time";
  ProcessResult r = Lsf("bjobs", {"-a", "-o", fields, "1", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The layout of tests/realsched/captures/bjobs-json-pend-run.txt (text).
  EXPECT_EQ(r.out,
            "JOBID STAT USER QUEUE FROM_HOST EXEC_HOST JOB_NAME SUBMIT_TIME PROJ_NAME CPU_USED MEM "
            "SWAP PIDS START_TIME FINISH_TIME\n"
            "4 PEND " +
                user_ +
                " inactq submit01 - sleep 60 Nov 30 11:40 default 000:00:00.00 0 0 - - -\n"
                "1 DONE " +
                user_ +
                " short submit01 node01 sleep 1 Nov 30 11:40 default 000:00:00.00 0 0 - "
                "11/30-11:40:00 11/30-11:40:02\n");
  ProcessResult json = Lsf("bjobs", {"-o", "exec_host job_name", "-json", "4"});
  EXPECT_NE(json.out.find("\t\t\t\"EXEC_HOST\":\t\"\",\n\t\t\t\"JOB_NAME\":\t\"sleep 60\"\n"),
            std::string::npos)
      << json.out;
  // bsub quoted the argument with a blank as OpenLava's bsub does.
  EXPECT_EQ(Lsf("bjobs", {"-a", "-o", "job_name", "2"}).out, "JOB_NAME\nsh -c \"exit 3\"\n");
}

TEST_F(OpenlavaTest, BjobsLongIsNotCut) {
  TwoFinishedJobs();
  ProcessResult r = Lsf("bjobs", {"-l", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The layout of tests/testdata/lsf/openlava/bjobs_l_exit3.txt; bsub ran
  // in the test's directory.
  std::string cwd = std::filesystem::current_path().string();
  struct passwd* pw = ::getpwnam(user_.c_str());
  std::string home = pw != nullptr ? pw->pw_dir : "/";
  std::string shown = cwd.rfind(home + "/", 0) == 0 ? "$HOME" + cwd.substr(home.size()) : cwd;
  EXPECT_EQ(r.out,
            "\n"
            "Job <2>, User <" +
                user_ +
                ">, Project <default>, Status <EXIT>, Queue <short>, Command <sh -c \"exit "
                "3\">\n"
                "Sun Nov 30 11:40:00: Submitted from host <submit01>, CWD <" +
                shown +
                ">;\n"
                "Sun Nov 30 11:40:00: Started on <node01>, Execution Home <" +
                home + ">, Execution CWD <" + cwd +
                ">;\n"
                "Sun Nov 30 11:40:01: Exited with exit code 3. The CPU time used is 0.0 "
                "seconds.\n"
                "\n"
                " SCHEDULING PARAMETERS:\n"
                "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem\n"
                " loadSched   -     -     -     -       -     -    -     -     -      -      -  \n"
                " loadStop    -     -     -     -       -     -    -     -     -      -      -  \n"
                "\n"
                " RESOURCE REQUIREMENT DETAILS:\n"
                " Combined: select[type == local] order[r15s:pg]\n"
                " Effective: select[type == local] order[r15s:pg]\n"
                "\n");
}

TEST_F(OpenlavaTest, NoBparamsAllNoShowconfNoBacct) {
  // The volclava captures (docs/lsf-formats.md "Sources"): `bparams`; volclava's bparams.c and
  // lsadmin.c.
  EXPECT_EQ(Lsf("bparams", {}).out,
            "Default Queues:  normal\n"
            "Job Dispatch Interval:  5 seconds\n"
            "Job Checking Interval:  5 seconds\n"
            "Job Accepting Interval:  0 seconds\n");
  ProcessResult r = Lsf("bparams", {"-a"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "bparams: invalid option -- 'a'\nUsage: bparams [-h] [-V] [-l]\n");
  r = Lsf("lsadmin", {"showconf", "lim"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err.rfind("Invalid command <showconf> \n\nUsage: lsadmin [-h] [-V] [command] "
                        "[command_options] [command_args]\n\n    where 'command' is:\n\n"
                        "    reconfig    Reconfigure LSF\n",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(Lsf("bacct", {"-l", "1"}).exit_code, 127);
}

}  // namespace
}  // namespace bplace::lsfsim::testing
