#include "lsf_adapter/bsub_command_line.h"

#include <gtest/gtest.h>

#include "tests/lsf_adapter/command_line_parse.h"

namespace bplace::lsf {
namespace {

using testing::ParsedBsubLine;

TEST(ParseBsubCommandLineTest, ReadsToilsArgvAsBsubDoes) {
  const BsubCommandLine line =
      ParsedBsubLine({"-cwd", ".", "-J", "toil_job_3", "-R", "select[mem>100MB] rusage[mem=100MB]",
                      "-M", "100MB", "-n", "1", "-o", "/tmp/toil.%J.out.log", "-e",
                      "/tmp/toil.%J.err.log", "_toil_worker run --flag x"});
  EXPECT_EQ(line.Last("-cwd"), ".");
  EXPECT_EQ(line.Last("-J"), "toil_job_3");
  EXPECT_EQ(line.Last("-M"), "100MB");
  EXPECT_EQ(line.Last("-o"), "/tmp/toil.%J.out.log");
  ASSERT_EQ(line.command.size(), 1u);
  EXPECT_EQ(line.command[0], "_toil_worker run --flag x");
}

TEST(ParseBsubCommandLineTest, GluedValuesKeepTheirBlanks) {
  // miniwdl passes "-R span[hosts=1]" as ONE argv word.
  const BsubCommandLine line = ParsedBsubLine({"-n4", "-R span[hosts=1]", "-qshort", "sleep", "1"});
  EXPECT_EQ(line.Last("-n"), "4");
  EXPECT_EQ(line.Values("-R"), std::vector<std::string>{" span[hosts=1]"});
  EXPECT_EQ(line.Last("-q"), "short");
  EXPECT_EQ(line.command, (std::vector<std::string>{"sleep", "1"}));
}

TEST(ParseBsubCommandLineTest, RepeatedResourceOptionsAreAllKept) {
  const BsubCommandLine line = ParsedBsubLine(
      {"-R", "rusage[mem=2000.0]", "-R", "span[hosts=1]", "-R", "select[x]", "true"});
  EXPECT_EQ(line.Values("-R"),
            (std::vector<std::string>{"rusage[mem=2000.0]", "span[hosts=1]", "select[x]"}));
}

TEST(ParseBsubCommandLineTest, OptionsAfterTheCommandAreTheCommands) {
  const BsubCommandLine line = ParsedBsubLine({"-q", "a b", "myprog", "-q", "-n", "2"});
  EXPECT_EQ(line.Last("-q"), "a b");
  EXPECT_FALSE(line.Last("-n"));
  EXPECT_EQ(line.command, (std::vector<std::string>{"myprog", "-q", "-n", "2"}));
}

TEST(ParseBsubCommandLineTest, AValueIsTakenWhateverItLooksLike) {
  const BsubCommandLine line = ParsedBsubLine({"-J", "-x", "true"});
  EXPECT_EQ(line.Last("-J"), "-x");
}

TEST(ParseBsubCommandLineTest, NoCommandMeansAScriptOnStdin) {
  const BsubCommandLine line = ParsedBsubLine({"-q", "short"});
  EXPECT_TRUE(line.command.empty());
}

TEST(ParseBsubCommandLineTest, BlockingOptionsAreFlagged) {
  EXPECT_TRUE(ParsedBsubLine({"-Is", "bash"}).Has(BsubOptionUse::kBlocking));
  EXPECT_TRUE(ParsedBsubLine({"-K", "-q", "x", "true"}).Has(BsubOptionUse::kBlocking));
  EXPECT_FALSE(ParsedBsubLine({"-B", "true"}).Has(BsubOptionUse::kBlocking));
}

TEST(ParseBsubCommandLineTest, RefusesWhatItCannotReadLikeBsub) {
  EXPECT_FALSE(ParseBsubCommandLine({"-yes", "x"}));
  EXPECT_FALSE(ParseBsubCommandLine({"-q"}));            // no value
  EXPECT_FALSE(ParseBsubCommandLine({"--", "true"}));    // no end-of-options in bsub
  EXPECT_FALSE(ParseBsubCommandLine({"-Jdx", "true"}));  // -J "dx" or -Jd "x"
  EXPECT_FALSE(ParseBsubCommandLine({"-Isx", "true"}));  // -I takes no value
  const auto ambiguous = ParseBsubCommandLine({"-cwdx", "true"});
  ASSERT_FALSE(ambiguous);
  EXPECT_NE(ambiguous.error().message.find("-cwdx"), std::string::npos);
}

TEST(BsubCommandStringTest, JoinsTheWordsAsBsubWritesTheJobsCommand) {
  EXPECT_EQ(BsubCommandString({"sleep", "60"}), "sleep 60");
  EXPECT_EQ(BsubCommandString({"sh", "-c", "exit 3"}), "sh -c \"exit 3\"");
  EXPECT_EQ(BsubCommandString({"echo", "say \"hi\" now"}), "echo 'say \"hi\" now'");
  EXPECT_EQ(BsubCommandString({"echo", "$HOME", "a(b)"}), "echo '$HOME' a\\(b\\)");
  // The first word stays as it is: an engine's whole command string.
  EXPECT_EQ(BsubCommandString({"_toil_worker run 'x y'"}), "_toil_worker run 'x y'");
  EXPECT_EQ(BsubCommandString({}), "");
}

TEST(SplitArrayJobNameTest, SplitsNameIndexListAndLimit) {
  auto parts = SplitArrayJobName("nf-x[1-10]%5");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->name, "nf-x");
  EXPECT_EQ(parts->index_list, "1-10");
  EXPECT_EQ(parts->limit, "5");
  parts = SplitArrayJobName("a[1,3]");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->index_list, "1,3");
  EXPECT_EQ(parts->limit, "");
  EXPECT_FALSE(SplitArrayJobName("plain"));
  EXPECT_FALSE(SplitArrayJobName("a[1-3"));
  EXPECT_FALSE(SplitArrayJobName("a[1-3]x"));
}

}  // namespace
}  // namespace bplace::lsf
