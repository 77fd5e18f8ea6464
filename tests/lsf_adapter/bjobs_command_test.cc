#include "lsf_adapter/bjobs_command.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "lsf_adapter/bjobs_parser.h"
#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::BsubCase;
using testing::ReadBsubCases;

using Argv = std::vector<std::string>;

std::vector<std::string> Ids(std::size_t n) {
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < n; ++i) ids.push_back(std::to_string(1000000 + i));
  return ids;
}

// What the kernel counts for one argv: strings, NULs and pointers.
std::size_t ArgvBytes(const Argv& argv) {
  std::size_t bytes = sizeof(char*);
  for (const std::string& arg : argv) bytes += arg.size() + 1 + sizeof(char*);
  return bytes;
}

CommandResult Ended(int exit_code, std::string out, std::string err) {
  CommandResult result;
  result.exit_code = exit_code;
  result.out = std::move(out);
  result.err = std::move(err);
  return result;
}

// ---- BjobsArgvChunks ----------------------------------------------------------

TEST(BjobsArgvChunksTest, AsksForTheFieldsAsJsonWithTheIdsLast) {
  auto chunks = BjobsArgvChunks("/opt/lsf/bin/bjobs", {"1234", "1234[7]"}, true);
  ASSERT_TRUE(chunks.has_value()) << chunks.error().message;
  ASSERT_EQ(chunks->size(), 1u);
  EXPECT_EQ(chunks->front(), (Argv{"/opt/lsf/bin/bjobs", "-a", "-o", BjobsOutputFields(), "-json",
                                   "1234", "1234[7]"}));
}

TEST(BjobsArgvChunksTest, AsksForTheWholeTableOnceWithoutJson) {
  auto chunks = BjobsArgvChunks("bjobs", Ids(1200), false);
  ASSERT_TRUE(chunks.has_value()) << chunks.error().message;
  ASSERT_EQ(chunks->size(), 1u);
  EXPECT_EQ(chunks->front(), (Argv{"bjobs", "-a", "-w", "-u", "all"}));
}

TEST(BjobsArgvChunksTest, GivesNoCallForNoIds) {
  EXPECT_TRUE(BjobsArgvChunks("bjobs", {}, true)->empty());
  EXPECT_TRUE(BjobsArgvChunks("bjobs", {}, false)->empty());
}

TEST(BjobsArgvChunksTest, DropsRepeatedIds) {
  auto chunks = BjobsArgvChunks("bjobs", {"7", "8", "7", "7[1]", "8"}, true);
  ASSERT_TRUE(chunks.has_value());
  const Argv& argv = chunks->front();
  EXPECT_EQ(Argv(argv.begin() + 5, argv.end()), (Argv{"7", "8", "7[1]"}));
}

TEST(BjobsArgvChunksTest, RefusesAnythingThatIsNotAJobId) {
  for (const char* bad : {"", "0", "-a", "-u", "1;rm -rf /", "12 3", "1234[1-3]", "01", "all"}) {
    for (bool json : {true, false}) {
      auto chunks = BjobsArgvChunks("bjobs", {"1", bad}, json);
      ASSERT_FALSE(chunks.has_value()) << bad;
      EXPECT_EQ(chunks.error().code, ErrorCode::kInvalidArgument);
      EXPECT_NE(chunks.error().message.find(std::string("\"") + bad + "\""), std::string::npos)
          << chunks.error().message;
    }
  }
}

TEST(BjobsArgvChunksTest, SplitsByCountKeepingEveryIdOnceInOrder) {
  const std::vector<std::string> ids = Ids(1201);
  auto chunks = BjobsArgvChunks("bjobs", ids, true);
  ASSERT_TRUE(chunks.has_value()) << chunks.error().message;
  ASSERT_EQ(chunks->size(), 3u);
  std::vector<std::string> seen;
  for (const Argv& argv : *chunks) {
    EXPECT_LE(argv.size() - 5, kBjobsMaxIdsPerCall);
    EXPECT_LE(ArgvBytes(argv) + kBjobsEnvironmentMargin, kBjobsMaxArgBytes);
    seen.insert(seen.end(), argv.begin() + 5, argv.end());
  }
  EXPECT_EQ((*chunks)[2].size() - 5, 201u);
  EXPECT_EQ(seen, ids);
}

