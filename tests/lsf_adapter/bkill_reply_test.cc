#include "lsf_adapter/bkill_reply.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::BsubCase;
using testing::ReadBsubCases;

// "4=terminating 2[3]=not_found" for the results of one reply; results that
// name no job print as "unknown" or "unavailable" alone.
std::string Summary(const std::vector<BkillResult>& results) {
  std::string summary;
  for (const BkillResult& result : results) {
    if (!summary.empty()) summary += ' ';
    if (!result.job_id.empty()) {
      summary += result.job_id;
      if (result.array_index != 0) summary += "[" + std::to_string(result.array_index) + "]";
      summary += '=';
    }
    summary += BkillOutcomeName(result.outcome);
  }
  return summary;
}

// Every case of the captured replies: the file's `outcome:` line is the
// summary the classifier must give.
TEST(ClassifyBkillReplyTest, ClassifiesEveryCapturedReply) {
  for (const char* file : {"lsf/lsf10/bkill_replies.txt", "lsf/openlava/bkill_replies.txt"}) {
    const std::vector<BsubCase> cases = ReadBsubCases(file);
    ASSERT_FALSE(cases.empty()) << file;
    for (const BsubCase& c : cases) {
      EXPECT_EQ(Summary(ClassifyBkillReply(c.exit_code, c.out, c.err)), c.outcome)
          << file << " case " << c.name;
    }
  }
}

TEST(ClassifyBkillReplyTest, KeepsLsfsWordsAndTheLine) {
  const auto results = ClassifyBkillReply(255, "", "Job <1>: Job has already finished\n");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].job_id, "1");
  EXPECT_EQ(results[0].message, "Job has already finished");
  EXPECT_EQ(results[0].line, "Job <1>: Job has already finished");
}

TEST(ClassifyBkillReplyTest, ReadsArrayElements) {
  const auto results = ClassifyBkillReply(
      255, "Job <1234[7]> is being terminated\n", "Job <1234[8]>: No matching job found\n");
  EXPECT_EQ(Summary(results), "1234[7]=terminating 1234[8]=not_found");
}

TEST(ClassifyBkillReplyTest, ReadsIsNotFoundAsNotFound) {
  EXPECT_EQ(Summary(ClassifyBkillReply(255, "", "Job <1234> is not found\n")),
            "1234=not_found");
}

TEST(ClassifyBkillReplyTest, TakesAnLsfFailureWithoutAnIdForTheWholeCall) {
  const auto results = ClassifyBkillReply(
      255, "", "lsb_init: Failed in an LSF library call: Unable to open file lsf.conf\n");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, BkillOutcome::kUnavailable);
  EXPECT_EQ(results[0].job_id, "");
}

TEST(ClassifyBkillReplyTest, TakesAnUnavailableReasonForItsId) {
  EXPECT_EQ(Summary(ClassifyBkillReply(255, "Job <1> is being terminated\n",
                                       "Job <2>: batch system daemon not responding\n")),
            "1=terminating 2=unavailable");
}

TEST(ClassifyBkillReplyTest, SkipsChatterButReadsItWhenNothingElseCame) {
  EXPECT_EQ(Summary(ClassifyBkillReply(255, "", "LSF is down. Please wait...\n"
                                                "Job <3>: User permission denied\n")),
            "3=permission_denied");
  const auto only_chatter = ClassifyBkillReply(-1, "", "LSF is down. Please wait...\n");
  ASSERT_EQ(only_chatter.size(), 1u);
  EXPECT_EQ(only_chatter[0].outcome, BkillOutcome::kUnavailable);
  EXPECT_EQ(only_chatter[0].line, "LSF is down. Please wait...");
}

TEST(ClassifyBkillReplyTest, GivesOneUnknownForNoOutput) {
  const auto results = ClassifyBkillReply(255, "", "\n\n");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, BkillOutcome::kUnknown);
  EXPECT_EQ(results[0].message, "bkill exited with status 255 and no output");
  EXPECT_EQ(results[0].line, "");
}

TEST(ClassifyBkillReplyTest, KeepsAnythingElseAsUnknownWithTheLine) {
  const auto results = ClassifyBkillReply(
      255, "", "Job <5>: Operation is in progress\nJob <abc> is being terminated\nwhat?\n");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(Summary(results), "5=unknown unknown unknown");
  EXPECT_EQ(results[0].message, "Operation is in progress");
  EXPECT_EQ(results[1].line, "Job <abc> is being terminated");
  EXPECT_EQ(results[2].message, "what?");
}

TEST(ClassifyBkillReplyTest, ReadsCrlfAndTrailingBlanks) {
  EXPECT_EQ(Summary(ClassifyBkillReply(0, testing::WithCrlf("Job <1> is being terminated  \n"),
                                       "")),
            "1=terminating");
}

TEST(BkillOutcomeNameTest, NamesEveryOutcome) {
  EXPECT_STREQ(BkillOutcomeName(BkillOutcome::kTerminating), "terminating");
  EXPECT_STREQ(BkillOutcomeName(BkillOutcome::kAlreadyFinished), "already_finished");
  EXPECT_STREQ(BkillOutcomeName(BkillOutcome::kNotFound), "not_found");
  EXPECT_STREQ(BkillOutcomeName(BkillOutcome::kPermissionDenied), "permission_denied");
  EXPECT_STREQ(BkillOutcomeName(BkillOutcome::kUnavailable), "unavailable");
  EXPECT_STREQ(BkillOutcomeName(BkillOutcome::kUnknown), "unknown");
}

}  // namespace
}  // namespace bplace::lsf
