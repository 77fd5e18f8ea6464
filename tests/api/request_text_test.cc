// The strings of a request that reach a bsub command line
// (api/request_text.h): each kind's characters, list items named by index,
// and how values and keys are shown in error messages.

#include "api/request_text.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string ErrorOf(const json& value, Text text, std::size_t max_bytes = 16) {
  auto read = GetString(value, "f", max_bytes, text);
  return read ? std::string() : read.error().message;
}

TEST(GetString, EachKindRefusesWhatBsubCannotTake) {
  EXPECT_EQ(ErrorOf(json(5), Text::kLine), "f: expected a string, got number");
  EXPECT_EQ(ErrorOf(json(""), Text::kLine), "f: must not be empty");
  EXPECT_EQ(ErrorOf(json(std::string(17, 'x')), Text::kLine), "f: longer than 16 bytes (17)");
  EXPECT_EQ(ErrorOf(json(std::string("a\0b", 3)), Text::kMultiLine), "f: contains a NUL byte");
  EXPECT_EQ(ErrorOf(json("a\nb"), Text::kLine), "f: contains a line break");
  EXPECT_EQ(ErrorOf(json("a\x1b[0m"), Text::kLine), "f: contains the control character U+001B");
  EXPECT_EQ(ErrorOf(json("a b"), Text::kName), "f: contains whitespace");
  EXPECT_THAT(ErrorOf(json("-x"), Text::kOptionValue), HasSubstr("starts with '-'"));
  EXPECT_THAT(ErrorOf(json("-x"), Text::kName), HasSubstr("starts with '-'"));
}

TEST(GetString, EachKindTakesWhatBsubCan) {
  EXPECT_EQ(*GetString(json("line one\nline two\x1b"), "f", 64, Text::kMultiLine),
            "line one\nline two\x1b");
  EXPECT_EQ(*GetString(json("-x\ty"), "f", 64, Text::kLine), "-x\ty");
  EXPECT_EQ(*GetString(json("a b"), "f", 64, Text::kOptionValue), "a b");
  EXPECT_EQ(*GetString(json("normal"), "f", 64, Text::kName), "normal");
}

TEST(GetStringList, ItemsAreNamedByIndexAndCounted) {
  auto read = GetStringList(json{"a", "b c"}, "queues", 4, 16, Text::kName);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message, "queues[1]: contains whitespace");
  EXPECT_EQ(GetStringList(json{"a", "b", "c"}, "queues", 2, 16, Text::kName).error().message,
            "queues: more than 2 items");
  EXPECT_EQ(GetStringList(json("a"), "queues", 2, 16, Text::kName).error().message,
            "queues: expected an array of strings, got string");
  EXPECT_EQ(GetStringList(json::array(), "queues", 2, 16, Text::kName)->size(), 0u);
}

TEST(StringSchema, BoundsAndPatternOfTheKind) {
  const json schema = StringSchema(Text::kName, 255);
  EXPECT_EQ(schema["type"], "string");
  EXPECT_EQ(schema["minLength"], 1);
  EXPECT_EQ(schema["maxLength"], 255);
  EXPECT_EQ(schema["pattern"], R"(^[^\u0000-\u0020\u007f-][^\u0000-\u0020\u007f]*$)");
  const json list = StringListSchema(8, 255, Text::kName);
  EXPECT_EQ(list["maxItems"], 8);
  EXPECT_EQ(list["items"], schema);
}

TEST(Describe, ScalarsAsJsonContainersByType) {
  EXPECT_EQ(Describe(json(2.5)), "2.5");
  EXPECT_EQ(Describe(json("x")), "\"x\"");
  EXPECT_EQ(Describe(json::object()), "a JSON object");
  EXPECT_EQ(Describe(json(std::string(100, 'y'))).size(), 64u);
}

TEST(ShownKey, ShortPlainKeysAsTheyAreOthersEscapedAndCut) {
  EXPECT_EQ(ShownKey("slots"), "slots");
  EXPECT_EQ(ShownKey("a\x1b[2Jb"), R"("a\u001b[2Jb")");
  EXPECT_EQ(ShownKey(std::string(1 << 20, 'k')).size(), 64u);
}

}  // namespace
}  // namespace bplace::api
