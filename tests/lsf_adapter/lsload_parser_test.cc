#include "lsf_adapter/lsload_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::ReadTestdata;
using testing::WithCrlf;

TEST(ParseLsloadTest, ReadsTheFormatsSampleWithABlankUnavailHost) {
  for (const std::string& text : {ReadTestdata("lsf/lsf10/lsload_w_i_ib_ok.txt"),
                                  WithCrlf(ReadTestdata("lsf/lsf10/lsload_w_i_ib_ok.txt"))}) {
    auto values = ParseLsload(text, "ib_ok");
    ASSERT_TRUE(values.has_value()) << values.error().message;
    ASSERT_EQ(values->size(), 3u);
    EXPECT_EQ((*values)[0].host, "node001");
    EXPECT_EQ((*values)[0].status, "ok");
    EXPECT_EQ((*values)[0].value, 1.0);
    EXPECT_EQ((*values)[1].value, 0.0);
    EXPECT_EQ((*values)[2].host, "node003");
    EXPECT_EQ((*values)[2].status, "unavail");
    EXPECT_FALSE((*values)[2].value.has_value());
  }
}

TEST(ParseLsloadTest, StripsTheOverThresholdStarAndReadsDashAsNoValue) {
  auto values = ParseLsload(
      "HOST_NAME               status  ib_ok\n"
      "node001                   busy   *0.0\n"
      "node002                     ok      -\n",
      "ib_ok");
  ASSERT_TRUE(values.has_value()) << values.error().message;
  EXPECT_EQ((*values)[0].status, "busy");
  EXPECT_EQ((*values)[0].value, 0.0);
  EXPECT_FALSE((*values)[1].value.has_value());
}

TEST(ParseLsloadTest, FindsTheIndexByNameAmongOtherColumns) {
  auto it = ParseLsload(ReadTestdata("lsf/openlava/lsload_w.txt"), "it");
  ASSERT_TRUE(it.has_value()) << it.error().message;
  ASSERT_EQ(it->size(), 1u);
  EXPECT_EQ((*it)[0].host, "vm");
  EXPECT_EQ((*it)[0].value, 3e5);
  auto r1m = ParseLsload(ReadTestdata("lsf/openlava/lsload.txt"), "r15m");
  ASSERT_TRUE(r1m.has_value()) << r1m.error().message;
  EXPECT_EQ((*r1m)[0].value, 0.1);
}

TEST(ParseLsloadTest, RejectsValuesWithUnits) {
  auto ut = ParseLsload(ReadTestdata("lsf/openlava/lsload.txt"), "ut");
  ASSERT_FALSE(ut.has_value());
  EXPECT_EQ(ut.error().message, "lsload -w -I line 2: ut is \"22%\", not a number");
}

TEST(ParseLsloadTest, NamesAMissingIndexColumn) {
  auto values = ParseLsload(ReadTestdata("lsf/openlava/lsload.txt"), "ib_ok");
  ASSERT_FALSE(values.has_value());
  EXPECT_EQ(values.error().message, "lsload -w -I line 1: header has no ib_ok column");
}

TEST(ParseLsloadTest, FailsWithNoHeaderAndAcceptsNoRows) {
  auto empty = ParseLsload("", "ib_ok");
  ASSERT_FALSE(empty.has_value());
  EXPECT_NE(empty.error().message.find("no header"), std::string::npos);
  auto down = ParseLsload("lsload: LIM is down; try later\n", "ib_ok");
  ASSERT_FALSE(down.has_value());
  auto rows = ParseLsload("HOST_NAME  status  ib_ok\n", "ib_ok");
  ASSERT_TRUE(rows.has_value()) << rows.error().message;
  EXPECT_TRUE(rows->empty());
}

TEST(ParseLsloadTest, RejectsARowWithSomeButNotAllColumns) {
  auto values = ParseLsload("HOST_NAME status r15s ib_ok\nnode1 ok 0.1\n", "ib_ok");
  ASSERT_FALSE(values.has_value());
  EXPECT_NE(values.error().message.find("line 2: expected 4 columns"), std::string::npos)
      << values.error().message;
}

}  // namespace
}  // namespace bplace::lsf
