// The cluster's family from lsid, its memory units from lsf.conf, and the
// conversions an OpenLava-family bsub needs (lsf_adapter/lsf_dialect.h,
// lsf_adapter/openlava_bsub.h).

#include "lsf_adapter/lsf_dialect.h"

#include <gtest/gtest.h>

#include "lsf_adapter/openlava_bsub.h"

namespace bplace::lsf {
namespace {

TEST(LsfFamily, VolclavaAndOpenlavaBannersAreTheOpenlavaFamily) {
  EXPECT_EQ(FamilyOfLsidVersion("volclava project 2.2, Nov 30 2026"), LsfFamily::kOpenlava);
  EXPECT_EQ(FamilyOfLsidVersion("openLava project 4.0.0, Jun 1 2016"), LsfFamily::kOpenlava);
  EXPECT_EQ(FamilyOfLsidVersion("IBM Spectrum LSF Standard 10.1.0.13, Jun 03 2022"),
            LsfFamily::kIbmLsf);
  EXPECT_EQ(FamilyOfLsidVersion("Platform LSF 9.1.3.0, Jul 04 2014"), LsfFamily::kIbmLsf);
  EXPECT_EQ(FamilyOfLsidVersion(""), LsfFamily::kIbmLsf);  // lsid has not answered
}

TEST(LimitUnits, LsfDefaultsWithoutTheParameter) {
  const auto units = LimitUnitsFromLsfConf("LSF_CLUSTER_NAME=c\n# LSF_UNIT_FOR_LIMITS=GB\n");
  ASSERT_TRUE(units);
  EXPECT_EQ(units->limits, MemoryUnit::kKB);
  EXPECT_EQ(units->resources, MemoryUnit::kMB);
  EXPECT_FALSE(units->from_lsf_conf);
}

TEST(LimitUnits, TheParameterSetsBothUnits) {
  const auto units = LimitUnitsFromLsfConf("LSF_UNIT_FOR_LIMITS = \"mb\"\n");
  ASSERT_TRUE(units);
  EXPECT_EQ(units->limits, MemoryUnit::kMB);
  EXPECT_EQ(units->resources, MemoryUnit::kMB);
  EXPECT_TRUE(units->from_lsf_conf);
}

TEST(LimitUnits, AValueLsfDoesNotKnowIsNamed) {
  const auto units = LimitUnitsFromLsfConf("LSF_UNIT_FOR_LIMITS=MiB\n");
  ASSERT_FALSE(units);
  EXPECT_NE(units.error().message.find("LSF_UNIT_FOR_LIMITS=MiB"), std::string::npos);
}

TEST(MemoryInUnit, UnitsAreConvertedAndRoundedUp) {
  EXPECT_EQ(*MemoryInUnit("100MB", MemoryUnit::kKB, MemoryUnit::kKB), 102400);
  EXPECT_EQ(*MemoryInUnit("2G", MemoryUnit::kKB, MemoryUnit::kKB), 2097152);
  EXPECT_EQ(*MemoryInUnit("2147MB", MemoryUnit::kKB, MemoryUnit::kMB), 2147);
  EXPECT_EQ(*MemoryInUnit("1.5gb", MemoryUnit::kKB, MemoryUnit::kMB), 1536);
  EXPECT_EQ(*MemoryInUnit("100KB", MemoryUnit::kKB, MemoryUnit::kMB), 1);  // never less
  EXPECT_EQ(*MemoryInUnit("512", MemoryUnit::kKB, MemoryUnit::kKB), 512);  // bare: as given
  EXPECT_EQ(*MemoryInUnit("4", MemoryUnit::kGB, MemoryUnit::kMB), 4096);
}

TEST(MemoryInUnit, WhatIsNotAnAmountIsRefusedByName) {
  for (const char* bad : {"", "MB", "100XB", "100MiB", "0", "0MB", "-5", "1e9"}) {
    const auto amount = MemoryInUnit(bad, MemoryUnit::kKB, MemoryUnit::kKB);
    ASSERT_FALSE(amount) << bad;
    EXPECT_NE(amount.error().message.find(std::string("'") + bad + "'"), std::string::npos);
  }
  EXPECT_FALSE(MemoryInUnit("99999999999ZB", MemoryUnit::kKB, MemoryUnit::kKB));
}

TEST(ResReqMemoryInUnit, ToilsRequirementLosesItsUnits) {
  EXPECT_EQ(*ResReqMemoryInUnit("select[mem>2147MB] rusage[mem=2147MB]", MemoryUnit::kMB),
            "select[mem>2147] rusage[mem=2147]");
  EXPECT_EQ(*ResReqMemoryInUnit("rusage[mem=2G:swp=1G] select[tmp >= 10GB]", MemoryUnit::kMB),
            "rusage[mem=2048:swp=1024] select[tmp >= 10240]");
}

TEST(ResReqMemoryInUnit, BareValuesAndOtherResourcesStayAsTheyAre) {
  for (const char* kept : {"rusage[mem=2000]", "span[hosts=1]", "select[ib_ok==1]",
                           "select[maxmem>100 && type==X86_64]", "order[-mem]"}) {
    EXPECT_EQ(*ResReqMemoryInUnit(kept, MemoryUnit::kMB), kept);
  }
}

TEST(ResReqMemoryInUnit, ABadAmountIsNamed) {
  const auto res_req = ResReqMemoryInUnit("rusage[mem=2XB]", MemoryUnit::kMB);
  ASSERT_FALSE(res_req);
  EXPECT_NE(res_req.error().message.find("'2XB'"), std::string::npos);
}

// Toil 5.9.2's bsub line (toil/batchSystems/lsf.py prepareBsub).
BsubOptions ToilOptions() {
  BsubOptions options;
  options.queue = "normal";
  options.description = "bplace:t";
  options.job_name = "toil_job_3";
  options.cwd = ".";
  options.resources = {"select[mem>2147MB] rusage[mem=2147MB]"};
  options.memory = "2147MB";
  options.slots = 1;
  options.output = "/w/toil_job_3.%J.out";
  options.error = "/w/toil_job_3.%J.err";
  options.command = "_toil_worker child file:/w/js kind-child/instance-x";
  return options;
}

TEST(RespellBsubForOpenlava, ToilsLineBecomesOneVolclavaTakes) {
  auto respelled = RespellBsubForOpenlava(ToilOptions(), LimitUnits{});
  ASSERT_TRUE(respelled) << respelled.error().message;
  EXPECT_EQ(respelled->run_in, ".");
  const std::vector<std::string> argv = BuildBsubArgv("bsub", respelled->options);
  const std::vector<std::string> expected = {"bsub",
                                             "-q",
                                             "normal",
                                             "-Jd",
                                             "bplace:t",
                                             "-J",
                                             "toil_job_3",
                                             "-n",
                                             "1",
                                             "-R",
                                             "select[mem>2147] rusage[mem=2147]",
                                             "-o",
                                             "/w/toil_job_3.%J.out",
                                             "-e",
                                             "/w/toil_job_3.%J.err",
                                             "-M",
                                             "2198528",
                                             "_toil_worker child file:/w/js kind-child/instance-x"};
  EXPECT_EQ(argv, expected);
}

TEST(RespellBsubForOpenlava, TheClustersUnitIsUsed) {
  LimitUnits units;
  units.limits = MemoryUnit::kMB;
  units.resources = MemoryUnit::kMB;
  auto respelled = RespellBsubForOpenlava(ToilOptions(), units);
  ASSERT_TRUE(respelled);
  EXPECT_EQ(respelled->options.memory, "2147");
}

TEST(RespellBsubForOpenlava, ResourcesInExtraArgsAndTheDaemonsAreRespelled) {
  BsubOptions options = ToilOptions();
  options.extra_args = {"-R", "rusage[mem=1G]", "-x"};
  options.daemon_resources = "select[mem>1GB]";
  auto respelled = RespellBsubForOpenlava(options, LimitUnits{});
  ASSERT_TRUE(respelled);
  EXPECT_EQ(respelled->options.extra_args,
            (std::vector<std::string>{"-R", "rusage[mem=1024]", "-x"}));
  EXPECT_EQ(respelled->options.daemon_resources, "select[mem>1024]");
}

TEST(RespellBsubForOpenlava, OptionsVolclavaLacksAreRefusedByName) {
  for (const char* flag : {"-G", "-env", "-oo", "-eo", "-gpu", "-sla"}) {
    BsubOptions options = ToilOptions();
    options.extra_args = {flag, "value"};
    const auto respelled = RespellBsubForOpenlava(options, LimitUnits{});
    ASSERT_FALSE(respelled) << flag;
    EXPECT_EQ(respelled.error().code, ErrorCode::kRejected);
    EXPECT_NE(respelled.error().message.find(std::string("bsub ") + flag + ":"), std::string::npos);
  }
  BsubOptions options = ToilOptions();
  options.app = "fluent";
  EXPECT_FALSE(RespellBsubForOpenlava(options, LimitUnits{}));
}

TEST(RespellBsubForOpenlava, ABadMemoryLimitIsNamed) {
  BsubOptions options = ToilOptions();
  options.memory = "lots";
  const auto respelled = RespellBsubForOpenlava(options, LimitUnits{});
  ASSERT_FALSE(respelled);
  EXPECT_NE(respelled.error().message.find("-M: memory amount 'lots'"), std::string::npos);
}

// A stdin script in the style of Nextflow's (#BSUB lines, units as
// Nextflow >= 26.02 writes them).
constexpr char kScript[] =
    "#!/bin/bash\n"
    "#BSUB -o /w/.command.log\n"
    "#BSUB -n 2 -M 2048MB\n"
    "#BSUB -R \"select[mem>=2048MB] rusage[mem=2048MB]\"\n"
    "#BSUB -cwd /w/work\n"
    "#BSUB -W 60 \\\n"
    "  -cwd /w/other\n"
    "echo -M 5GB\n";

TEST(RespellScriptForOpenlava, UnitsAreRespelledAndCwdMovesOutOfTheScript) {
  OpenlavaBsub respelled;
  auto script = RespellScriptForOpenlava(kScript, LimitUnits{}, respelled);
  ASSERT_TRUE(script) << script.error().message;
  EXPECT_EQ(*script,
            "#!/bin/bash\n"
            "#BSUB -o /w/.command.log\n"
            "#BSUB -n 2 -M 2097152\n"
            "#BSUB -R \"select[mem>=2048] rusage[mem=2048]\"\n"
            "# bplace: #BSUB -cwd moved to bsub's working directory\n"
            "#BSUB -W 60\n"
            "#\n"
            "echo -M 5GB\n");
  // bsub reads the lines in order: the last -cwd counts.
  EXPECT_EQ(respelled.run_in, "/w/other");
}

TEST(RespellScriptForOpenlava, TheCommandLinesCwdWinsAndPlainScriptsStayAsTheyAre) {
  OpenlavaBsub respelled;
  respelled.run_in = "/from/the/command/line";
  auto script =
      RespellScriptForOpenlava("#BSUB -cwd /w\n#BSUB -q x\nrun\r\n", LimitUnits{}, respelled);
  ASSERT_TRUE(script) << script.error().message;
  EXPECT_EQ(respelled.run_in, "/from/the/command/line");
  EXPECT_EQ(*script, "# bplace: #BSUB -cwd moved to bsub's working directory\n#BSUB -q x\nrun\r\n");
  const std::string plain = "#!/bin/sh\n#BSUB -n 4\n#BSUB -M 2048\ntrue";
  script = RespellScriptForOpenlava(plain, LimitUnits{}, respelled);
  ASSERT_TRUE(script);
  EXPECT_EQ(*script, plain);
}

TEST(RespellScriptForOpenlava, OptionsVolclavaLacksAreRefusedByName) {
  OpenlavaBsub respelled;
  auto script = RespellScriptForOpenlava("#BSUB -G grp\ntrue\n", LimitUnits{}, respelled);
  ASSERT_FALSE(script);
  EXPECT_EQ(script.error().code, ErrorCode::kRejected);
  EXPECT_NE(script.error().message.find("bsub -G:"), std::string::npos);
  script = RespellScriptForOpenlava("#BSUB -M lots\n", LimitUnits{}, respelled);
  ASSERT_FALSE(script);
  EXPECT_NE(script.error().message.find("#BSUB -M: memory amount 'lots'"), std::string::npos);
}

}  // namespace
}  // namespace bplace::lsf
