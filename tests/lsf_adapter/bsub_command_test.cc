#include "lsf_adapter/bsub_command.h"

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace::lsf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

BsubOptions Minimal() {
  BsubOptions options;
  options.queue = "normal";
  options.description = "bplace:6f1c";
  options.command = "echo hi";
  return options;
}

TEST(BuildBsubArgvTest, PutsQueueTagAndCommandAsOneArgument) {
  EXPECT_THAT(BuildBsubArgv("/opt/lsf/bin/bsub", Minimal()),
              ElementsAre("/opt/lsf/bin/bsub", "-q", "normal", "-Jd", "bplace:6f1c", "echo hi"));
}

TEST(BuildBsubArgvTest, PutsHostRightAfterQueue) {
  BsubOptions options = Minimal();
  options.host = "node001";
  EXPECT_THAT(BuildBsubArgv("bsub", options), ElementsAre("bsub", "-q", "normal", "-m", "node001",
                                                          "-Jd", "bplace:6f1c", "echo hi"));
}

TEST(BuildBsubArgvTest, PutsEveryOptionInFixedOrderBeforeCommand) {
  BsubOptions options = Minimal();
  options.host = "node001";
  options.job_name = "align";
  options.slots = 48;
  options.resources = {"span[ptile=24] select[ib_ok==1]"};
  options.output = "out.%J";
  options.error = "err.%J";
  options.cwd = "/scratch/alice dir";
  options.walltime = "2:30";
  options.memory = "8GB";
  options.project = "chem";
  options.app = "fluent";
  options.extra_args = {"-G", "grp_chem", "-B"};
  options.command = "mpirun -np 48 ./a.out 'x y'";
  EXPECT_THAT(
      BuildBsubArgv("bsub", options),
      ElementsAre("bsub", "-q", "normal", "-m", "node001", "-Jd", "bplace:6f1c", "-J", "align",
                  "-n", "48", "-R", "span[ptile=24] select[ib_ok==1]", "-o", "out.%J", "-e",
                  "err.%J", "-cwd", "/scratch/alice dir", "-W", "2:30", "-M", "8GB", "-P", "chem",
                  "-app", "fluent", "-G", "grp_chem", "-B", "mpirun -np 48 ./a.out 'x y'"));
}

TEST(BuildBsubArgvTest, LeavesOutCommandWhenScriptIsOnStdin) {
  BsubOptions options = Minimal();
  options.script_on_stdin = true;
  EXPECT_THAT(BuildBsubArgv("bsub", options),
              ElementsAre("bsub", "-q", "normal", "-Jd", "bplace:6f1c"));
  options.command.reset();
  EXPECT_THAT(BuildBsubArgv("bsub", options),
              ElementsAre("bsub", "-q", "normal", "-Jd", "bplace:6f1c"));
}

TEST(BuildBsubArgvTest, KeepsShellCharactersInsideOneArgument) {
  BsubOptions options = Minimal();
  options.command = "a; rm -rf / && echo $HOME `id` | cat > f";
  const auto argv = BuildBsubArgv("bsub", options);
  EXPECT_EQ(argv.back(), "a; rm -rf / && echo $HOME `id` | cat > f");
  EXPECT_EQ(argv.size(), 6u);
}

struct QuoteCase {
  std::string word;
  std::string quoted;
};
std::ostream& operator<<(std::ostream& os, const QuoteCase& c) { return os << c.word; }

class ShellQuoteTest : public ::testing::TestWithParam<QuoteCase> {};

TEST_P(ShellQuoteTest, QuotesForPosixShell) {
  EXPECT_EQ(ShellQuote(GetParam().word), GetParam().quoted);
}

INSTANTIATE_TEST_SUITE_P(
    Words, ShellQuoteTest,
    ::testing::Values(QuoteCase{"echo", "echo"}, QuoteCase{"/usr/bin/env", "/usr/bin/env"},
                      QuoteCase{"-np", "-np"}, QuoteCase{"a=b,c:d+e@f%g_h.i", "a=b,c:d+e@f%g_h.i"},
                      QuoteCase{"", "''"}, QuoteCase{"a b", "'a b'"},
                      QuoteCase{"it's", "'it'\\''s'"}, QuoteCase{"'", "''\\'''"},
                      QuoteCase{"$HOME", "'$HOME'"}, QuoteCase{"`id`", "'`id`'"},
                      QuoteCase{"a;b", "'a;b'"}, QuoteCase{"*.txt", "'*.txt'"},
                      QuoteCase{"~", "'~'"}, QuoteCase{"#x", "'#x'"}, QuoteCase{"a\"b", "'a\"b'"},
                      QuoteCase{"back\\slash", "'back\\slash'"},
                      QuoteCase{"tab\there", "'tab\there'"}, QuoteCase{"new\nline", "'new\nline'"},
                      QuoteCase{"\xc3\xa9t\xc3\xa9", "'\xc3\xa9t\xc3\xa9'"},
                      QuoteCase{"a|b&c>d<e(f)g{h}i[j]k!l?m", "'a|b&c>d<e(f)g{h}i[j]k!l?m'"}));

TEST(JoinShellQuotedTest, JoinsQuotedWordsWithSpaces) {
  EXPECT_EQ(JoinShellQuoted({"echo", "a b", "it's"}), "echo 'a b' 'it'\\''s'");
  EXPECT_EQ(JoinShellQuoted({"printf", "%s\\n", ""}), "printf '%s\\n' ''");
  EXPECT_EQ(JoinShellQuoted({"true"}), "true");
  EXPECT_EQ(JoinShellQuoted({}), "");
}

