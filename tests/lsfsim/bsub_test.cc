// bsub's option parsing (pure) and what the job table records (real binary).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/bsub_options.h"
#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

TEST(BsubOptionsTest, ReadsMultiLetterValueOptionsWhole) {
  // Each of these would be a one-letter option with a glued value if it
  // were not matched whole first (-env as -e "nv", -Jd as -J "d", ...).
  for (const char* option :
       {"-env", "-clusters", "-app",     "-alloc_flags", "-cn_cu", "-cn_mem", "-core_isolation",
        "-csm", "-data",     "-datagrp", "-eptl",        "-ext",   "-freq",   "-gpu",
        "-jsm", "-network",  "-outdir",  "-ptl",         "-sla",   "-sp",     "-wa",
        "-wt",  "-Ep",       "-eo",      "-oo",          "-Lp",    "-We",     "-is",
        "-cwd", "-Jd"}) {
    BsubRequest request = ParseBsub({option, "VALUE", "sleep", "1"});
    EXPECT_FALSE(request.bad_usage) << option << ": " << request.usage_error;
    EXPECT_EQ(request.options.size(), 1u) << option;
    EXPECT_EQ(request.options[option], "VALUE") << option;
    EXPECT_EQ(request.command_words, (std::vector<std::string>{"sleep", "1"})) << option;
  }
}

TEST(BsubOptionsTest, FlagOptionsTakeNoValue) {
  for (const char* option : {"-hl", "-Ne", "-rn", "-ul", "-x", "-B", "-N", "-r", "-ar", "-XF"}) {
    BsubRequest request = ParseBsub({option, "sleep", "1"});
    EXPECT_FALSE(request.bad_usage) << option;
    EXPECT_TRUE(request.options.contains(option)) << option;
    EXPECT_EQ(request.command_words, (std::vector<std::string>{"sleep", "1"})) << option;
  }
}

TEST(BsubOptionsTest, OneLetterOptionsMayCarryAGluedValue) {
  BsubRequest request = ParseBsub({"-n4", "-qshort", "-Rselect[mem>1]", "true"});
  EXPECT_FALSE(request.bad_usage);
  EXPECT_EQ(request.options["-n"], "4");
  EXPECT_EQ(request.options["-q"], "short");
  EXPECT_EQ(request.res_reqs, (std::vector<std::string>{"select[mem>1]"}));
}

TEST(BsubOptionsTest, KeepsEveryResourceRequirementInOrder) {
  BsubRequest request =
      ParseBsub({"-R", "select[mem>1]", "-R", "span[hosts=1]", "-R", "order[ut]", "true"});
  EXPECT_EQ(request.res_reqs,
            (std::vector<std::string>{"select[mem>1]", "span[hosts=1]", "order[ut]"}));
}

TEST(BsubOptionsTest, UnknownOptionIsBadUsage) {
  BsubRequest request = ParseBsub({"-yes", "true"});
  EXPECT_TRUE(request.bad_usage);
  EXPECT_EQ(request.usage_error, "bsub: illegal option -- yes\n");
  request = ParseBsub({"-env"});
  EXPECT_TRUE(request.bad_usage);
  EXPECT_EQ(request.usage_error, "bsub: option requires an argument -- env\n");
}

class BsubTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    Init(kTestCluster);
  }

  nlohmann::json OnlyJob() {
    ProcessResult r = Sim({"jobs"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json jobs = nlohmann::json::parse(r.out)["jobs"];
    EXPECT_EQ(jobs.size(), 1u);
    return jobs.empty() ? nlohmann::json::object() : jobs[0];
  }
};

TEST_F(BsubTest, RecordsEveryResourceRequirement) {
  ProcessResult r =
      Lsf("bsub", {"-q", "short", "-R", "select[mem>1000]", "-R", "span[hosts=1]", "sleep", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(OnlyJob()["res_reqs"], nlohmann::json::array({"select[mem>1000]", "span[hosts=1]"}));
}

TEST_F(BsubTest, RejectsWhenAnyResourceRequirementIsBad) {
  ProcessResult r = Lsf("bsub", {"-q", "short", "-R", "select[mem>1]", "-R", "span[[", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Bad resource requirement syntax. Job not submitted.\n");
}

TEST_F(BsubTest, EnvAllIsAnOptionNotTheCommand) {
  ProcessResult r =
      Lsf("bsub", {"-q", "short", "-env", "all", "-Jd", "bplace:t1", "-J", "exact name", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json job = OnlyJob();
  EXPECT_EQ(job["options"]["-env"], "all");
  EXPECT_FALSE(job["options"].contains("-e"));
  EXPECT_EQ(job["command"], "true");
  EXPECT_EQ(job["description"], "bplace:t1");
  EXPECT_EQ(job["name"], "exact name");
}

TEST(EmbeddedBsubArgsTest, ReadsEveryBsubLineAsBsubDoes) {
  EXPECT_EQ(EmbeddedBsubArgs("#!/bin/sh\n#BSUB -W 10\n# BSUB -J 'a b'\necho\n#BSUB-q x # c\n"),
            (std::vector<std::string>{"-W", "10", "-J", "a b", "-q", "x"}));
  EXPECT_EQ(EmbeddedBsubArgs("#BSUB note\n#BSUBX -q a\necho #BSUB -q b\n"),
            std::vector<std::string>{});
  EXPECT_EQ(EmbeddedBsubArgs("#BSUB -W 10 \\\n -n 2\r\n"),
            (std::vector<std::string>{"-W", "10", "-n", "2"}));
}

TEST_F(BsubTest, AppliesTheScriptsOptionsNotOnTheCommandLine) {
  ProcessResult r =
      Lsf("bsub", {"-q", "short", "-J", "cli"},
          "#!/bin/sh\n#BSUB -q normal\n#BSUB -J script -W 10\n#BSUB -R span[hosts=1]\necho hi\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is submitted to queue <short>.\n");
  nlohmann::json job = OnlyJob();
  EXPECT_EQ(job["name"], "cli");
  EXPECT_EQ(job["options"]["-W"], "10");
  EXPECT_EQ(job["res_reqs"], nlohmann::json::array({"span[hosts=1]"}));
}

TEST_F(BsubTest, ScriptMayChooseTheQueueAndMakeAnArray) {
  ProcessResult r = Lsf("bsub", {}, "#BSUB -q normal -J \"arr[1-3]\"\necho hi\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is submitted to queue <normal>.\n");
  nlohmann::json jobs = nlohmann::json::parse(Sim({"jobs"}).out)["jobs"];
  EXPECT_EQ(jobs.size(), 3u);
}

TEST_F(BsubTest, ABadScriptOptionIsBadUsage) {
  ProcessResult r = Lsf("bsub", {"-q", "short"}, "#BSUB -yes\necho hi\n");
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err.rfind("bsub: illegal option -- yes\n", 0), 0u) << r.err;
}

}  // namespace
}  // namespace bplace::lsfsim::testing
