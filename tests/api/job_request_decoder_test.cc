#include "api/job_request_decoder.h"

#include <cstdint>
#include <fstream>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace bplace::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

Result<JobRequest> Decode(std::string_view body, const JobRequestLimits& limits = {}) {
  return DecodeJobRequest(body, limits);
}

TEST(DecodeJobRequestTest, DecodesEveryField) {
  const auto job = Decode(R"({
    "host": "node001", "queues": ["short", "normal"], "command": "echo hi",
    "job_name": "align", "slots": 4, "resources": "span[hosts=1]",
    "output": "out.%J", "error": "err.%J", "cwd": "/scratch/alice",
    "walltime": "2:30", "memory": "8GB", "project": "chem", "app": "fluent",
    "extra_args": ["-G", "grp_chem", "-x"]})");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->host, "node001");
  EXPECT_THAT(job->queues, ElementsAre("short", "normal"));
  EXPECT_EQ(job->command, "echo hi");
  EXPECT_FALSE(job->argv);
  EXPECT_FALSE(job->script);
  EXPECT_EQ(job->job_name, "align");
  EXPECT_EQ(job->slots, 4);
  EXPECT_EQ(job->resources, std::vector<std::string>{"span[hosts=1]"});
  EXPECT_EQ(job->output, "out.%J");
  EXPECT_EQ(job->error, "err.%J");
  EXPECT_EQ(job->cwd, "/scratch/alice");
  EXPECT_EQ(job->walltime, "2:30");
  EXPECT_EQ(job->memory, "8GB");
  EXPECT_EQ(job->project, "chem");
  EXPECT_EQ(job->app, "fluent");
  EXPECT_THAT(job->extra_args, ElementsAre("-G", "grp_chem", "-x"));
}

