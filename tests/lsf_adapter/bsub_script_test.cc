#include "lsf_adapter/bsub_script.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lsf_adapter/bsub_command.h"

namespace bplace::lsf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr std::int64_t kMaxSlots = 100000;

std::vector<EmbeddedOptionLine> Parse(std::string_view script) {
  auto lines = ParseEmbeddedOptions(script);
  EXPECT_TRUE(lines) << lines.error().message;
  return lines ? *lines : std::vector<EmbeddedOptionLine>{};
}

std::string ParseError(std::string_view script) {
  auto lines = ParseEmbeddedOptions(script);
  EXPECT_FALSE(lines);
  return lines ? "" : lines.error().message;
}

// The message CheckEmbeddedOptions gives for `script`, "" when accepted.
std::string CheckError(std::string_view script, std::int64_t max_slots = kMaxSlots) {
  auto lines = ParseEmbeddedOptions(script);
  if (!lines) return lines.error().message;
  auto checked = CheckEmbeddedOptions(*lines, max_slots);
  return checked ? "" : checked.error().message;
}

TEST(ParseEmbeddedOptionsTest, ReadsDirectivesWithTheirLineNumbers) {
  const auto lines = Parse("#!/bin/sh\n#BSUB -W 10\n#BSUB -o out.%J -e err.%J\necho hi\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line, 2);
  EXPECT_THAT(lines[0].words, ElementsAre("-W", "10"));
  EXPECT_EQ(lines[1].line, 3);
  EXPECT_THAT(lines[1].words, ElementsAre("-o", "out.%J", "-e", "err.%J"));
}

TEST(ParseEmbeddedOptionsTest, ShebangAndCommentsAreNoDirectives) {
  EXPECT_THAT(Parse("#!/bin/bash\n# a comment\n#BSUB note for people\n#BSUBX -q a\necho\n"),
              IsEmpty());
}

TEST(ParseEmbeddedOptionsTest, ReadsDirectivesAfterTheFirstCommandAsBsubDoes) {
  // bsub's parseScript has no stop rule: a late #BSUB is applied too.
  const auto lines = Parse("echo hi\nsleep 1\n#BSUB -q evil\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].line, 3);
  EXPECT_THAT(lines[0].words, ElementsAre("-q", "evil"));
}

TEST(ParseEmbeddedOptionsTest, AcceptsBlanksAroundHashAndBsubAndAGluedDash) {
  const auto lines = Parse("  # BSUB -n 2\n\t#BSUB-q x\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0].words, ElementsAre("-n", "2"));
  EXPECT_THAT(lines[1].words, ElementsAre("-q", "x"));
}

TEST(ParseEmbeddedOptionsTest, CrOfACrlfLineIsABlank) {
  const auto lines = Parse("#!/bin/sh\r\n#BSUB -W 10\r\n#BSUB -J 'a b'\r\necho\r\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0].words, ElementsAre("-W", "10"));
  EXPECT_THAT(lines[1].words, ElementsAre("-J", "a b"));
}

TEST(ParseEmbeddedOptionsTest, RemovesWholeWordQuotesAndStopsAtAComment) {
  const auto lines = Parse("#BSUB -R \"select[mem>100] span[hosts=1]\" -P 'p 1' # -q x\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0].words, ElementsAre("-R", "select[mem>100] span[hosts=1]", "-P", "p 1"));
}

TEST(ParseEmbeddedOptionsTest, JoinsAContinuedDirectiveWithTheNextLine) {
  const auto lines = Parse("#BSUB -W 10 \\\n -q evil\necho\n#BSUB -n 1\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line, 1);
  EXPECT_THAT(lines[0].words, ElementsAre("-W", "10", "-q", "evil"));
  EXPECT_EQ(lines[1].line, 4);
}

TEST(ParseEmbeddedOptionsTest, RefusesQuotingABsubAndAShellReadDifferently) {
  EXPECT_EQ(ParseError("echo\n#BSUB -J \"abc\n"),
            "line 2: a quote (\") of a #BSUB line is never closed");
  EXPECT_THAT(ParseError("#BSUB -J a\"b c\"\n"), HasSubstr("line 1: a quote inside a word"));
  EXPECT_THAT(ParseError("#BSUB -J 'a'b\n"), HasSubstr("line 1: text right after a closing quote"));
  EXPECT_THAT(ParseError("#BSUB -o a\\ b\n"), HasSubstr("line 1: a backslash"));
  EXPECT_THAT(ParseError("#BSUB -o \"a\\\"b\"\n"), HasSubstr("line 1: a backslash in double"));
  EXPECT_THAT(ParseError("#BSUB -W 10 \\\r\n#BSUB -q x\r\n"),
              HasSubstr("line 1: a #BSUB line ends in a backslash before CR"));
}

TEST(ParseEmbeddedOptionsTest, RefusesALongLineHoldingBsub) {
  const std::string script = "echo hi\necho " + std::string(5000, 'x') + " #BSUB -q x\n";
  EXPECT_THAT(ParseError(script), HasSubstr("line 2: longer than 4096 bytes"));
  EXPECT_THAT(Parse("echo " + std::string(5000, 'x') + "\n"), IsEmpty());
}

TEST(CheckEmbeddedOptionsTest, AcceptsHarmlessDirectivesAndCountsSlots) {
  auto lines = ParseEmbeddedOptions("#BSUB -W 10\n#BSUB -n 2,8 -R 'span[hosts=1]'\n#BSUB -J x\n");
  ASSERT_TRUE(lines);
  auto found = CheckEmbeddedOptions(*lines, kMaxSlots);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->slots, 8);
  EXPECT_EQ(found->slots_line, 2);
  EXPECT_EQ(found->job_name_line, 3);
}

TEST(CheckEmbeddedOptionsTest, RefusesEveryHoleOfIssue11WithItsLine) {
  EXPECT_EQ(CheckError("#!/bin/sh\n#BSUB -W 10\n#BSUB -q night\n"),
            "line 3: #BSUB -q is set by bplace (use the queues field)");
  EXPECT_EQ(CheckError("#BSUB -m node001\n"),
            "line 1: #BSUB -m is set by bplace (use the host field)");
  EXPECT_THAT(CheckError("#BSUB -Jd other\n"), HasSubstr("line 1: #BSUB -Jd is set by bplace"));
  EXPECT_THAT(CheckError("#BSUB -I\n"), HasSubstr("line 1: #BSUB -I makes bsub wait"));
  EXPECT_THAT(CheckError("#BSUB -K\n"), HasSubstr("line 1: #BSUB -K makes bsub wait"));
  EXPECT_THAT(CheckError("#BSUB -Is\n"), HasSubstr("#BSUB -Is makes bsub wait"));
  EXPECT_EQ(CheckError("#BSUB -n 99999999\n"),
            "line 1: #BSUB -n 99999999: more than submit.max_slots (100000) slots");
  EXPECT_THAT(CheckError("#BSUB -J arr[1-1000000]\n"),
              HasSubstr("line 1: #BSUB -J 'arr[1-1000000]': a job name with [ ] makes a job "
                        "array; use the `array` field"));
}

TEST(CheckEmbeddedOptionsTest, SplitsAValueGluedToAOneLetterOption) {
  EXPECT_EQ(CheckError("#BSUB -qnight\n"),
            "line 1: #BSUB -q is set by bplace (use the queues field)");
  EXPECT_THAT(CheckError("#BSUB -n99999999\n"), HasSubstr("more than submit.max_slots"));
  EXPECT_THAT(CheckError("#BSUB -Jarr[1-5]\n"), HasSubstr("makes a job array"));
  auto lines = ParseEmbeddedOptions("#BSUB -n4\n");
  ASSERT_TRUE(lines);
  auto found = CheckEmbeddedOptions(*lines, kMaxSlots);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->slots, 4);
}

TEST(CheckEmbeddedOptionsTest, RefusesUnknownOptionsBareWordsAndMissingValues) {
  EXPECT_THAT(CheckError("#BSUB -yes\n"),
              HasSubstr("line 1: #BSUB -yes: not a bsub option bplace passes on"));
  EXPECT_THAT(CheckError("#BSUB -nosuch\n"), HasSubstr("expected min[,max] slots"))
      << "bsub reads -nosuch as -n with the value osuch";
  EXPECT_THAT(CheckError("#BSUB -x foo\n"), HasSubstr("line 1: #BSUB foo: not a bsub option"));
  EXPECT_EQ(CheckError("#BSUB -W\n#BSUB -q x\n"),
            "line 1: #BSUB -W needs a value on the same line");
  EXPECT_THAT(CheckError("#BSUB -n 0\n"), HasSubstr("expected min[,max] slots"));
  EXPECT_THAT(CheckError("#BSUB -n 4,2\n"), HasSubstr("expected min[,max] slots"));
  EXPECT_THAT(CheckError("#BSUB -n 2,200000\n"), HasSubstr("more than submit.max_slots"));
}

TEST(CheckEmbeddedOptionsTest, RefusesInAScriptWhatExtraArgsRefusesButTheFieldOptions) {
  // One table: every option extra_args refuses is refused in a #BSUB line
  // too, except those with a request field, which a script may set.
  for (const char* flag : {"-q", "-m", "-Jd", "-I", "-Ip", "-Is", "-IS", "-ISp", "-ISs", "-IX",
                           "-K", "-tty", "-XF", "-pack", "-h", "-V", "-Zs", "-yes"}) {
    ASSERT_FALSE(CheckExtraArgs({flag, "v"})) << flag;
    EXPECT_THAT(CheckError(std::string("#BSUB ") + flag + " v\n"), HasSubstr("line 1: #BSUB"))
        << flag;
  }
  for (const char* flag : {"-J", "-n", "-R", "-o", "-e", "-cwd", "-W", "-M", "-P", "-app"}) {
    ASSERT_FALSE(CheckExtraArgs({flag, "1"})) << flag;
    EXPECT_EQ(CheckError(std::string("#BSUB ") + flag + " 1\n"), "") << flag;
  }
  for (const char* flag : {"-G", "-x", "-u", "-env", "-B"}) {
    const BsubOptionRule rule = FindBsubOption(flag);
    EXPECT_EQ(rule.use, BsubOptionUse::kPassed) << flag;
    const std::string line = std::string("#BSUB ") + flag + (rule.takes_value ? " v\n" : "\n");
    EXPECT_EQ(CheckError(line), "") << flag;
  }
}

TEST(CheckEmbeddedOptionsTest, ChecksAContinuedLineAsOne) {
  EXPECT_EQ(CheckError("#BSUB -W 10 \\\n -q evil\n"),
            "line 1: #BSUB -q is set by bplace (use the queues field)");
}

}  // namespace
}  // namespace bplace::lsf
