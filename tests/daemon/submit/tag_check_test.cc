// TagCheck: the cross-node check of a keyed submission, its batching per
// caller and the dialect it shares (docs/operations.md "Several login nodes").

#include "daemon/submit/tag_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "tests/fakes/fake_command_runner.h"

namespace bplace {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::ElementsAre;
using testing::FakeCommandRunner;

// `bjobs -a -u alice -o ... -json` listing one job tagged `tag` (none when empty).
FakeCommandRunner::Reply JsonJobs(const std::string& tag) {
  if (tag.empty()) {
    return FakeCommandRunner::Output("", "No job found\n", 255);
  }
  return FakeCommandRunner::Output(
      "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":1,\n  \"RECORDS\":[\n    {\n      "
      "\"JOBID\":\"41\",\n"
      "      \"STAT\":\"PEND\",\n      \"QUEUE\":\"short\",\n      \"USER\":\"alice\",\n"
      "      \"JOB_DESCRIPTION\":\"bplace:" +
      tag + "\"\n    }\n  ]\n}\n");
}

using Found = Result<std::optional<lsf::JobRecord>>;

class TagCheckTest : public ::testing::Test {
 protected:
  // Asks for `tag` and keeps the answer in `into`.
  void Find(const std::string& tag, std::optional<Found>& into) {
    check_.Find("alice", tag, [&into](Found found) { into = std::move(found); });
  }

  FakeCommandRunner fake_;  // synchronous
  lsf::LsfInvoker lsf_{"", "", 5000ms, {}};
  BjobsDialect dialect_;
  TagCheck check_{fake_, lsf_, dialect_};
};

TEST_F(TagCheckTest, FindsTheJobTaggedWithTheKeyAndNothingForAnother) {
  fake_.OnPrefix({"bjobs", "-a", "-u", "alice"}, JsonJobs("k1"));
  std::optional<Found> one, two;
  Find("k1", one);
  Find("k2", two);
  ASSERT_TRUE(one && *one && **one);
  EXPECT_EQ((**one)->job_id, "41");
  ASSERT_TRUE(two && *two);
  EXPECT_FALSE(**two);
  EXPECT_EQ(check_.queries(), 2u);
}

// A check waits for a query that started after it: one that was running
// may have started before another node's bsub ended.
TEST_F(TagCheckTest, ChecksArrivingDuringAQueryShareTheNextOneNotTheRunningOne) {
  std::atomic<int> asked{0};
  fake_.On([](const lsf::CommandSpec& spec) { return spec.argv.at(0) == "bjobs"; },
           [&asked](const lsf::CommandSpec&) {
             // The job appears in LSF between the first query and the second.
             return JsonJobs(++asked == 1 ? "" : "late");
           });
  fake_.HoldReplies();
  std::optional<Found> first, late, other;
  Find("late", first);
  Find("late", late);
  Find("other", other);
  EXPECT_EQ(fake_.CallCount(), 1u) << "the later checks wait for the running query";
  fake_.ReleaseHeld();
  ASSERT_TRUE(first && *first);
  EXPECT_FALSE(**first) << "the first query ran before the job existed";
  ASSERT_TRUE(late && *late && **late) << "answered by the query that started after it asked";
  EXPECT_EQ((**late)->job_id, "41");
  ASSERT_TRUE(other && *other);
  EXPECT_FALSE(**other);
  EXPECT_EQ(check_.queries(), 2u) << "three checks, two queries";
}

// Found on volclava (OpenLava dialect): the check asked only -o ... -json,
// which volclava refuses (exit 99), and the first keyed submission got a
// 503. Now the refusal teaches the shared dialect and the same check is
// asked in the long form, which shows the job description.
TEST_F(TagCheckTest, ARefusedFormatTeachesTheDialectAndTheLongFormAnswers) {
  fake_.On(
      [](const lsf::CommandSpec& spec) {
        return std::find(spec.argv.begin(), spec.argv.end(), "-o") != spec.argv.end();
      },
      [](const lsf::CommandSpec&) {
        return FakeCommandRunner::Reply(FakeCommandRunner::Output(
            "", "<JOB_DESCRIPTION> in the format string is not a valid field name.\n", 99));
      });
  fake_.OnArgv({"bjobs", "-a", "-l", "-u", "alice"},
               FakeCommandRunner::Output(
                   "\nJob <7>, Job Name <crash>, User <alice>, Project <default>, Status <PEND>, "
                   "Queue <short>, Command <sleep 1>, Job Description <bplace:k9>\n"
                   "Tue Dec  1 13:06:38: Submitted from host <vm>, CWD <$HOME>;\n"));
  std::optional<Found> found;
  Find("k9", found);
  ASSERT_TRUE(found && *found) << (found && !*found ? found->error().message : "no answer");
  ASSERT_TRUE(**found);
  EXPECT_EQ((**found)->job_id, "7");
  EXPECT_TRUE(dialect_.NeedsTableForm()) << "learned once, for every reader";
  // The next check asks the long form at once: one query.
  std::optional<Found> again;
  Find("k10", again);
  ASSERT_TRUE(again && *again);
  EXPECT_FALSE(**again);
  const auto calls = fake_.Calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_THAT(calls[0].argv, Contains("-json"));
  EXPECT_THAT(calls[1].argv, ElementsAre("bjobs", "-a", "-l", "-u", "alice"));
  EXPECT_THAT(calls[2].argv, ElementsAre("bjobs", "-a", "-l", "-u", "alice"));
}

TEST_F(TagCheckTest, LsfDownIsAnErrorNotAMissingJob) {
  fake_.OnPrefix({"bjobs"}, FakeCommandRunner::Output("", "LSF is down. Please wait ...\n", 255));
  std::optional<Found> found;
  Find("k1", found);
  ASSERT_TRUE(found);
  EXPECT_FALSE(*found) << "unsure whether LSF has it: never 'no job'";
}

}  // namespace
}  // namespace bplace
