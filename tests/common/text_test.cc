// Blanks, trimming, splitting into fields, decimal and hex digits
// (common/text.h).

#include "common/text.h"

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(TextTest, BlanksAreTheSixCWhitespaceCharacters) {
  for (const char c : std::string(" \t\r\n\v\f")) EXPECT_TRUE(IsBlank(c)) << int{c};
  for (const char c : std::string("a0-_\0", 5)) EXPECT_FALSE(IsBlank(c)) << int{c};
}

TEST(TextTest, TrimRemovesBlanksAtBothEndsOnly) {
  EXPECT_EQ(Trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(Trim("ab"), "ab");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim(""), "");
}

TEST(TextTest, SplitFieldsSplitsOnRunsOfBlanks) {
  EXPECT_THAT(SplitFields("QUEUE_NAME   PRIO STATUS\r"),
              ElementsAre("QUEUE_NAME", "PRIO", "STATUS"));
  EXPECT_THAT(SplitFields("  one  "), ElementsAre("one"));
  EXPECT_THAT(SplitFields(" \t "), IsEmpty());
  EXPECT_THAT(SplitFields(""), IsEmpty());
}

TEST(TextTest, SplitFieldsPointsIntoTheLine) {
  const std::string line = "a bc";
  const std::vector<std::string_view> fields = SplitFields(line);
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[1].data(), line.data() + 2);
}

TEST(TextTest, IsDigitIsTrueForTheTenDecimalDigitsOnly) {
  for (const char c : std::string("0123456789")) EXPECT_TRUE(IsDigit(c)) << c;
  for (const char c : std::string("/:aA +-.\0", 10)) EXPECT_FALSE(IsDigit(c)) << int{c};
  EXPECT_FALSE(IsDigit(static_cast<char>(0xb2)));  // superscript two in Latin-1
}

TEST(TextTest, AllDigitsWantsAtLeastOneDigitAndNothingElse) {
  EXPECT_TRUE(AllDigits("0"));
  EXPECT_TRUE(AllDigits("0123456789"));
  EXPECT_FALSE(AllDigits(""));
  EXPECT_FALSE(AllDigits("-1"));
  EXPECT_FALSE(AllDigits("+1"));
  EXPECT_FALSE(AllDigits(" 12"));
  EXPECT_FALSE(AllDigits("12 "));
  EXPECT_FALSE(AllDigits("1.5"));
  EXPECT_FALSE(AllDigits("12a"));
}

TEST(TextTest, HexDigitValueOfEveryDigitInEitherCase) {
  const std::string digits = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(HexDigitValue(digits[i]), i) << digits[i];
    EXPECT_EQ(HexDigitValue(static_cast<char>(std::toupper(digits[i]))), i) << digits[i];
  }
}

TEST(TextTest, HexDigitValueIsMinusOneForAnythingElse) {
  for (const char c : std::string("gG/:@`xX %\0", 11)) EXPECT_EQ(HexDigitValue(c), -1) << int{c};
  EXPECT_EQ(HexDigitValue(static_cast<char>(0xc3)), -1);
}

}  // namespace
}  // namespace bplace
