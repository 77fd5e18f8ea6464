#include "lsf_adapter/json_reader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <string>
#include <vector>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using nlohmann::json;
using testing::ReadTestdata;

// Whether `value` holds what nlohmann read as `expected`: the same kinds,
// strings decoded alike, integers alike, members and elements in order.
::testing::AssertionResult Same(const JsonValue& value, const json& expected) {
  switch (value.kind()) {
    case JsonValue::Kind::kString:
      if (!expected.is_string() || value.String() != expected.get<std::string>()) {
        return ::testing::AssertionFailure() << value.text() << " vs " << expected.dump();
      }
      if (value.Unescaped() && *value.Unescaped() != expected.get<std::string>()) {
        return ::testing::AssertionFailure() << "unescaped " << value.text();
      }
      return ::testing::AssertionSuccess();
    case JsonValue::Kind::kInteger:
      if (expected.is_number_unsigned() && value.Unsigned() == expected.get<std::uint64_t>()) {
        return ::testing::AssertionSuccess();
      }
      if (expected.is_number_integer() && !expected.is_number_unsigned() &&
          value.Signed() == expected.get<std::int64_t>()) {
        return ::testing::AssertionSuccess();
      }
      return ::testing::AssertionFailure() << value.text() << " vs " << expected.dump();
    case JsonValue::Kind::kNumber:
      return expected.is_number_float() ? ::testing::AssertionSuccess()
                                        : ::testing::AssertionFailure() << value.text();
    case JsonValue::Kind::kTrue:
    case JsonValue::Kind::kFalse:
      return expected == (value.kind() == JsonValue::Kind::kTrue)
                 ? ::testing::AssertionSuccess()
                 : ::testing::AssertionFailure() << value.text();
    case JsonValue::Kind::kNull:
      return expected.is_null() ? ::testing::AssertionSuccess()
                                : ::testing::AssertionFailure() << value.text();
    case JsonValue::Kind::kArray: {
      if (!expected.is_array()) return ::testing::AssertionFailure() << value.text();
      std::size_t i = 0;
      ::testing::AssertionResult all = ::testing::AssertionSuccess();
      value.ForEachElement([&](const JsonValue& element) {
        if (all && (i >= expected.size() || !(all = Same(element, expected[i])))) {
          if (all) all = ::testing::AssertionFailure() << "extra element";
        }
        ++i;
      });
      if (all && i != expected.size()) return ::testing::AssertionFailure() << "fewer elements";
      return all;
    }
    case JsonValue::Kind::kObject: {
      if (!expected.is_object()) return ::testing::AssertionFailure() << value.text();
      // nlohmann keeps the last value of a key given twice.
      json members = json::object();
      value.ForEachMember([&](std::string_view key, const JsonValue& member) {
        members[std::string(key)] = std::string(member.text());
      });
      if (members.size() != expected.size()) {
        return ::testing::AssertionFailure() << "members of " << value.text();
      }
      ::testing::AssertionResult all = ::testing::AssertionSuccess();
      value.ForEachMember([&](std::string_view key, const JsonValue& member) {
        const std::string name(key);
        if (!all || members[name] != std::string(member.text())) return;  // not the last value
        if (!expected.contains(name)) {
          all = ::testing::AssertionFailure() << "no " << name;
        } else {
          all = Same(member, expected[name]);
        }
      });
      return all;
    }
  }
  return ::testing::AssertionFailure() << "unknown kind";
}

// Checks `text` against nlohmann::json: accepted by both or by neither, and
// read alike when accepted.
void ExpectAsNlohmann(const std::string& text) {
  const bool accepted = json::accept(text);
  const std::optional<JsonDocument> doc = JsonDocument::Parse(text);
  ASSERT_EQ(doc.has_value(), accepted) << ::testing::PrintToString(text);
  EXPECT_EQ(IsValidJson(text), accepted);
  if (doc) {
    EXPECT_TRUE(Same(doc->Root(), json::parse(text))) << ::testing::PrintToString(text);
  }
}

TEST(JsonReaderTest, AcceptsAndReadsWhatNlohmannDoes) {
  for (const std::string& text : std::vector<std::string>{
           R"({})", R"([])", R"("")", "0", "-0", "12", "-12", "1.5", "1e3", "-1E-3", "true",
           "false", "null", "  {\"a\" : [1, 2, {\"b\": null}] }  ", "{\"a\":1,\"a\":2}",
           "18446744073709551615", "18446744073709551616", "-9223372036854775808",
           "-9223372036854775809", R"("\"\\\/\b\f\n\r\t")", R"("\u0041\u00e9\u4e2d")",
           R"("\ud83d\ude00")", R"("\u0000")", "\"caf\xc3\xa9\"", "\"\xe2\x82\xac\"",
           "\"\xf0\x9f\x98\x80\"", "\"\x7f\"", "{\"a\":1}\n", std::string("{}\0garbage", 10),
           "{\"JOB\\u0049D\":\"7\"}",
           // refused
           "", " ", "{", "}", "[", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[,1]", "{1:2}",
           "01", "-", "1.", ".5", "1e", "1e+", "+1", "tru", "truex", "nul", "NaN", "'a'", "\"a",
           "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", R"("\ud83d")", R"("\ude00")", R"("\ud83dx")",
           R"("\ud83d\u0041")", "\"\t\"", "\"\n\"", std::string("\"\0\"", 3), "\"\xc3\"",
           "\"\xc0\x80\"", "\"\xe0\x80\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
           "\"\xf5\x80\x80\x80\"", "\"\xff\"", "{}{}", "{} x", "[1 2]", "{\"a\" 1}", "/* c */ {}",
           "\xef\xbb\xbf{}"}) {
    ExpectAsNlohmann(text);
  }
}

TEST(JsonReaderTest, NestingDeepCostsNoStack) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_TRUE(IsValidJson(deep));
  EXPECT_FALSE(IsValidJson(deep.substr(0, deep.size() - 1)));
}

// Mutated bjobs answers: accepted and read exactly as nlohmann does.
TEST(JsonReaderTest, MutatedAnswersAreReadAsNlohmannReadsThem) {
  const std::vector<std::string> samples = {ReadTestdata("lsf/lsf10/bjobs_json_lifecycle.txt"),
                                            ReadTestdata("lsf/openlava/bjobs_json.txt"),
                                            R"({"a":["\u00e9\ud83d\ude00",-1,2.5e3,true,null]})"};
  const std::vector<std::string> tokens = {
      "{",       "}",    "[",        "]", ",", ":",  "\"",   "\\", "\\u",
      "\\ud83d", "\xc3", "\xe2\x82", "-", "0", "1e", "null", " ",  std::string(1, '\0')};
  std::mt19937 rng(20261202);
  const auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  for (int i = 0; i < 5000; ++i) {
    const std::string& sample = samples[below(samples.size())];
    std::string text = sample.substr(sample.find('{'));
    for (std::size_t changes = 1 + below(3); changes > 0; --changes) {
      const std::size_t at = below(text.size() + 1);
      switch (below(3)) {
        case 0:
          text.insert(at, tokens[below(tokens.size())]);
          break;
        case 1:
          if (at < text.size()) text[at] = static_cast<char>(below(256));
          break;
        default:
          text.erase(at, 1 + below(3));
          break;
      }
    }
    ExpectAsNlohmann(text);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace bplace::lsf