TEST(BjobsArgvChunksTest, SplitsByBytesUnderTheLimit) {
  const std::vector<std::string> ids = Ids(100);
  const std::size_t base = ArgvBytes({"bjobs", "-a", "-o", BjobsOutputFields(), "-json"});
  // Room for ten 7-digit ids per call.
  const std::size_t limit = kBjobsEnvironmentMargin + base + 10 * (7 + 1 + sizeof(char*));
  auto chunks = BjobsArgvChunks("bjobs", ids, true, limit);
  ASSERT_TRUE(chunks.has_value()) << chunks.error().message;
  ASSERT_EQ(chunks->size(), 10u);
  std::vector<std::string> seen;
  for (const Argv& argv : *chunks) {
    EXPECT_EQ(argv.size() - 5, 10u);
    EXPECT_LE(ArgvBytes(argv) + kBjobsEnvironmentMargin, limit);
    seen.insert(seen.end(), argv.begin() + 5, argv.end());
  }
  EXPECT_EQ(seen, ids);
  EXPECT_EQ(BjobsArgvChunks("bjobs", ids, true, limit - 1)->size(), 12u);
}

TEST(BjobsArgvChunksTest, RefusesLimitsThatLeaveNoRoom) {
  auto tiny = BjobsArgvChunks("bjobs", {"1"}, true, 1024);
  ASSERT_FALSE(tiny.has_value());
  EXPECT_EQ(tiny.error().code, ErrorCode::kInvalidArgument);
  auto none = BjobsArgvChunks("bjobs", {"1"}, true, kBjobsMaxArgBytes, 0);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, ErrorCode::kInvalidArgument);
}

// ---- BjobsRefusedOutputFormat and ReadBjobsReply on the captures ----------------

// What ReadBjobsReply must make of each case of the bjobs_replies.txt files,
// by their `outcome:` line.
struct Expected {
  bool refused_format;
  std::optional<ErrorCode> code;  // nullopt: records
};

Expected ExpectedFor(const std::string& outcome) {
  if (outcome == "refused_format") return {true, ErrorCode::kCommandFailed};
  if (outcome == "command_error") return {true, ErrorCode::kCommandFailed};  // illegal field
  if (outcome == "not_found") return {false, ErrorCode::kCommandFailed};
  if (outcome == "unavailable") return {false, ErrorCode::kUnavailable};
  return {false, std::nullopt};  // records, no_jobs
}

TEST(ReadBjobsReplyTest, ReadsEveryCapturedReply) {
  for (const char* file : {"lsf/lsf10/bjobs_replies.txt", "lsf/openlava/bjobs_replies.txt"}) {
    const std::vector<BsubCase> cases = ReadBsubCases(file);
    ASSERT_FALSE(cases.empty()) << file;
    for (const BsubCase& c : cases) {
      const CommandResult result = Ended(c.exit_code, c.out, c.err);
      const bool json = c.source.find("-json") != std::string::npos;
      const Expected expected = ExpectedFor(c.outcome);
      EXPECT_EQ(BjobsRefusedOutputFormat(result), expected.refused_format)
          << file << " case " << c.name;
      auto jobs = ReadBjobsReply(result, json);
      if (expected.code) {
        ASSERT_FALSE(jobs.has_value()) << file << " case " << c.name;
        EXPECT_EQ(jobs.error().code, *expected.code) << file << " case " << c.name;
        EXPECT_EQ(jobs.error().message.rfind("bjobs -a ", 0), 0u) << jobs.error().message;
      } else {
        ASSERT_TRUE(jobs.has_value()) << file << " case " << c.name << ": " << jobs.error().message;
        EXPECT_EQ(jobs->size(), c.outcome == "records" ? 2u : 0u) << file << " case " << c.name;
      }
    }
  }
}

TEST(ReadBjobsReplyTest, ReadsAnAnswerWithUnknownIdsDespiteExitStatus255) {
  auto jobs = ReadBjobsReply(
      Ended(255, testing::ReadTestdata("lsf/lsf10/bjobs_json_lifecycle.txt"), ""), true);
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  EXPECT_EQ(jobs->size(), 8u);
  EXPECT_TRUE(jobs->back().not_found);
}

TEST(ReadBjobsReplyTest, ReadsTheTableAnswer) {
  auto jobs = ReadBjobsReply(Ended(0, testing::ReadTestdata("lsf/lsf10/bjobs_a_w.txt"), ""), false);
  ASSERT_TRUE(jobs.has_value()) << jobs.error().message;
  EXPECT_EQ(jobs->size(), 6u);
}

TEST(ReadBjobsReplyTest, RefusesAnAnswerCutShort) {
  const std::string whole = testing::ReadTestdata("lsf/lsf10/bjobs_json_lifecycle.txt");
  const std::string half = whole.substr(0, whole.size() / 2);
  for (int exit_code : {0, 255}) {
    auto jobs = ReadBjobsReply(Ended(exit_code, half, ""), true);
    ASSERT_FALSE(jobs.has_value()) << exit_code;
    EXPECT_EQ(jobs.error().code, ErrorCode::kParseError) << exit_code;
  }
  auto table = testing::ReadTestdata("lsf/lsf10/bjobs_a_w.txt");
  auto cut = ReadBjobsReply(Ended(0, table.substr(0, table.size() - 5), ""), false);
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().code, ErrorCode::kParseError);
}

