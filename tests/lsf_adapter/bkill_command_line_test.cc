#include "lsf_adapter/bkill_command_line.h"

#include <gtest/gtest.h>

namespace bplace::lsf {
namespace {

TEST(ParseBkillCommandLineTest, IdsSignalsAndRemove) {
  auto line = ParseBkillCommandLine({"-s", "SIGTERM", "12", "13[2]"});
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->options, (std::vector<std::string>{"-s", "SIGTERM"}));
  ASSERT_EQ(line->ids.size(), 2u);
  EXPECT_EQ(line->ids[1].job_id, "13");
  EXPECT_EQ(line->ids[1].array_index, 2);
  line = ParseBkillCommandLine({"-r", "-sKILL", "7"});
  ASSERT_TRUE(line);
  EXPECT_EQ(line->options, (std::vector<std::string>{"-r", "-sKILL"}));
}

TEST(ParseBkillCommandLineTest, AllOfMineByNameAndMarkDone) {
  auto line = ParseBkillCommandLine({"0"});  // every unfinished job of the caller
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_TRUE(line->all_jobs);
  EXPECT_TRUE(line->ids.empty());
  line = ParseBkillCommandLine({"-s", "KILL", "-J", "align_*"});
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->job_name, "align_*");
  EXPECT_EQ(line->options, (std::vector<std::string>{"-s", "KILL"}));
  EXPECT_EQ(ParseBkillCommandLine({"-Jx"})->job_name, "x");
  line = ParseBkillCommandLine({"-d", "12"});  // Nextflow: kill and record as DONE
  ASSERT_TRUE(line) << line.error().message;
  EXPECT_EQ(line->options, std::vector<std::string>{"-d"});
}

TEST(ParseBkillCommandLineTest, LeavesOtherFormsToTheRealBkill) {
  EXPECT_FALSE(ParseBkillCommandLine({}));           // bkill alone: the last job
  EXPECT_FALSE(ParseBkillCommandLine({"-J"}));       // no name
  EXPECT_FALSE(ParseBkillCommandLine({"0", "12"}));  // two forms at once
  EXPECT_FALSE(ParseBkillCommandLine({"-J", "x", "12"}));
  EXPECT_FALSE(ParseBkillCommandLine({"-q", "short", "0"}));
  EXPECT_FALSE(ParseBkillCommandLine({"12[1-3]"}));     // a range of elements
  EXPECT_FALSE(ParseBkillCommandLine({"-s"}));          // no signal
  EXPECT_FALSE(ParseBkillCommandLine({"-s", "TERM"}));  // no id
}

}  // namespace
}  // namespace bplace::lsf
