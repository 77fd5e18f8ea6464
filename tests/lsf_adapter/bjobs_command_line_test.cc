#include "lsf_adapter/bjobs_command_line.h"

#include <gtest/gtest.h>

#include "tests/lsf_adapter/command_line_parse.h"

namespace bplace::lsf {
namespace {

using testing::ParsedBjobsLine;

TEST(ParseBjobsCommandLineTest, ReadsTheEnginesForms) {
  // Snakemake 7 profile.
  BjobsCommandLine line = ParsedBjobsLine({"-o", "stat", "-noheader", "42"});
  EXPECT_EQ(line.format, "stat");
  EXPECT_TRUE(line.noheader);
  EXPECT_EQ(line.ids, std::vector<std::string>{"42"});
  // Toil.
  line =
      ParsedBjobsLine({"-json", "-o", "user exit_code stat exit_reason pend_reason", "7", "8[2]"});
  EXPECT_TRUE(line.json);
  EXPECT_EQ(line.ids, (std::vector<std::string>{"7", "8[2]"}));
  // Snakemake 8: -a and -J bundled.
  line = ParsedBjobsLine({"-noheader", "-o", "jobid stat", "-aJ", "*uuid*"});
  EXPECT_EQ(line.state_filter, 'a');
  EXPECT_EQ(line.job_name, "*uuid*");
  // Nextflow, Open OnDemand.
  line = ParsedBjobsLine({"-w", "-q", "short"});
  EXPECT_TRUE(line.wide);
  EXPECT_EQ(line.queue, "short");
  line = ParsedBjobsLine({"-uall", "-aw"});
  EXPECT_EQ(line.user, "all");
  EXPECT_TRUE(line.wide);
  // ERT passes "-o exit_code" as ONE word.
  line = ParsedBjobsLine({"-o exit_code", "-noheader", "9"});
  EXPECT_EQ(line.format, " exit_code");
}

TEST(ParseBjobsCommandLineTest, ReadsTheLongFormOfJobIds) {
  BjobsCommandLine line = ParsedBjobsLine({"-l", "12"});
  EXPECT_TRUE(line.long_form);
  EXPECT_EQ(line.ids, std::vector<std::string>{"12"});
  line = ParsedBjobsLine({"-al", "12", "13[2]"});  // Toil and Galaxy: bjobs -l ID
  EXPECT_TRUE(line.long_form);
  EXPECT_EQ(line.ids.size(), 2u);
}

TEST(ParseBjobsCommandLineTest, LeavesOtherFormsToTheRealBjobs) {
  EXPECT_FALSE(ParseBjobsCommandLine({"-l"}));  // a list in the long form
  EXPECT_FALSE(ParseBjobsCommandLine({"-l", "-u", "all"}));
  EXPECT_FALSE(ParseBjobsCommandLine({"-l", "-o", "stat", "12"}));
  EXPECT_FALSE(ParseBjobsCommandLine({"-lw", "12"}));
  EXPECT_FALSE(ParseBjobsCommandLine({"-UF"}));
  EXPECT_FALSE(ParseBjobsCommandLine({"-m", "host1"}));
  EXPECT_FALSE(ParseBjobsCommandLine({"-json"}));  // LSF refuses -json without -o
  EXPECT_FALSE(ParseBjobsCommandLine({"-u"}));     // no value
  EXPECT_FALSE(ParseBjobsCommandLine({"-al"}));    // -l inside a bundle
}

TEST(ParseBjobsFormatTest, ReadsAliasesWidthsAndDelimiter) {
  auto format = ParseBjobsFormat("id stat:  exec_host:-20 job_name: delimiter='^'");
  ASSERT_TRUE(format) << format.error().message;
  ASSERT_EQ(format->columns.size(), 4u);
  EXPECT_EQ(format->columns[0].field, "jobid");
  EXPECT_EQ(format->columns[0].width, 0);
  EXPECT_EQ(format->columns[1].width, 5);  // LSF's recommended width
  EXPECT_EQ(format->columns[2].width, 20);
  EXPECT_TRUE(format->columns[2].right);
  EXPECT_EQ(format->columns[3].header, "JOB_NAME");
  EXPECT_EQ(format->delimiter, "^");
}

TEST(ParseBjobsFormatTest, RefusesFieldsTheJobsTierDoesNotHold) {
  EXPECT_FALSE(ParseBjobsFormat("jobid max_mem"));
  EXPECT_FALSE(ParseBjobsFormat("nosuchfield"));
  EXPECT_FALSE(ParseBjobsFormat("stat:0"));
  EXPECT_FALSE(ParseBjobsFormat("   "));
}

TEST(JobNamePatternMatchesTest, StarMatchesAnyRun) {
  EXPECT_TRUE(JobNamePatternMatches("*uuid*", "Snakemake_rule_a___(uuid)"));
  EXPECT_TRUE(JobNamePatternMatches("align", "align"));
  EXPECT_FALSE(JobNamePatternMatches("align", "align2"));
  EXPECT_TRUE(JobNamePatternMatches("a*", "a"));
  EXPECT_FALSE(JobNamePatternMatches("*a*a*a*a*b", std::string(5000, 'a')));
}

}  // namespace
}  // namespace bplace::lsf
