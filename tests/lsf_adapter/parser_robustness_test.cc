// Every parser must return a value or an error, never crash, throw or hang,
// on any input. These tests feed each one inputs made by mutating the captured
// samples (byte flips, inserts, cuts, line shuffles, tokens that matter to the
// grammar, random bytes) with a fixed seed, so a failure reproduces. The suite
// also runs under ASan/UBSan, which turns any out-of-bounds read into a
// failure.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lsf_adapter/bhosts_parser.h"
#include "lsf_adapter/bqueues_long_parser.h"
#include "lsf_adapter/bqueues_parser.h"
#include "lsf_adapter/bsub_reply.h"
#include "lsf_adapter/group_parser.h"
#include "lsf_adapter/lsid_parser.h"
#include "lsf_adapter/lsload_parser.h"
#include "tests/lsf_adapter/testdata.h"
#include "tests/lsf_adapter/text_mutator.h"

namespace bplace::lsf {
namespace {

using testing::ReadBsubCases;
using testing::ReadTestdata;
using testing::ReadTestdataFiles;
using testing::TextMutator;

constexpr int kInputsPerParser = 20000;
constexpr std::uint32_t kParserSeed = 20261130;

// Text that steers mutated input into the parsers' interesting branches.
const std::vector<std::string> kParserTokens = {"\n",
                                                "\r\n",
                                                " ",
                                                "\t",
                                                "-",
                                                "*",
                                                "[",
                                                "]",
                                                "(",
                                                ")",
                                                ",",
                                                ":",
                                                "/",
                                                "~",
                                                "all ",
                                                "QUEUE: ",
                                                "PARAMETERS/STATISTICS\n",
                                                "USERS: ",
                                                "HOSTS:  ",
                                                "  -- ",
                                                "RES_REQ: ",
                                                "QUEUE_NAME ",
                                                "HOST_NAME ",
                                                "GROUP_NAME    HOSTS\n",
                                                "GROUP_NAME    USERS\n",
                                                "status ",
                                                "Open:Active",
                                                "Closed:Inact_Adm",
                                                "Open:",
                                                "99999999999999999999",
                                                "-9223372036854775808",
                                                "node[001-128,130]",
                                                "n[1-999]",
                                                "n[1-99999999]",
                                                "n[9-1]",
                                                "( - ) ",
                                                "(admin",
                                                "Job <",
                                                "> is submitted to ",
                                                "queue <",
                                                "default ",
                                                ". Job not submitted.",
                                                "My cluster name is ",
                                                "My master name is ",
                                                "{",
                                                "}",
                                                "\"RECORDS\":[",
                                                "\"QUEUE_NAME\":",
                                                "\"STATUS\":\"Open:Active\"",
                                                "\xff\xfe",
                                                std::string(1, '\0'),
                                                "1e308",
                                                "nan",
                                                "inf"};

// Runs `parse` on kInputsPerParser mutations of `samples`. `parse` returns
// false when it failed without a message (every error must say something).
void Fuzz(const std::vector<std::string>& samples,
          const std::function<bool(std::string_view)>& parse, std::uint32_t seed) {
  ASSERT_FALSE(samples.empty());
  TextMutator mutator(seed, kParserTokens);
  std::string input;
  for (int i = 0; i < kInputsPerParser; ++i) {
    mutator.Mutate(samples[mutator.Below(samples.size())], input);
    if (!parse(input)) {
      ADD_FAILURE() << "empty error message for input #" << i << " (seed " << seed << ")";
      return;
    }
  }
}

// True for a value or an error that says something.
template <typename T>
bool ValueOrExplainedError(const Result<T>& result) {
  return result.has_value() || !result.error().message.empty();
}

TEST(ParserRobustnessTest, BqueuesNeverCrashesOnMutatedInput) {
  Fuzz(
      ReadTestdataFiles({"lsf/lsf10/bqueues.txt", "lsf/openlava/bqueues.txt",
                         "lsf/openlava/bqueues_w.txt", "lsf/openlava/bqueues_after_restart.txt",
                         "lsf/openlava/bqueues_mbatchd_down.err"}),
      [](std::string_view text) { return ValueOrExplainedError(ParseBqueues(text)); }, kParserSeed);
}

TEST(ParserRobustnessTest, BqueuesJsonNeverCrashesOnMutatedInput) {
  Fuzz(
      ReadTestdataFiles({"lsf/lsf10/bqueues_json.txt"}),
      [](std::string_view text) { return ValueOrExplainedError(ParseBqueuesJson(text)); },
      kParserSeed + 1);
}

TEST(ParserRobustnessTest, BqueuesLongNeverCrashesOnMutatedInput) {
  Fuzz(
      ReadTestdataFiles({"lsf/lsf10/bqueues_l.txt", "lsf/openlava/bqueues_l_normal.txt",
                         "lsf/openlava/bqueues_l.txt"}),
      [](std::string_view text) { return ValueOrExplainedError(ParseBqueuesLong(text)); },
      kParserSeed + 2);
}

TEST(ParserRobustnessTest, BmgroupAndBugroupNeverCrashOnMutatedInput) {
  const std::vector<std::string> samples = ReadTestdataFiles(
      {"lsf/lsf10/bmgroup_w.txt", "lsf/lsf10/bugroup_w.txt", "lsf/openlava/bmgroup.txt",
       "lsf/openlava/bugroup.txt", "lsf/openlava/bmgroup_nosuchgroup.err"});
  Fuzz(
      samples, [](std::string_view text) { return ValueOrExplainedError(ParseBmgroup(text)); },
      kParserSeed + 3);
  Fuzz(
      samples, [](std::string_view text) { return ValueOrExplainedError(ParseBugroup(text)); },
      kParserSeed + 4);
}

TEST(ParserRobustnessTest, ExpandHostRangeNeverCrashesOnRandomNames) {
  TextMutator mutator(kParserSeed + 5, kParserTokens);
  constexpr std::string_view kAlphabet = "n0123456789[]-,~.";
  for (int i = 0; i < kInputsPerParser; ++i) {
    std::string name;
    for (std::size_t n = mutator.Below(16); n > 0; --n) {
      name += kAlphabet[mutator.Below(kAlphabet.size())];
    }
    auto names = ExpandHostRange(name);
    if (names) {
      ASSERT_LE(names->size(), kMaxExpandedHosts) << name;
    } else {
      ASSERT_FALSE(names.error().message.empty()) << name;
    }
  }
}

TEST(ParserRobustnessTest, BhostsNeverCrashesOnMutatedInput) {
  Fuzz(
      ReadTestdataFiles(
          {"lsf/lsf10/bhosts_w.txt", "lsf/openlava/bhosts.txt", "lsf/openlava/bhosts_w.txt"}),
      [](std::string_view text) { return ValueOrExplainedError(ParseBhosts(text)); },
      kParserSeed + 6);
}

TEST(ParserRobustnessTest, LsidNeverCrashesOnMutatedInput) {
  Fuzz(
      ReadTestdataFiles({"lsf/lsf10/lsid.txt", "lsf/openlava/lsid.txt"}),
      [](std::string_view text) { return ValueOrExplainedError(ParseLsid(text)); },
      kParserSeed + 7);
}

TEST(ParserRobustnessTest, LsloadNeverCrashesOnMutatedInput) {
  Fuzz(
      ReadTestdataFiles({"lsf/lsf10/lsload_w_i_ib_ok.txt", "lsf/openlava/lsload_w.txt"}),
      [](std::string_view text) { return ValueOrExplainedError(ParseLsload(text, "ib_ok")); },
      kParserSeed + 8);
}

TEST(ParserRobustnessTest, ClassifyBsubReplyNeverCrashesOnMutatedInput) {
  std::vector<std::string> samples;
  for (const char* file : {"lsf/lsf10/bsub_replies.txt", "lsf/openlava/bsub_replies.txt"}) {
    for (const testing::BsubCase& c : ReadBsubCases(file)) {
      samples.push_back(c.out);
      samples.push_back(c.err);
    }
  }
  TextMutator mutator(kParserSeed + 9, kParserTokens);
  constexpr int kExitCodes[] = {0, 255, 141, 124, -1};
  std::string out;
  std::string err;
  for (int i = 0; i < kInputsPerParser; ++i) {
    mutator.Mutate(samples[mutator.Below(samples.size())], out);
    mutator.Mutate(samples[mutator.Below(samples.size())], err);
    const BsubReply reply = ClassifyBsubReply(kExitCodes[mutator.Below(5)], out, err);
    if (reply.outcome() == BsubOutcome::kSubmitted) {
      ASSERT_FALSE(reply.job_id.empty());
      ASSERT_FALSE(reply.queue.empty());
    } else {
      ASSERT_TRUE(reply.job_id.empty());
    }
  }
}

}  // namespace
}  // namespace bplace::lsf
