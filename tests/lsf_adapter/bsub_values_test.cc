// The syntax of bsub option values (lsf_adapter/bsub_values.h): run and
// memory limits with the patterns that say the same in JSON Schema, the
// brackets of -R, and the items of a job array's index list.

#include "lsf_adapter/bsub_values.h"

#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bplace::lsf {
namespace {

bool MatchesPattern(std::string_view pattern, const std::string& value) {
  return std::regex_search(value, std::regex(std::string(pattern), std::regex::ECMAScript));
}

TEST(RunLimit, MinutesOrHoursAndMinutes) {
  for (const char* value : {"1", "90", "999999999", "1:30", "01:05", "9999999:59", "0:7"}) {
    EXPECT_TRUE(IsRunLimit(value)) << value;
  }
  for (const char* value : {"", "1234567890", "1:60", "1:", ":30", "1:2:3", "1h", "-5", "1.5",
                            "12345678:00", "1:005"}) {
    EXPECT_FALSE(IsRunLimit(value)) << value;
  }
}

TEST(MemoryLimit, ANumberAndAnOptionalUnit) {
  for (const char* value : {"4096", "8GB", "8G", "512m", "1kb", "3Eb", "0"}) {
    EXPECT_TRUE(IsMemoryLimit(value)) << value;
  }
  for (const char* value : {"", "GB", "8ZB", "8 GB", "1.5GB", "8GiB", "8BB", "-1", "8Bk"}) {
    EXPECT_FALSE(IsMemoryLimit(value)) << value;
  }
}

// The JSON Schema patterns say what the checkers say, value for value.
TEST(ValuePatterns, AgreeWithTheCheckers) {
  for (const char* value : {"1", "90", "999999999", "1:30", "01:05", "9999999:59", "0:7", "",
                            "1234567890", "1:60", "1:", ":30", "1:2:3", "1h", "1:005"}) {
    EXPECT_EQ(MatchesPattern(kRunLimitPattern, value), IsRunLimit(value)) << value;
  }
  for (const char* value : {"4096", "8GB", "8G", "512m", "1kb", "3Eb", "0", "", "GB", "8ZB", "8 GB",
                            "1.5GB", "8GiB", "8BB", "8Bk"}) {
    EXPECT_EQ(MatchesPattern(kMemoryLimitPattern, value), IsMemoryLimit(value)) << value;
  }
}

TEST(ResReqBrackets, BalancedRequirementsHaveNoProblem) {
  for (const char* value :
       {"select[mem>100] rusage[mem=100]", "span[hosts=1]", "select[defined(gpu) || (a && b)]",
        "2*{select[a]} + {select[b]}", "{select[a]} || {select[b]}", "select[type==\"x]\"]",
        "select['('] rusage[mem=1]", ""}) {
    EXPECT_EQ(ResReqBracketProblem(value), std::nullopt) << value;
  }
}

TEST(ResReqBrackets, TheFirstBracketAtFaultIsNamedWithItsPosition) {
  EXPECT_EQ(ResReqBracketProblem("select[mem>1"), "'[' at position 7 is never closed");
  EXPECT_EQ(ResReqBracketProblem("select[a]]"), "']' at position 10 closes no bracket");
  EXPECT_EQ(ResReqBracketProblem("select[(a]"),
            "']' at position 10 does not close '(' at position 8");
  EXPECT_EQ(ResReqBracketProblem("select[a=='x]"), "the quote (') at position 11 is never closed");
  EXPECT_EQ(ResReqBracketProblem("{select[a]"), "'{' at position 1 is never closed");
}

TEST(ArrayIndexItem, OneIndexARangeOrASteppedRange) {
  const auto one = ParseArrayIndexItem("7");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->start, 7);
  EXPECT_EQ(one->end, 7);
  EXPECT_EQ(one->count(), 1);

  const auto range = ParseArrayIndexItem("1-100");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->count(), 100);

  const auto stepped = ParseArrayIndexItem("1-9:2");
  ASSERT_TRUE(stepped);
  EXPECT_EQ(stepped->step, 2);
  EXPECT_EQ(stepped->count(), 5);                        // 1 3 5 7 9
  EXPECT_EQ(ParseArrayIndexItem("1-10:4")->count(), 3);  // 1 5 9

  const std::string largest = std::to_string(kMaxArrayIndex);
  EXPECT_EQ(ParseArrayIndexItem("1-" + largest)->count(), kMaxArrayIndex);
}

TEST(ArrayIndexItem, WhatLsfWouldRefuseIsNotAnItem) {
  for (const std::string& item : std::vector<std::string>{
           "", "0", "0-5", "5-1", "5:2", "1-5:0", "a", "1-", "-5", "1--5", "1-5:", " 1",
           std::to_string(kMaxArrayIndex + 1), "99999999999", "1-5:2:3"}) {
    EXPECT_EQ(ParseArrayIndexItem(item), std::nullopt) << item;
  }
}

}  // namespace
}  // namespace bplace::lsf
