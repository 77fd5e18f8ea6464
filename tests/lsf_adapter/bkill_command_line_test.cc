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

TEST(ParseBkillCommandLineTest, LeavesOtherFormsToTheRealBkill) {
  EXPECT_FALSE(ParseBkillCommandLine({"0"}));           // all of the caller's jobs
  EXPECT_FALSE(ParseBkillCommandLine({}));              // bkill alone: the last job
  EXPECT_FALSE(ParseBkillCommandLine({"-J", "x"}));     // by name
  EXPECT_FALSE(ParseBkillCommandLine({"-d", "12"}));    // mark DONE
  EXPECT_FALSE(ParseBkillCommandLine({"12[1-3]"}));     // a range of elements
  EXPECT_FALSE(ParseBkillCommandLine({"-s"}));          // no signal
  EXPECT_FALSE(ParseBkillCommandLine({"-s", "TERM"}));  // no id
}

}  // namespace
}  // namespace bplace::lsf