// BUG: "=" counts as a plain character, so a first word such as "A=1" stays
// bare and the shell on the execution host reads it as a variable
// assignment, not as the program to run: JoinShellQuoted({"A=1", "prog"})
// gives "A=1 prog", which runs prog with A set. Only the first word is at
// risk (later words are arguments), so quoting it when it holds "=" is enough.
TEST(JoinShellQuotedTest, FirstWordWithEqualsSignIsNotAnAssignment) {
  EXPECT_EQ(JoinShellQuoted({"A=1", "prog"}), "'A=1' prog");
}

TEST(JoinShellQuotedTest, LaterWordsWithEqualsSignStayBare) {
  EXPECT_EQ(JoinShellQuoted({"env", "A=1", "prog"}), "env A=1 prog");
}

struct ExtraArgsCase {
  std::string label;
  std::vector<std::string> args;
  std::string message_part;  // empty: accepted
};
std::ostream& operator<<(std::ostream& os, const ExtraArgsCase& c) { return os << c.label; }

class CheckExtraArgsTest : public ::testing::TestWithParam<ExtraArgsCase> {};

TEST_P(CheckExtraArgsTest, AcceptsOrRefusesNamingArgument) {
  const ExtraArgsCase& c = GetParam();
  const Result<void> result = CheckExtraArgs(c.args);
  if (c.message_part.empty()) {
    EXPECT_TRUE(result) << result.error().message;
    return;
  }
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(result.error().message, StartsWith("extra_args["));
  EXPECT_THAT(result.error().message, HasSubstr(c.message_part));
}

std::vector<ExtraArgsCase> RefusedEach(const std::string& label, std::vector<std::string> flags,
                                       const std::string& part) {
  std::vector<ExtraArgsCase> cases;
  for (const auto& flag : flags) cases.push_back({label + flag, {flag, "v"}, part});
  return cases;
}

std::vector<ExtraArgsCase> AllExtraArgsCases() {
  std::vector<ExtraArgsCase> cases = {
      {"empty_list", {}, ""},
      {"valued_and_flag_options", {"-G", "grp_chem", "-x", "-B", "-N", "-sla", "gold"}, ""},
      // Found by an attack run: the value slot hid a -q.
      {"value_that_looks_like_an_option",
       {"-G", "-q"},
       "extra_args[1] -q: the value of -G starts with '-'"},
      {"value_with_spaces", {"-E", "/bin/check a b"}, ""},
      {"bare_word", {"rm"}, "extra_args[0] rm: not a bsub option"},
      {"bare_word_after_flag", {"-x", "rm"}, "extra_args[1] rm"},
      {"empty_word", {""}, "extra_args[0] ''"},
      {"missing_value", {"-G"}, "needs a value"},
      {"missing_value_at_end", {"-x", "-sla"}, "extra_args[1] -sla: needs a value"},
      {"unknown_option", {"--frobnicate"}, "not a bsub option bplace passes on"},
      {"unknown_short_option", {"-Z"}, "not a bsub option bplace passes on"},
      {"lone_dash", {"-"}, "not a bsub option"},
      {"option_with_attached_value", {"-qnormal"}, "not a bsub option"},
      {"case_matters", {"-X"}, "not a bsub option"},
  };
  // Options the daemon sets itself or that have request fields.
  for (auto& c : RefusedEach(
           "daemon_owned",
           {"-q", "-m", "-Jd", "-J", "-n", "-R", "-o", "-e", "-cwd", "-W", "-M", "-P", "-app"},
           "set by bplace")) {
    cases.push_back(c);
  }
  // Options that make bsub wait or take a terminal.
  for (auto& c : RefusedEach(
           "blocking", {"-I", "-Ip", "-Is", "-IS", "-ISp", "-ISs", "-IX", "-K", "-tty", "-XF"},
           "makes bsub wait")) {
    cases.push_back(c);
  }
  // Options that replace the submission.
  for (auto& c : RefusedEach("replacing", {"-pack", "-h", "-V", "-Zs"}, "not allowed")) {
    cases.push_back(c);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryClass, CheckExtraArgsTest, ::testing::ValuesIn(AllExtraArgsCases()),
                         [](const ::testing::TestParamInfo<ExtraArgsCase>& info) {
                           std::string name;
                           for (char c : info.param.label) {
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           }
                           return name + "_" + std::to_string(info.index);
                         });

TEST(CheckExtraArgsOrderTest, RefusedOptionIsFoundAfterValuedOption) {
  const Result<void> result = CheckExtraArgs({"-G", "grp", "-x", "-K"});
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, StartsWith("extra_args[3] -K"));
}

TEST(ExtraArgTakesValueTest, AgreesWithCheckExtraArgs) {
  EXPECT_EQ(ExtraArgTakesValue("-G"), true);
  EXPECT_EQ(ExtraArgTakesValue("-B"), false);
  EXPECT_EQ(ExtraArgTakesValue("-q"), std::nullopt);   // the daemon's own
  EXPECT_EQ(ExtraArgTakesValue("-Is"), std::nullopt);  // waits for a terminal
  EXPECT_EQ(ExtraArgTakesValue("node1"), std::nullopt);
  for (const char* flag : {"-G", "-B", "-sla", "-x", "-N"}) {
    std::vector<std::string> args = {flag};
    if (*ExtraArgTakesValue(flag)) args.push_back("value");
    EXPECT_TRUE(CheckExtraArgs(args).has_value()) << flag;
  }
}
}  // namespace
}  // namespace bplace::lsf
