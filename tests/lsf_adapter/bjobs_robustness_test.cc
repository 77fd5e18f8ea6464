// The bjobs and bkill readers must return a value or an error, never crash,
// throw or hang, whatever LSF (or a broken pipe) hands them. As
// parser_robustness_test.cc does for the other parsers, these tests feed
// them mutations of the captured samples (byte flips, inserts, cuts, line
// shuffles, tokens of the grammar, random bytes) with a fixed seed, so a
// failure reproduces, and every truncation of every sample. The suite also
// runs under ASan/UBSan, which turns an out-of-bounds read into a failure.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lsf_adapter/bjobs_command.h"
#include "lsf_adapter/bjobs_parser.h"
#include "lsf_adapter/bkill_reply.h"
#include "lsf_adapter/lsf_time.h"
#include "tests/lsf_adapter/testdata.h"
#include "tests/lsf_adapter/text_mutator.h"

namespace bplace::lsf {
namespace {

using testing::ReadBsubCases;
using testing::ReadTestdata;
using testing::ReadTestdataFiles;
using testing::TextMutator;

constexpr int kInputsPerReader = 20000;
constexpr std::uint32_t kBjobsSeed = 20261201;

// Text that steers mutated input into the readers' interesting branches.
const std::vector<std::string> kBjobsTokens = {"\n",
                                               "\r\n",
                                               " ",
                                               "\t",
                                               "-",
                                               "*",
                                               ":",
                                               "[",
                                               "]",
                                               "<",
                                               ">",
                                               "{",
                                               "}",
                                               "[{",
                                               "}]",
                                               ",",
                                               "\"",
                                               "\\",
                                               "null",
                                               "1e308",
                                               "-1",
                                               "99999999999999999999",
                                               "\"JOBS\":",
                                               "\"RECORDS\":[",
                                               "\"JOBID\":\"",
                                               "\"ERROR\":\"Job <",
                                               "\"EXEC_HOST\":\"4*",
                                               "\"JOBINDEX\":\"",
                                               "\"FINISH_TIME\":\"Nov 30 11:40 L\"",
                                               "JOBID ",
                                               "EXEC_HOST   JOB_NAME   SUBMIT_TIME",
                                               "                                             ",
                                               "Nov 30 11:40",
                                               " 2026",
                                               "Feb 29 ",
                                               "4*node001:",
                                               "node[1-3]",
                                               "Job <1234[7]>",
                                               " is being terminated",
                                               ": Job has ",
                                               "No matching job found",
                                               "LSF is down. Please wait...\n",
                                               "\xff\xfe",
                                               std::string(1, '\0')};

const std::vector<std::string>& JsonSamples() {
  static const std::vector<std::string> samples =
      ReadTestdataFiles({"lsf/lsf10/bjobs_json_lifecycle.txt", "lsf/lsf10/bjobs_json_not_found.txt",
                         "lsf/openlava/bjobs_json.txt"});
  return samples;
}

const std::vector<std::string>& TableSamples() {
  static const std::vector<std::string> samples =
      ReadTestdataFiles({"lsf/lsf10/bjobs_a_w.txt", "lsf/lsf10/bjobs_a.txt",
                         "lsf/openlava/bjobs_u_all_w.txt", "lsf/openlava/bjobs_a_u_all.txt",
                         "lsf/openlava/bjobs_u_all.txt", "lsf/openlava/bjobs_a_u_all_w_unkwn.txt"});
  return samples;
}

// A parse that ended well holds only records a caller can use; a failure
// says why.
::testing::AssertionResult SoundJobRecords(const Result<std::vector<JobRecord>>& jobs) {
  if (!jobs) {
    if (jobs.error().message.empty()) return ::testing::AssertionFailure() << "empty error";
    return ::testing::AssertionSuccess();
  }
  for (const JobRecord& job : *jobs) {
    if (!job.not_found && !ParseJobId(job.job_id)) {
      return ::testing::AssertionFailure() << "record with job id \"" << job.job_id << "\"";
    }
    for (const ExecHost& host : job.exec_hosts) {
      if (host.name.empty() || host.slots <= 0) {
        return ::testing::AssertionFailure() << "exec host \"" << host.name << "\"";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

void FuzzParser(const std::vector<std::string>& samples,
                const std::function<Result<std::vector<JobRecord>>(std::string_view)>& parse,
                std::uint32_t seed) {
  ASSERT_FALSE(samples.empty());
  TextMutator mutator(seed, kBjobsTokens);
  std::string input;
  int parsed = 0;
  for (int i = 0; i < kInputsPerReader; ++i) {
    mutator.Mutate(samples[mutator.Below(samples.size())], input);
    const auto jobs = parse(input);
    ASSERT_TRUE(SoundJobRecords(jobs)) << "input #" << i << " (seed " << seed << ")";
    parsed += jobs.has_value() ? 1 : 0;
  }
  // Mutations that all fail early would test nothing past the first check.
  EXPECT_GT(parsed, kInputsPerReader / 20) << "too few mutations parse";
}

TEST(BjobsRobustnessTest, JsonNeverCrashesOnMutatedInput) {
  FuzzParser(
      JsonSamples(), [](std::string_view text) { return ParseBjobsJson(text); }, kBjobsSeed);
}

TEST(BjobsRobustnessTest, TableNeverCrashesOnMutatedInput) {
  FuzzParser(
      TableSamples(), [](std::string_view text) { return ParseBjobsTable(text); }, kBjobsSeed + 1);
}

TEST(BjobsRobustnessTest, ParsersNeverCrashOnRandomBytes) {
  TextMutator mutator(kBjobsSeed + 2, kBjobsTokens);
  std::string input;
  for (int i = 0; i < kInputsPerReader; ++i) {
    input.clear();
    for (std::size_t n = mutator.Below(400); n > 0; --n) {
      input.push_back(static_cast<char>(mutator.Below(256)));
    }
    ASSERT_TRUE(SoundJobRecords(ParseBjobsJson(input))) << i;
    ASSERT_TRUE(SoundJobRecords(ParseBjobsTable(input))) << i;
    ASSERT_TRUE(SoundJobRecords(ParseBjobsJson("{" + input))) << i;
  }
}

// A JSON answer cut anywhere before its closing brace must never read as a
// complete (smaller) answer.
TEST(BjobsRobustnessTest, EveryTruncationOfAJsonSampleIsAnError) {
  for (const std::string& sample : JsonSamples()) {
    const std::size_t end = sample.rfind('}');
    ASSERT_NE(end, std::string::npos);
    for (std::size_t length = 0; length <= end; ++length) {
      const auto jobs = ParseBjobsJson(std::string_view(sample).substr(0, length));
      ASSERT_FALSE(jobs.has_value()) << "cut at " << length;
      ASSERT_FALSE(jobs.error().message.empty());
    }
    EXPECT_TRUE(ParseBjobsJson(sample).has_value());
  }
}

// A table cut inside a line may look like a shorter table; the command's
// ending (no final newline) is what tells: ReadBjobsReply refuses it.
TEST(BjobsRobustnessTest, EveryTruncationOfATableInsideALineIsAnError) {
  for (const std::string& sample : TableSamples()) {
    for (std::size_t length = 0; length < sample.size(); ++length) {
      const std::string_view cut = std::string_view(sample).substr(0, length);
      ASSERT_TRUE(SoundJobRecords(ParseBjobsTable(cut))) << "cut at " << length;
      if (cut.empty() || cut.back() == '\n') continue;
      CommandResult result;
      result.exit_code = 0;
      result.out = std::string(cut);
      const auto jobs = ReadBjobsReply(result, false);
      ASSERT_FALSE(jobs.has_value()) << "cut at " << length;
      ASSERT_EQ(jobs.error().code, ErrorCode::kParseError);
    }
  }
}

TEST(BjobsRobustnessTest, ParseExecHostsNeverCrashesOnRandomText) {
  TextMutator mutator(kBjobsSeed + 3, kBjobsTokens);
  constexpr std::string_view kAlphabet = "ab01*: -\t";
  for (int i = 0; i < kInputsPerReader; ++i) {
    std::string text;
    for (std::size_t n = mutator.Below(24); n > 0; --n) {
      text += kAlphabet[mutator.Below(kAlphabet.size())];
    }
    const auto hosts = ParseExecHosts(text);
    if (!hosts) {
      ASSERT_FALSE(hosts.error().message.empty()) << text;
      continue;
    }
    for (const ExecHost& host : *hosts) {
      ASSERT_FALSE(host.name.empty()) << text;
      ASSERT_GT(host.slots, 0) << text;
    }
  }
}

TEST(BjobsRobustnessTest, ParseLsfTimeNeverCrashesAndNeverGoesPastTheSlack) {
  const SystemTime now = SystemTime{std::chrono::sys_days{std::chrono::year{2026} / 11 / 30}};
  const std::vector<std::string> words = {"Nov",
                                          "Feb",
                                          "Mon",
                                          "Sun",
                                          "29",
                                          "30",
                                          "31",
                                          "0",
                                          "3",
                                          "11:40",
                                          "23:59:59",
                                          "24:00",
                                          "11/30-11:40:51",
                                          "2026",
                                          "12/31-",
                                          ":",
                                          "/",
                                          "-",
                                          " ",
                                          "  ",
                                          "\t",
                                          "x"};
  TextMutator mutator(kBjobsSeed + 4, kBjobsTokens);
  for (int i = 0; i < kInputsPerReader; ++i) {
    std::string text;
    bool has_year = false;
    for (std::size_t n = mutator.Below(6); n > 0; --n) {
      const std::string& word = words[mutator.Below(words.size())];
      has_year = has_year || word == "2026";
      text += word;
      if (mutator.Below(3) != 0) text += ' ';
    }
    const int offset = static_cast<int>(mutator.Below(2 * 19 * 60)) - 19 * 60;
    const auto time = ParseLsfTime(text, now, offset);
    if (time && !has_year) {
      ASSERT_LE(*time, now + std::chrono::hours(24)) << '"' << text << '"';
    }
  }
}

TEST(BjobsRobustnessTest, ArgvNeverCarriesAWordThatIsNotAJobId) {
  TextMutator mutator(kBjobsSeed + 5, kBjobsTokens);
  constexpr std::string_view kAlphabet = "0123456789[]- ;a";
  for (int i = 0; i < kInputsPerReader / 10; ++i) {
    std::vector<std::string> ids;
    for (std::size_t n = 1 + mutator.Below(6); n > 0; --n) {
      std::string id;
      for (std::size_t k = mutator.Below(8); k > 0; --k) {
        id += kAlphabet[mutator.Below(kAlphabet.size())];
      }
      ids.push_back(id);
    }
    const auto chunks = BjobsArgvChunks("bjobs", ids, true, 20000 + mutator.Below(10000), 3);
    if (!chunks) {
      ASSERT_EQ(chunks.error().code, ErrorCode::kInvalidArgument);
      continue;
    }
    for (const auto& argv : *chunks) {
      ASSERT_GE(argv.size(), 6u);
      for (std::size_t k = 5; k < argv.size(); ++k) {
        ASSERT_TRUE(ParseJobId(argv[k])) << argv[k];
      }
    }
  }
}

TEST(BjobsRobustnessTest, RepliesNeverCrashTheClassifiers) {
  std::vector<std::string> samples;
  for (const char* file : {"lsf/lsf10/bkill_replies.txt", "lsf/openlava/bkill_replies.txt",
                           "lsf/lsf10/bjobs_replies.txt", "lsf/openlava/bjobs_replies.txt"}) {
    for (const testing::BsubCase& c : ReadBsubCases(file)) {
      samples.push_back(c.out);
      samples.push_back(c.err);
    }
  }
  TextMutator mutator(kBjobsSeed + 6, kBjobsTokens);
  constexpr int kExitCodes[] = {0, 255, 254, 99, -1};
  CommandResult result;
  for (int i = 0; i < kInputsPerReader; ++i) {
    mutator.Mutate(samples[mutator.Below(samples.size())], result.out);
    mutator.Mutate(samples[mutator.Below(samples.size())], result.err);
    result.exit_code = kExitCodes[mutator.Below(5)];
    const std::vector<BkillResult> kills =
        ClassifyBkillReply(result.exit_code, result.out, result.err);
    ASSERT_FALSE(kills.empty());
    for (const BkillResult& kill : kills) {
      ASSERT_TRUE(kill.job_id.empty() || ParseJobId(kill.job_id)) << kill.job_id;
    }
    BjobsRefusedOutputFormat(result);
    ASSERT_TRUE(SoundJobRecords(ReadBjobsReply(result, mutator.Below(2) == 0)));
  }
}

}  // namespace
}  // namespace bplace::lsf