TEST(DecodeJobRequestTest, DecodesMinimalBodies) {
  const auto command = Decode(R"({"command": "true"})");
  ASSERT_TRUE(command);
  EXPECT_FALSE(command->host);
  EXPECT_FALSE(command->slots);
  EXPECT_TRUE(command->queues.empty());

  const auto argv = Decode(R"({"argv": ["echo", "a b", "it's"]})");
  ASSERT_TRUE(argv);
  EXPECT_THAT(*argv->argv, ElementsAre("echo", "a b", "it's"));

  const auto script = Decode(R"({"script": "#!/bin/sh\n#BSUB -n 2\necho hi\n"})");
  ASSERT_TRUE(script) << script.error().message;
  EXPECT_EQ(script->script, "#!/bin/sh\n#BSUB -n 2\necho hi\n");
}

struct BadCase {
  std::string label;
  std::string body;
  std::string message_start;  // the field the error must name
};
std::ostream& operator<<(std::ostream& os, const BadCase& c) { return os << c.label; }

class DecodeJobRequestRefusalTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(DecodeJobRequestRefusalTest, RefusesNamingField) {
  const auto job = Decode(GetParam().body);
  ASSERT_FALSE(job) << GetParam().body;
  EXPECT_EQ(job.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(job.error().message, StartsWith(GetParam().message_start));
}

// Wrong types: every field names itself.
INSTANTIATE_TEST_SUITE_P(
    WrongTypes, DecodeJobRequestRefusalTest,
    ::testing::Values(
        BadCase{"host_number", R"({"command":"x","host":42})", "host:"},
        BadCase{"host_null", R"({"command":"x","host":null})", "host:"},
        BadCase{"queues_string", R"({"command":"x","queues":"normal"})", "queues:"},
        BadCase{"queues_item_number", R"({"command":"x","queues":[1]})", "queues[0]:"},
        BadCase{"queues_item_empty", R"({"command":"x","queues":["a",""]})", "queues[1]:"},
        BadCase{"queues_empty", R"({"command":"x","queues":[]})", "queues:"},
        BadCase{"duplicate_key", R"({"command":"true","command":"false"})", "command:"},
        BadCase{"walltime_minutes_over_59", R"({"command":"x","walltime":"1:70"})", "walltime:"},
        BadCase{"command_number", R"({"command":5})", "command:"},
        BadCase{"command_array", R"({"command":["echo"]})", "command:"},
        BadCase{"argv_string", R"({"argv":"echo hi"})", "argv:"},
        BadCase{"argv_item_number", R"({"argv":["echo",3]})", "argv[1]:"},
        BadCase{"script_object", R"({"script":{}})", "script:"},
        BadCase{"job_name_bool", R"({"command":"x","job_name":true})", "job_name:"},
        BadCase{"resources_number", R"({"command":"x","resources":1})", "resources:"},
        BadCase{"output_array", R"({"command":"x","output":[]})", "output:"},
        BadCase{"error_number", R"({"command":"x","error":2})", "error:"},
        BadCase{"cwd_null", R"({"command":"x","cwd":null})", "cwd:"},
        BadCase{"slots_string", R"({"command":"x","slots":"2"})", "slots:"},
        BadCase{"slots_null", R"({"command":"x","slots":null})", "slots:"},
        BadCase{"slots_bool", R"({"command":"x","slots":true})", "slots:"},
        BadCase{"walltime_bool", R"({"command":"x","walltime":true})", "walltime:"},
        BadCase{"memory_array", R"({"command":"x","memory":[8]})", "memory:"},
        BadCase{"project_number", R"({"command":"x","project":7})", "project:"},
        BadCase{"app_object", R"({"command":"x","app":{"a":1}})", "app:"},
        BadCase{"extra_args_string", R"({"command":"x","extra_args":"-x"})", "extra_args:"},
        BadCase{"extra_args_item_number", R"({"command":"x","extra_args":[1]})", "extra_args[0]"}));

INSTANTIATE_TEST_SUITE_P(
    BadValues, DecodeJobRequestRefusalTest,
    ::testing::Values(
        BadCase{"unknown_field", R"({"command":"x","queue":"normal"})", "queue: unknown field"},
        BadCase{"user_field", R"({"command":"x","user":"root"})", "user:"},
        BadCase{"no_body", R"({"host":"node001"})", "command:"},
        BadCase{"empty_object", R"({})", "command:"},
        BadCase{"command_and_argv", R"({"command":"x","argv":["x"]})", "command:"},
        BadCase{"command_and_script", R"({"command":"x","script":"x"})", "command:"},
        BadCase{"all_three", R"({"command":"x","argv":["x"],"script":"x"})", "command:"},
        BadCase{"command_option", R"({"command":"-Is bash"})", "command: starts with '-'"},
        BadCase{"command_empty", R"({"command":""})", "command:"},
        BadCase{"argv_empty", R"({"argv":[]})", "argv: must not be empty"},
        BadCase{"command_nul", R"({"command":"echo\u0000rm"})", "command: contains a NUL"},
        BadCase{"script_nul", R"({"script":"echo\u0000"})", "script: contains a NUL"},
        BadCase{"argv_nul", R"({"argv":["echo","a\u0000"]})", "argv[1]: contains a NUL"},
        BadCase{"host_nul", R"({"command":"x","host":"node\u0000"})", "host:"},
        BadCase{"command_newline", R"({"command":"echo a\nrm -rf ~"})",
                "command: contains a line break"},
        BadCase{"command_cr", R"({"command":"echo a\r"})", "command: contains a line break"},
        BadCase{"job_name_newline", R"({"command":"x","job_name":"a\nb"})", "job_name:"},
        BadCase{"resources_newline", R"({"command":"x","resources":"a\nb"})", "resources:"},
        BadCase{"argv_newline", R"({"argv":["echo","a\nb"]})", "argv[1]:"},
        BadCase{"host_space", R"({"command":"x","host":"node1 node2"})", "host:"},
        BadCase{"queue_tab", R"({"command":"x","queues":["a\tb"]})", "queues[0]:"},
        BadCase{"project_space", R"({"command":"x","project":"a b"})", "project:"},
        BadCase{"slots_zero", R"({"command":"x","slots":0})", "slots:"},
        BadCase{"slots_negative", R"({"command":"x","slots":-1})", "slots:"},
        BadCase{"slots_fraction", R"({"command":"x","slots":1.5})", "slots:"},
        BadCase{"slots_float_integral", R"({"command":"x","slots":2.0})", "slots:"},
        BadCase{"slots_above_max", R"({"command":"x","slots":100001})", "slots:"},
        BadCase{"slots_uint64_max", R"({"command":"x","slots":18446744073709551615})", "slots:"},
        BadCase{"slots_int64_overflow", R"({"command":"x","slots":9223372036854775808})", "slots:"},
        BadCase{"walltime_zero", R"({"command":"x","walltime":0})", "walltime:"},
        BadCase{"walltime_negative", R"({"command":"x","walltime":-5})", "walltime:"},
        BadCase{"walltime_fraction", R"({"command":"x","walltime":1.5})", "walltime:"},
        BadCase{"walltime_word", R"({"command":"x","walltime":"1h"})", "walltime:"},
        BadCase{"walltime_three_parts", R"({"command":"x","walltime":"1:2:3"})", "walltime:"},
        BadCase{"walltime_empty", R"({"command":"x","walltime":""})", "walltime:"},
        BadCase{"walltime_no_hours", R"({"command":"x","walltime":":30"})", "walltime:"},
        BadCase{"walltime_no_minutes", R"({"command":"x","walltime":"2:"})", "walltime:"},
        BadCase{"walltime_signed", R"({"command":"x","walltime":"-5"})", "walltime:"},
        BadCase{"memory_zero", R"({"command":"x","memory":0})", "memory:"},
        BadCase{"memory_unit_only", R"({"command":"x","memory":"GB"})", "memory:"},
        BadCase{"memory_bad_unit", R"({"command":"x","memory":"8XB"})", "memory:"},
        BadCase{"memory_space", R"({"command":"x","memory":"8 GB"})", "memory:"},
        BadCase{"memory_long_unit", R"({"command":"x","memory":"8GiB"})", "memory:"},
        BadCase{"memory_negative", R"({"command":"x","memory":"-1"})", "memory:"},
        BadCase{"memory_fraction", R"({"command":"x","memory":1.5})", "memory:"},
        BadCase{"extra_args_daemon_owned", R"({"command":"x","extra_args":["-q","normal"]})",
                "extra_args[0]"},
        BadCase{"extra_args_interactive", R"({"command":"x","extra_args":["-Is"]})",
                "extra_args[0]"},
        BadCase{"extra_args_later_item", R"({"command":"x","extra_args":["-x","-K"]})",
                "extra_args[1]"},
        BadCase{"extra_args_bare_word", R"({"command":"x","extra_args":["rm"]})", "extra_args[0]"},
        BadCase{"extra_args_missing_value", R"({"command":"x","extra_args":["-G"]})",
                "extra_args[0]"},
        BadCase{"extra_args_unknown", R"({"command":"x","extra_args":["--frobnicate"]})",
                "extra_args[0]"}));

INSTANTIATE_TEST_SUITE_P(
    NotAnObject, DecodeJobRequestRefusalTest,
    ::testing::Values(BadCase{"empty", "", "body:"}, BadCase{"array", "[]", "body:"},
                      BadCase{"number", "1", "body:"}, BadCase{"string", R"("x")", "body:"},
                      BadCase{"null", "null", "body:"}, BadCase{"true", "true", "body:"},
                      BadCase{"truncated", R"({"command":"x")", "body:"},
                      BadCase{"trailing", R"({"command":"x"} {})", "body:"},
                      BadCase{"single_quotes", R"({'command':'x'})", "body:"},
                      BadCase{"invalid_utf8", "{\"command\":\"\xff\"}", "body:"},
                      BadCase{"lone_surrogate", R"({"command":"\ud800"})", "body:"}));

// A blank command would reach bsub as no command at all; unbalanced
// brackets in -R are LSF's "Bad resource requirement syntax" without a
// position. Both are 400 before any bsub, naming the field (and the bracket).
INSTANTIATE_TEST_SUITE_P(
    BlankCommandsAndUnbalancedResources, DecodeJobRequestRefusalTest,
    ::testing::Values(
        BadCase{"command_spaces", R"({"command":"   "})", "command: must not be blank"},
        BadCase{"command_tab", R"({"command":" \t "})", "command: must not be blank"},
        BadCase{"script_blank", R"({"script":" \n\t\n"})", "script: must not be blank"},
        BadCase{"argv_first_blank", R"({"argv":["  ","x"]})", "argv[0]: must not be blank"},
        BadCase{"select_not_closed", R"({"command":"x","resources":"select[mem>100"})",
                "resources: unbalanced brackets: '[' at position 7 is never closed"},
        BadCase{"rusage_extra_close", R"({"command":"x","resources":"rusage[mem=10]]"})",
                "resources: unbalanced brackets: ']' at position 15 closes no bracket"},
        BadCase{"crossed", R"j({"command":"x","resources":"select[defined(a])"})j",
                "resources: unbalanced brackets: ']' at position 17 does not close '(' at "
                "position 15"},
        BadCase{"paren_not_closed", R"({"command":"x","resources":"select[(a || b]"})",
                "resources: unbalanced brackets: ']' at position 15 does not close '('"},
        BadCase{"lsf_sample", R"({"command":"x","resources":"select[[["})",
                "resources: unbalanced brackets: '[' at position 9 is never closed"},
        BadCase{"brace_not_closed", R"({"command":"x","resources":"{select[a]} || {select[b]"})",
                "resources: unbalanced brackets: '{' at position 16 is never closed"},
        BadCase{"quote_not_closed", R"({"command":"x","resources":"select[type=='LINUX]"})",
                "resources: unbalanced brackets: the quote (') at position 14 is never "
                "closed"}));

struct GoodCase {
  std::string label;
  std::string body;
};
std::ostream& operator<<(std::ostream& os, const GoodCase& c) { return os << c.label; }

class DecodeJobRequestAcceptTest : public ::testing::TestWithParam<GoodCase> {};

TEST_P(DecodeJobRequestAcceptTest, Accepts) {
  const auto job = Decode(GetParam().body);
  EXPECT_TRUE(job) << job.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    ValidForms, DecodeJobRequestAcceptTest,
    ::testing::Values(
        GoodCase{"slots_one", R"({"command":"x","slots":1})"},
        GoodCase{"slots_max", R"({"command":"x","slots":100000})"},
        GoodCase{"walltime_minutes_int", R"({"command":"x","walltime":90})"},
        GoodCase{"walltime_minutes_string", R"({"command":"x","walltime":"90"})"},
        GoodCase{"walltime_hours_minutes", R"({"command":"x","walltime":"2:30"})"},
        GoodCase{"memory_int", R"({"command":"x","memory":4096})"},
        GoodCase{"memory_plain_string", R"({"command":"x","memory":"4096"})"},
        GoodCase{"memory_gb", R"({"command":"x","memory":"8GB"})"},
        GoodCase{"memory_g", R"({"command":"x","memory":"8G"})"},
        GoodCase{"memory_lower_mb", R"({"command":"x","memory":"512mb"})"},
        GoodCase{"memory_tb", R"({"command":"x","memory":"1T"})"},
        GoodCase{"command_with_tab_and_quotes", R"({"command":"printf '%s\t' \"a\""})"},
        GoodCase{"command_dash_inside", R"({"command":"ls -l"})"},
        GoodCase{"script_crlf", R"({"script":"echo a\r\necho b\r\n"})"},
        GoodCase{"unicode", R"({"command":"echo \u00e9t\u00e9","job_name":"r\u00e9sum\u00e9"})"},
        GoodCase{"extra_args_valued_options",
                 R"({"command":"x","extra_args":["-G","g","-sla","s","-B","-N"]})"},
        GoodCase{"empty_extra_args", R"({"command":"x","extra_args":[]})"},
        GoodCase{"command_padded", R"({"command":"  sleep 1 "})"},
        GoodCase{"resources_sections",
                 R"({"command":"x","resources":"select[defined(ib_ok) && (mem>100)] )"
                 R"(rusage[mem=10:duration=5] span[hosts=1] order[-ut]"})"},
        GoodCase{"resources_compound", R"({"command":"x","resources":"2*{select[a]} + )"
                                       R"(4*{select[b] rusage[mem=1]}"})"},
        GoodCase{"resources_brackets_in_quotes",
                 R"({"command":"x","resources":"select[name=='a]b(' || t==\"x{\"]"})"},
        GoodCase{"resources_plain", R"({"command":"x","resources":"mem>100"})"}));

TEST(DecodeJobRequestTest, TheSubmittersContextIsBsubs) {
  const auto job = Decode(R"({"command":"x","workdir":"/home/alice/run","umask":"027",
                              "environment":{"PATH":"/usr/bin","F":"() { echo\n}"},
                              "resources":["rusage[mem=2000.0]","span[hosts=1]"]})");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->workdir, "/home/alice/run");
  EXPECT_EQ(job->umask, 027u);
  // A value may span lines: bash exports its functions so.
  EXPECT_EQ(job->environment,
            (std::vector<std::string>{"F=() { echo\n}", "PATH=/usr/bin"}));
  EXPECT_EQ(job->resources, (std::vector<std::string>{"rusage[mem=2000.0]", "span[hosts=1]"}));
}

TEST(DecodeJobRequestTest, RefusesABadSubmittersContextByName) {
  EXPECT_THAT(Decode(R"({"command":"x","workdir":"run"})").error().message,
              StartsWith("workdir: must be an absolute path"));
  EXPECT_THAT(Decode(R"({"command":"x","umask":"0999"})").error().message, StartsWith("umask:"));
  EXPECT_THAT(Decode(R"({"command":"x","umask":18})").error().message, StartsWith("umask:"));
  EXPECT_THAT(Decode(R"({"command":"x","environment":{"A=B":"x"}})").error().message,
              StartsWith("environment: `A=B` is not a variable name"));
  EXPECT_THAT(Decode(R"({"command":"x","environment":{"A":1}})").error().message,
              StartsWith("environment.A:"));
  EXPECT_THAT(Decode(R"({"command":"x","resources":["a[","b"]})").error().message,
              StartsWith("resources[0]: unbalanced brackets"));
  EXPECT_THAT(Decode(R"({"command":"x","resources":[]})").error().message,
              StartsWith("resources: must not be empty"));
  JobRequestLimits limits;
  limits.max_environment_bytes = 10;
  EXPECT_THAT(Decode(R"({"command":"x","environment":{"A":"0123456789"}})", limits).error().message,
              StartsWith("environment: more than 10 bytes"));
}

TEST(DecodeJobRequestTest, ConvertsNumericWalltimeAndMemoryToText) {
  const auto job = Decode(R"({"command":"x","walltime":90,"memory":4096})");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->walltime, "90");
  EXPECT_EQ(job->memory, "4096");
}

TEST(DecodeJobRequestTest, AppliesLimits) {
  JobRequestLimits limits;
  limits.max_slots = 8;
  limits.max_string_bytes = 10;
  limits.max_command_bytes = 16;
  limits.max_list_items = 2;
  EXPECT_TRUE(Decode(R"({"command":"x","slots":8})", limits));
  EXPECT_THAT(Decode(R"({"command":"x","slots":9})", limits).error().message, StartsWith("slots:"));
  EXPECT_TRUE(Decode(R"({"command":"x","job_name":"0123456789"})", limits));
  EXPECT_THAT(Decode(R"({"command":"x","job_name":"0123456789a"})", limits).error().message,
              StartsWith("job_name:"));
  EXPECT_TRUE(Decode(R"({"command":"0123456789abcdef"})", limits));
  EXPECT_THAT(Decode(R"({"command":"0123456789abcdefg"})", limits).error().message,
              StartsWith("command:"));
  EXPECT_THAT(Decode(R"({"argv":["0123456789abcdefg"]})", limits).error().message,
              StartsWith("argv[0]:"));
  EXPECT_THAT(Decode(R"({"script":"0123456789abcdefg"})", limits).error().message,
              StartsWith("script:"));
  EXPECT_TRUE(Decode(R"({"command":"x","queues":["a","b"]})", limits));
  EXPECT_THAT(Decode(R"({"command":"x","queues":["a","b","c"]})", limits).error().message,
              StartsWith("queues:"));
  EXPECT_THAT(Decode(R"({"argv":["a","b","c"]})", limits).error().message, StartsWith("argv:"));
}

// Was a bug: walltime and memory strings were checked for form only, so a
// 5000-digit walltime passed into the bsub argv.
TEST(DecodeJobRequestTest, BoundsWalltimeAndMemoryStrings) {
  const std::string digits(5000, '9');
  const auto walltime = Decode(R"({"command":"x","walltime":")" + digits + R"("})");
  ASSERT_FALSE(walltime);
  EXPECT_THAT(walltime.error().message, StartsWith("walltime:"));
  const auto memory = Decode(R"({"command":"x","memory":")" + digits + R"(GB"})");
  ASSERT_FALSE(memory);
  EXPECT_THAT(memory.error().message, StartsWith("memory:"));
}

// Was a bug: an `argv` whose first word starts with '-' passed, and
// JoinShellQuoted leaves "-x" bare, so bsub received a command string starting
// with '-' and read it as an option -- the very case `command` refuses.
TEST(DecodeJobRequestTest, RefusesArgvWhoseFirstWordLooksLikeOption) {
  const auto job = Decode(R"({"argv":["-Is","bash"]})");
  ASSERT_FALSE(job);
  EXPECT_THAT(job.error().message, StartsWith("argv"));
}

// Was a bug: the decoder echoed a wrongly typed value in its error message
// with json::dump(), which recurses once per nesting level: a 400 KB body
// (under the HTTP server's 1 MiB limit) nesting arrays 200000 deep in "slots"
// overflowed the stack and killed the daemon. Parsing itself is iterative.
TEST(DecodeJobRequestTest, SurvivesDeeplyNestedValueInWrongField) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  constexpr std::size_t kDepth = 200000;
  const std::string body =
      R"({"command":"x","slots":)" + std::string(kDepth, '[') + std::string(kDepth, ']') + "}";
  EXPECT_EXIT(
      {
        const auto job = Decode(body);
        std::exit(!job && job.error().message.rfind("slots:", 0) == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// ------------------------------------------------- validation, rule by rule

// Every string field of the request, how the decoder classes it, and the
// body that puts `value` in it (queues and extra_args take it as item 1,
// argv as its only word).
enum class Kind { kName, kLine, kCommand, kArgvWord, kExtraWord, kScript };
struct StringField {
  std::string name;  // as the error names it
  Kind kind;
};
const std::vector<StringField>& StringFields() {
  static const std::vector<StringField> fields = {
      {"host", Kind::kName},        {"queues[1]", Kind::kName},
      {"project", Kind::kName},     {"app", Kind::kName},
      {"job_name", Kind::kLine},    {"resources", Kind::kLine},
      {"output", Kind::kLine},      {"error", Kind::kLine},
      {"cwd", Kind::kLine},         {"command", Kind::kCommand},
      {"argv[0]", Kind::kArgvWord}, {"extra_args[1]", Kind::kExtraWord},
      {"script", Kind::kScript},
  };
  return fields;
}

std::string BodyWith(const StringField& field, const std::string& value) {
  nlohmann::json body;
  if (field.kind == Kind::kCommand) {
    body["command"] = value;
  } else if (field.kind == Kind::kScript) {
    body["script"] = value;
  } else if (field.kind == Kind::kArgvWord) {
    body["argv"] = nlohmann::json::array({value});
  } else {
    body["command"] = "x";
    const std::string key = field.name.substr(0, field.name.find('['));
    if (field.name.find('[') != std::string::npos) {
      body[key] = {key == "extra_args" ? "-G" : "normal", value};
    } else {
      body[key] = value;
    }
  }
  return body.dump();
}

std::size_t Bound(const StringField& field, const JobRequestLimits& limits) {
  switch (field.kind) {
    case Kind::kName:
      return limits.max_name_bytes;
    case Kind::kLine:
    case Kind::kExtraWord:
      return limits.max_string_bytes;
    default:
      return limits.max_command_bytes;
  }
}

TEST(DecodeJobRequestTest, BoundsEveryStringFieldByItsLimit) {
  JobRequestLimits limits;
  limits.max_name_bytes = 8;
  limits.max_string_bytes = 16;
  limits.max_command_bytes = 32;
  for (const StringField& field : StringFields()) {
    const std::size_t bound = Bound(field, limits);
    EXPECT_TRUE(Decode(BodyWith(field, std::string(bound, 'a')), limits)) << field.name;
    const auto job = Decode(BodyWith(field, std::string(bound + 1, 'a')), limits);
    ASSERT_FALSE(job) << field.name;
    EXPECT_EQ(job.error().message, field.name + ": longer than " + std::to_string(bound) +
                                       " bytes (" + std::to_string(bound + 1) + ")");
  }
}

TEST(DecodeJobRequestTest, NamesTheListItemThatIsTooLong) {
  const auto job =
      Decode(R"({"command":"x","queues":["a","b",")" + std::string(300, 'q') + R"("]})");
  ASSERT_FALSE(job);
  EXPECT_EQ(job.error().message, "queues[2]: longer than 255 bytes (300)");
}

TEST(DecodeJobRequestTest, BoundsArgvOnceQuotedIntoOneCommandString) {
  JobRequestLimits limits;
  limits.max_command_bytes = 16;
  // Each word fits, but quoted and joined they make 'it'\''s' 'a b' ... > 16.
  EXPECT_TRUE(Decode(R"({"argv":["echo","a b"]})", limits));
  const auto job = Decode(R"({"argv":["echo","it's","a b","c d"]})", limits);
  ASSERT_FALSE(job);
  EXPECT_THAT(job.error().message,
              StartsWith("argv: longer than 16 bytes once quoted into one command string"));
}

TEST(DecodeJobRequestTest, BoundsEveryListByMaxListItems) {
  JobRequestLimits limits;
  limits.max_list_items = 2;
  EXPECT_THAT(Decode(R"({"command":"x","queues":["a","b","c"]})", limits).error().message,
              StartsWith("queues: more than 2 items"));
  EXPECT_THAT(Decode(R"({"argv":["a","b","c"]})", limits).error().message,
              StartsWith("argv: more than 2 items"));
  EXPECT_THAT(Decode(R"({"command":"x","extra_args":["-x","-B","-N"]})", limits).error().message,
              StartsWith("extra_args: more than 2 items"));
}

TEST(DecodeJobRequestTest, RefusesNulInEveryStringField) {
  for (const StringField& field : StringFields()) {
    const auto job = Decode(BodyWith(field, std::string("ab\0c", 4)));
    ASSERT_FALSE(job) << field.name;
    EXPECT_EQ(job.error().message, field.name + ": contains a NUL byte");
  }
}

TEST(DecodeJobRequestTest, RefusesLineBreaksInEveryFieldButScript) {
  for (const StringField& field : StringFields()) {
    if (field.kind == Kind::kScript) continue;
    for (const std::string value : {"a\nb", "a\rb", "ab\n"}) {
      const auto job = Decode(BodyWith(field, value));
      ASSERT_FALSE(job) << field.name;
      EXPECT_EQ(job.error().message, field.name + ": contains a line break");
    }
  }
  EXPECT_THAT(Decode(R"({"command":"x","walltime":"2:30\n"})").error().message,
              StartsWith("walltime:"));
  EXPECT_THAT(Decode(R"({"command":"x","memory":"8GB\n"})").error().message, StartsWith("memory:"));
}

TEST(DecodeJobRequestTest, AcceptsLineBreaksAndControlCharactersInScript) {
  const auto job = Decode(R"({"script":"#!/bin/sh\r\nprintf '\u001b[1mbold\n'\n"})");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->script, "#!/bin/sh\r\nprintf '\x1b[1mbold\n'\n");
}

TEST(DecodeJobRequestTest, RefusesControlCharactersOutsideScript) {
  for (const StringField& field : StringFields()) {
    if (field.kind == Kind::kScript) continue;
    for (const auto& [value, shown] : {std::pair<std::string, std::string>{"a\x1b[2Jb", "U+001B"},
                                       {"a\vb", "U+000B"},
                                       {"a\x7f", "U+007F"}}) {
      const auto job = Decode(BodyWith(field, value));
      ASSERT_FALSE(job) << field.name;
      EXPECT_EQ(job.error().message, field.name + ": contains the control character " + shown);
    }
  }
}

TEST(DecodeJobRequestTest, AcceptsTabInEveryFieldButNames) {
  for (const StringField& field : StringFields()) {
    const auto job = Decode(BodyWith(field, "a\tb"));
    if (field.kind == Kind::kName) {
      ASSERT_FALSE(job) << field.name;
      EXPECT_EQ(job.error().message, field.name + ": contains whitespace");
    } else {
      EXPECT_TRUE(job) << field.name << ": " << job.error().message;
    }
  }
}

TEST(DecodeJobRequestTest, RefusesOptionLikeValueAfterAnOption) {
  for (const StringField& field : StringFields()) {
    const auto job = Decode(BodyWith(field, "-Is"));
    if (field.kind == Kind::kName || field.kind == Kind::kLine || field.kind == Kind::kCommand) {
      ASSERT_FALSE(job) << field.name;
      EXPECT_THAT(job.error().message, StartsWith(field.name + ": starts with '-'"));
    }
  }
  // After the first word, a dash is an ordinary argument of the program.
  EXPECT_TRUE(Decode(R"({"argv":["ls","-l"]})"));
  EXPECT_TRUE(Decode(R"({"command":"x","output":"./-x.out"})"));
}

TEST(DecodeJobRequestTest, RefusesSlotsOutsideOneToMaxSlots) {
  JobRequestLimits limits;
  limits.max_slots = 64;
  EXPECT_TRUE(Decode(R"({"command":"x","slots":1})", limits));
  EXPECT_TRUE(Decode(R"({"command":"x","slots":64})", limits));
  for (const char* slots : {"0", "-1", "65", "9223372036854775807", "18446744073709551615"}) {
    const auto job = Decode(std::string(R"({"command":"x","slots":)") + slots + "}", limits);
    ASSERT_FALSE(job) << slots;
    EXPECT_EQ(job.error().message,
              std::string("slots: expected an integer from 1 to 64, got ") + slots);
  }
}

TEST(DecodeJobRequestTest, RefusesSlotsWrittenAsFloatEvenWhenWhole) {
  for (const char* slots : {"2.0", "1e2", "2.5", "\"2\""}) {
    const auto job = Decode(std::string(R"({"command":"x","slots":)") + slots + "}");
    ASSERT_FALSE(job) << slots;
    EXPECT_THAT(job.error().message, StartsWith("slots: expected an integer from 1 to 100000"));
  }
}

TEST(DecodeJobRequestTest, KeepsPathsAsPlainStringsForTheExecutionHost) {
  const auto job =
      Decode(R"({"command":"x","output":"~/logs/$USER/%J out.txt","error":"../err.%J",)"
             R"("cwd":"/no/such/dir/on/this/host"})");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->output, "~/logs/$USER/%J out.txt");
  EXPECT_EQ(job->error, "../err.%J");
  EXPECT_EQ(job->cwd, "/no/such/dir/on/this/host");
}

TEST(DecodeJobRequestTest, CutsAndEscapesUnknownKeyInMessage) {
  const std::string long_key(5000, 'k');
  const auto job = Decode(R"({"command":"x",")" + long_key + R"(":1})");
  ASSERT_FALSE(job);
  EXPECT_LT(job.error().message.size(), 100u);
  EXPECT_THAT(job.error().message, ::testing::EndsWith(": unknown field"));
  const auto escaped = Decode(R"({"command":"x","a\u001b[2J":1})");
  ASSERT_FALSE(escaped);
  EXPECT_EQ(escaped.error().message, R"("a\u001b[2J": unknown field)");
}

// ---------------------------------------------------------- robustness

// Random bytes, mutated valid bodies and random JSON trees, from a fixed
// seed: the decoder must answer every one (value or kInvalidArgument) and
// never throw or crash. About 0.2 s in a release build; no wall-clock
// assertion, which would be flaky under sanitizers or on a loaded machine.
TEST(DecodeJobRequestTest, NeverThrowsOnRandomInput) {
  std::mt19937 rng(20240611);
  const std::vector<std::string> seeds = {
      R"({"command":"echo hi","slots":2,"queues":["short"],"host":"node001"})",
      R"({"argv":["echo","a b"],"walltime":"2:30","memory":"8GB","extra_args":["-G","g"]})",
      R"({"script":"#!/bin/sh\necho\n","job_name":"j","resources":"select[mem>1]"})",
      R"({"command":"x","project":"p","app":"a","cwd":"/tmp","output":"o","error":"e"})",
  };
  const std::vector<std::string> keys = {"host",       "queues",   "command",   "argv",    "script",
                                         "job_name",   "slots",    "resources", "output",  "error",
                                         "cwd",        "walltime", "memory",    "project", "app",
                                         "extra_args", "user",     "zzz"};
  const std::vector<std::string> atoms = {"0",
                                          "1",
                                          "-1",
                                          "1.5",
                                          "1e999",
                                          "18446744073709551616",
                                          "true",
                                          "null",
                                          R"("")",
                                          R"("x")",
                                          R"("-q")",
                                          R"("\u0000")",
                                          R"("a\nb")",
                                          R"("2:30")",
                                          R"("8GB")",
                                          "[]",
                                          "{}",
                                          R"(["-G"])",
                                          R"(["-q","x"])",
                                          R"(["x",1])"};
  // Includes NUL, a byte that is never UTF-8 and a two-byte sequence.
  const std::string alphabet =
      std::string("{}[]\":,0123456789-.eE+truefalsn \\u/\n\t") + '\0' + "\xff\xc3\xa9";

  auto random_value = [&](auto& self, int depth) -> std::string {
    const int pick = std::uniform_int_distribution<int>(0, depth > 3 ? 0 : 3)(rng);
    if (pick == 0) return atoms[rng() % atoms.size()];
    if (pick == 1) {
      std::string s = "[";
      const int n = rng() % 4;
      for (int i = 0; i < n; ++i) s += (i ? "," : "") + self(self, depth + 1);
      return s + "]";
    }
    std::string s = "{";
    const int n = rng() % 5;
    for (int i = 0; i < n; ++i) {
      s += (i ? "," : "") + std::string("\"") + keys[rng() % keys.size()] +
           "\":" + self(self, depth + 1);
    }
    return s + "}";
  };

  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string body;
    switch (i % 4) {
      case 0: {  // random bytes
        const int n = rng() % 64;
        for (int k = 0; k < n; ++k) body += alphabet[rng() % alphabet.size()];
        break;
      }
      case 1: {  // a valid body with a few bytes flipped, inserted or removed
        body = seeds[rng() % seeds.size()];
        const int edits = 1 + rng() % 4;
        for (int e = 0; e < edits && !body.empty(); ++e) {
          const std::size_t at = rng() % body.size();
          switch (rng() % 3) {
            case 0:
              body[at] = alphabet[rng() % alphabet.size()];
              break;
            case 1:
              body.insert(at, 1, alphabet[rng() % alphabet.size()]);
              break;
            default:
              body.erase(at, 1);
          }
        }
        break;
      }
      case 2:  // a valid body cut short
        body = seeds[rng() % seeds.size()];
        body.resize(rng() % (body.size() + 1));
        break;
      default:  // a random JSON tree over the real field names
        body = random_value(random_value, 0);
    }
    Result<JobRequest> job = Fail(ErrorCode::kInternal, "not run");
    ASSERT_NO_THROW(job = DecodeJobRequest(body, JobRequestLimits{})) << body;
    if (job) {
      ++accepted;
      const int bodies = job->command.has_value() + job->argv.has_value() + job->script.has_value();
      EXPECT_EQ(bodies, 1) << body;
      if (job->slots) {
        EXPECT_GE(*job->slots, 1) << body;
      }
    } else {
      EXPECT_EQ(job.error().code, ErrorCode::kInvalidArgument) << body;
      EXPECT_FALSE(job.error().message.empty()) << body;
    }
  }
  EXPECT_GT(accepted, 0) << "the generator never produced a valid body";
}

}  // namespace
// A bug once: require_ib was documented and carried, but refused as unknown.
TEST(DecodeJobRequestTest, AcceptsRequireIb) {
  auto job = Decode(R"({"command":"x","require_ib":false})");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->require_ib, false);
  EXPECT_FALSE(Decode(R"({"command":"x"})")->require_ib.has_value());
  auto bad = Decode(R"({"command":"x","require_ib":"yes"})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, R"(require_ib: expected true or false, got "yes")");
}

TEST(DecodeJobRequestTest, LabelsAreBoundedTagsOfTheJob) {
  auto job = Decode(R"({"command":"x","labels":{"workflow":"w-17","step.name":"align"}})");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->labels.at("workflow"), "w-17");
  EXPECT_EQ(job->labels.size(), 2u);
  EXPECT_EQ(Decode(R"({"command":"x","labels":{"a b":"v"}})").error().message,
            "labels.a b: a label name is 1 to 63 of A-Z a-z 0-9 _ . -");
  EXPECT_EQ(Decode(R"({"command":"x","labels":{"k":3}})").error().message,
            "labels.k: expected a string, got number");
  EXPECT_EQ(Decode(R"({"command":"x","labels":["k"]})").error().message,
            "labels: expected an object of strings, got array");
}

// What DecodeJobRequest says about `body`, "" when it accepts it.
std::string DecodeError(std::string_view body, const JobRequestLimits& limits = {}) {
  const auto job = Decode(body, limits);
  return job ? "" : job.error().message;
}

std::string ScriptBody(std::string_view script, std::string_view more = "") {
  return R"({"script": )" + nlohmann::json(std::string(script)).dump() + std::string(more) + "}";
}

TEST(DecodeJobRequestTest, RefusesEachEmbeddedOptionHoleNamingTheScriptLine) {
  EXPECT_EQ(DecodeError(ScriptBody("#!/bin/sh\n#BSUB -W 10\n#BSUB -q night\necho\n")),
            "script: line 3: #BSUB -q is set by bplace (use the queues field)");
  EXPECT_EQ(DecodeError(ScriptBody("#BSUB -m node001\necho\n")),
            "script: line 1: #BSUB -m is set by bplace (use the host field)");
  EXPECT_THAT(DecodeError(ScriptBody("#BSUB -I\necho\n")),
              StartsWith("script: line 1: #BSUB -I makes bsub wait"));
  EXPECT_THAT(DecodeError(ScriptBody("#BSUB -K\necho\n")),
              StartsWith("script: line 1: #BSUB -K makes bsub wait"));
  EXPECT_THAT(DecodeError(ScriptBody("#BSUB -Jd x\necho\n")),
              StartsWith("script: line 1: #BSUB -Jd is set by bplace"));
  EXPECT_EQ(DecodeError(ScriptBody("#BSUB -n 99999999\necho\n")),
            "script: line 1: #BSUB -n 99999999: more than submit.max_slots (100000) slots");
  EXPECT_THAT(DecodeError(ScriptBody("#BSUB -J arr[1-1000000]\necho\n")),
              HasSubstr("use the `array` field"));
  EXPECT_THAT(DecodeError(ScriptBody("#BSUB -J \"abc\necho\n")),
              StartsWith("script: line 1: a quote"));
}

TEST(DecodeJobRequestTest, CountsTheScriptsSlotsAgainstMaxSlots) {
  JobRequestLimits limits;
  limits.max_slots = 16;
  EXPECT_THAT(DecodeError(ScriptBody("#BSUB -n 17\necho\n"), limits),
              HasSubstr("more than submit.max_slots (16)"));
  const auto job = Decode(ScriptBody("#BSUB -n 2,8\n#BSUB -W 10\necho\n"), limits);
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_FALSE(job->slots);
  EXPECT_EQ(job->script_slots, 8);
  EXPECT_EQ(job->SlotsPerElement(), 8);
}

TEST(DecodeJobRequestTest, RefusesSlotsInBothTheBodyAndTheScript) {
  EXPECT_EQ(DecodeError(ScriptBody("echo\n#BSUB -n 2\n", R"(, "slots": 2)")),
            "script: line 2: #BSUB -n and the `slots` field both set it; give one");
}

// bsub lets the command line replace a #BSUB option: each field and its
// script line together would drop the line silently.
TEST(DecodeJobRequestTest, RefusesEveryFieldAlsoSetByAScriptLine) {
  EXPECT_EQ(DecodeError(ScriptBody("#BSUB -R \"rusage[mem=4G]\"\necho\n",
                                   R"(, "resources": "select[x86]")")),
            "script: line 1: #BSUB -R and the `resources` field both set it; give one");
  EXPECT_EQ(DecodeError(ScriptBody("#BSUB -W 10\necho\n", R"(, "walltime": 20)")),
            "script: line 1: #BSUB -W and the `walltime` field both set it; give one");
  EXPECT_EQ(DecodeError(ScriptBody("#BSUB -o out.txt\necho\n", R"(, "output": "o")")),
            "script: line 1: #BSUB -o and the `output` field both set it; give one");
  // Without the field the line is the job's.
  const auto job =
      Decode(ScriptBody("#BSUB -R \"rusage[mem=4G]\"\n#BSUB -R span[hosts=1]\necho\n"));
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_THAT(job->script_resources, ::testing::ElementsAre("rusage[mem=4G]", "span[hosts=1]"));
}

TEST(DecodeJobRequestTest, RefusesArraySyntaxInJobName) {
  EXPECT_EQ(DecodeError(R"({"command": "x", "job_name": "arr[1-1000000]"})"),
            "job_name: holds [ or ] (LSF would make a job array of it; use the `array` field)");
  EXPECT_THAT(DecodeError(R"({"command": "x", "job_name": "a]"})"), StartsWith("job_name: holds"));
}

TEST(DecodeJobRequestTest, DecodesArrayIndexListsAndCountsElements) {
  const auto job = Decode(R"({"command": "x", "job_name": "sweep", "array": "1-100"})");
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->array, "1-100");
  EXPECT_EQ(job->array_elements, 100);
  EXPECT_EQ(Decode(R"({"command": "x", "array": "1-9:2,20,30-31"})")->array_elements, 8);
  EXPECT_EQ(Decode(R"({"command": "x", "array": "7"})")->array_elements, 1);
  EXPECT_EQ(Decode(R"({"command": "x"})")->array_elements, 1);
}

TEST(DecodeJobRequestTest, RefusesBadArrayIndexLists) {
  for (const char* list :
       {"0-5", "5-1", "1-", "1,,2", "a", "1-5:0", "3:2", "1-5%2", "99999999999", ","}) {
    const std::string body = nlohmann::json{{"command", "x"}, {"array", list}}.dump();
    EXPECT_THAT(DecodeError(body), StartsWith("array: `")) << list;
  }
  EXPECT_THAT(DecodeError(R"({"command": "x", "array": "-3"})"), StartsWith("array: starts with"));
  EXPECT_THAT(DecodeError(R"({"command": "x", "array": "1- 3"})"), StartsWith("array: contains"));
  EXPECT_EQ(DecodeError(R"({"command": "x", "array": 5})"), "array: expected a string, got number");
}

TEST(DecodeJobRequestTest, BoundsTheArrayByMaxArrayElements) {
  JobRequestLimits limits;
  limits.max_array_elements = 10;
  EXPECT_EQ(DecodeError(R"({"command": "x", "array": "1-11"})", limits),
            "array: more than submit.max_array_elements (10) elements");
  EXPECT_EQ(DecodeError(R"({"command": "x", "array": "1-5,1-5"})", limits), "");
  EXPECT_THAT(DecodeError(R"({"command": "x", "array": "1-6,1-5"})", limits),
              HasSubstr("max_array_elements"))
      << "an index in two items counts twice";
  EXPECT_THAT(DecodeError(R"({"command": "x", "array": "1-1000000"})"),
              HasSubstr("more than submit.max_array_elements (1000)"));
}

TEST(DecodeJobRequestTest, RefusesAScriptJobNameNextToArray) {
  EXPECT_EQ(DecodeError(ScriptBody("#BSUB -J n\necho\n", R"(, "array": "1-5")")),
            "script: line 1: #BSUB -J with the `array` field; give the array's name in "
            "`job_name`");
}

// docs/api.md's field table lists exactly the fields the decoder reads, in
// its order: one list, checked, so the two cannot drift.
TEST(DecodeJobRequestTest, ReadmeFieldTableIsTheDecodersTable) {
  std::ifstream readme(std::string(BPLACE_SOURCE_DIR) + "/docs/api.md");
  ASSERT_TRUE(readme) << "docs/api.md not found";
  std::string line;
  bool in_section = false;
  bool in_table = false;
  std::vector<std::string> documented;
  while (std::getline(readme, line)) {
    if (line.rfind("### `POST /v1/jobs`", 0) == 0) in_section = true;
    if (!in_section) continue;
    if (line.rfind("| field |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (in_table && line.rfind("|---", 0) == 0) continue;
    if (in_table && line.rfind("| `", 0) != 0) break;
    if (in_table) {
      const std::size_t end = line.find('`', 3);
      documented.push_back(line.substr(3, end - 3));
    }
  }
  std::vector<std::string> decoded;
  for (const JobRequestField& field : JobRequestFields()) decoded.emplace_back(field.name);
  EXPECT_EQ(documented, decoded);
}

}  // namespace bplace::api