TEST(ReadBjobsReplyTest, ReportsATimeoutAndARunnerThatCouldNotStartBjobs) {
  CommandResult hung = Ended(-1, "", "LSF is down. Please wait...\n");
  hung.timed_out = true;
  hung.term_signal = 9;
  EXPECT_FALSE(BjobsRefusedOutputFormat(hung));
  auto timed_out = ReadBjobsReply(hung, true);
  ASSERT_FALSE(timed_out.has_value());
  EXPECT_EQ(timed_out.error().code, ErrorCode::kTimeout);

  auto not_started =
      ReadBjobsReply(Fail(ErrorCode::kCommandFailed, "execve bjobs: No such file"), false);
  ASSERT_FALSE(not_started.has_value());
  EXPECT_EQ(not_started.error().code, ErrorCode::kUnavailable);
}

// The per-id bjobs that confirms a job left LSF (docs/api.md "Jobs: following and cancelling"):
// only LSF's own "not found" of that id confirms; silence or other jobs confirm nothing.
TEST(ReadBjobsConfirmationTest, OnlyLsfsNotFoundOfTheIdConfirms) {
  const std::string error_7 =
      "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":1,\n  \"RECORDS\":[\n    {\n"
      "      \"JOBID\":\"7\",\n      \"ERROR\":\"Job <7> is not found\"\n    }\n  ]\n}\n";
  auto gone = ReadBjobsConfirmation(Ended(255, error_7, ""), "7", true);
  ASSERT_TRUE(gone) << gone.error().message;
  EXPECT_TRUE(gone->not_found);
  EXPECT_TRUE(gone->records.empty());
  const std::string nothing =
      "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":0,\n  \"RECORDS\":[\n  ]\n}\n";
  auto silent = ReadBjobsConfirmation(Ended(0, nothing, ""), "7", true);
  ASSERT_FALSE(silent);
  EXPECT_EQ(silent.error().code, ErrorCode::kParseError);
  EXPECT_FALSE(ReadBjobsConfirmation(Ended(255, error_7, ""), "8", true)) << "another id";
  const auto table_gone =
      ReadBjobsConfirmation(Ended(255, "", "Job <7> is not found\n"), "7", false);
  ASSERT_TRUE(table_gone);
  EXPECT_TRUE(table_gone->not_found);
  const auto table_listed = ReadBjobsConfirmation(
      Ended(0,
            "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
            "7       alice   RUN   normal     login01     node001     sleep      Dec 31 23:50\n",
            ""),
      "7", false);
  ASSERT_TRUE(table_listed) << table_listed.error().message;
  EXPECT_FALSE(table_listed->not_found);
  ASSERT_EQ(table_listed->records.size(), 1u);
  EXPECT_EQ(table_listed->records[0].status, "RUN");
  EXPECT_EQ(BjobsConfirmArgs("7", false), (Argv{"-a", "-w", "7"}));
}

TEST(BjobsRefusedOutputFormatTest, RecognisesVolclavasRefusals) {
  // lsbatch/cmd/bjobs.c of volclava 2.2: an unknown -o field, and -o after -w.
  EXPECT_TRUE(BjobsRefusedOutputFormat(
      Ended(99, "", "<JOBINDEX> in the format string is not a valid field name.\n")));
  EXPECT_TRUE(BjobsRefusedOutputFormat(
      Ended(255, "",
            "Usage: bjobs [-h] [-V] [-w |-l |-UF] [-a] [-d] [-p] [-s] [-r] [-o] [-json] [-A]\n"
            "             [-m host_name] [-q queue_name] [-u user_name | -u all]\n")));
  EXPECT_TRUE(BjobsRefusedOutputFormat(Ended(255, "", "bjobs: illegal option -- j\n")));
  EXPECT_TRUE(BjobsRefusedOutputFormat(Ended(1, "", "bjobs: invalid option -- 'o'\n")));
}

TEST(BjobsRefusedOutputFormatTest, IgnoresOtherEndings) {
  EXPECT_FALSE(BjobsRefusedOutputFormat(Ended(0, "Usage: none\n", "")));
  EXPECT_FALSE(BjobsRefusedOutputFormat(Ended(255, "", "Job <999> is not found\n")));
  EXPECT_FALSE(BjobsRefusedOutputFormat(Ended(255, "", "Connection refused by server\n")));
  EXPECT_FALSE(BjobsRefusedOutputFormat(Ended(254, "", "No job found\n")));
}

}  // namespace
}  // namespace bplace::lsf
