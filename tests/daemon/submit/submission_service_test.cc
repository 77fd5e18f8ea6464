// The tests of SubmissionService (daemon/submit/submission_service.h):
// exactly once per idempotency key, across a restart and across login nodes.

#include "daemon/submit/submission_service.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/daemon/submit/submit_fixture.h"

namespace bplace {
namespace {

using testing::FakeCommandRunner;

using testing::SubmissionServiceTest;

TEST_F(SubmissionServiceTest, TheSameKeyAndBodyGetTheSameJobAndOneBsub) {
  const SubmissionAnswer first = Call("k1", 'a');
  ASSERT_EQ(first.kind, SubmissionAnswer::Kind::kSubmitted)
      << (first.error ? first.error->message : "");
  ASSERT_FALSE(first.result.error);
  const SubmissionAnswer again = Call("k1", 'a');
  ASSERT_EQ(again.kind, SubmissionAnswer::Kind::kReplay);
  EXPECT_EQ(again.http_status, 201);
  EXPECT_EQ(again.body, "{\"job_id\":\"" + first.result.job_id + "\"}");
  EXPECT_EQ(BsubCalls().size(), 1u);
  EXPECT_EQ(BsubCalls()[0].argv.at(4), "bplace:tag-k1") << "-Jd carries the tag";
}

TEST_F(SubmissionServiceTest, TheSameKeyWithAnotherBodyIsRefused) {
  ASSERT_EQ(Call("k2", 'a').kind, SubmissionAnswer::Kind::kSubmitted);
  EXPECT_EQ(Call("k2", 'b').kind, SubmissionAnswer::Kind::kKeyReused);
  EXPECT_EQ(BsubCalls().size(), 1u);
}

TEST_F(SubmissionServiceTest, AnswersSurviveARestart) {
  const SubmissionAnswer first = Call("k3", 'a');
  Reopen();
  const SubmissionAnswer again = Call("k3", 'a');
  ASSERT_EQ(again.kind, SubmissionAnswer::Kind::kReplay);
  EXPECT_NE(again.body.find(first.result.job_id), std::string::npos);
  EXPECT_EQ(BsubCalls().size(), 1u);
}

TEST_F(SubmissionServiceTest, ASubmittedJobIsFollowedAtOnce) {
  const SubmissionAnswer first = Call("k4", 'a');
  const auto jobs = cache().Current()->jobs;
  ASSERT_TRUE(jobs);
  const JobView* job = jobs->Find(JobKey{std::stoll(first.result.job_id), 0});
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->lsf.status, kSubmittedStatus);
  EXPECT_EQ(job->idempotency_key, "k4");
}

TEST_F(SubmissionServiceTest, WithTheCrossNodeCheckAJobLsfHasForTheKeyIsAdopted) {
  check_lsf_ = true;
  Reopen();
  fake_.OnPrefix({"bjobs", "-a", "-u", "alice"},
                 FakeCommandRunner::Output("{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":1,\n"
                                           "  \"RECORDS\":[\n    {\n      \"JOBID\":\"777\",\n"
                                           "      \"STAT\":\"RUN\",\n      \"QUEUE\":\"qa\",\n"
                                           "      \"USER\":\"alice\",\n"
                                           "      \"JOB_DESCRIPTION\":\"bplace:tag-k5\"\n    }\n"
                                           "  ]\n}\n"));
  const SubmissionAnswer adopted = Call("k5", 'a');
  ASSERT_EQ(adopted.kind, SubmissionAnswer::Kind::kReplay);
  EXPECT_NE(adopted.body.find("\"job_id\":\"777\""), std::string::npos) << adopted.body;
  EXPECT_TRUE(BsubCalls().empty()) << "another node submitted it: no second job";
  const SubmissionAnswer fresh = Call("k6", 'a');
  EXPECT_EQ(fresh.kind, SubmissionAnswer::Kind::kSubmitted);
  EXPECT_EQ(BsubCalls().size(), 1u);
}

// Found on volclava (docs/operations.md "Several login nodes"): with the
// cross-node check on, the first keyed submission answered 503, since the
// check asked only `bjobs -o ... -json`, which volclava refuses. Now it
// asks the long form, submits, and the jobs tier (and the reconciler) know
// the dialect from then on.
TEST_F(SubmissionServiceTest, TheCrossNodeCheckSpeaksTheLongFormWhereBjobsRefusesJson) {
  check_lsf_ = true;
  Reopen();
  fake_.On(
      [](const lsf::CommandSpec& spec) {
        return spec.argv.at(0) == "bjobs" &&
               std::find(spec.argv.begin(), spec.argv.end(), "-o") != spec.argv.end();
      },
      [](const lsf::CommandSpec&) {
        return FakeCommandRunner::Reply(FakeCommandRunner::Output(
            "", "<JOB_DESCRIPTION> in the format string is not a valid field name.\n", 99));
      });
  fake_.OnArgv({"bjobs", "-a", "-l", "-u", "alice"},
               FakeCommandRunner::Output("", "No job found\n", 255));
  const SubmissionAnswer first = Call("k11", 'a');
  ASSERT_EQ(first.kind, SubmissionAnswer::Kind::kSubmitted)
      << (first.error ? first.error->message : "");
  EXPECT_EQ(BsubCalls().size(), 1u);
  EXPECT_TRUE(tracker_->UsesTableForm()) << "one fact for the jobs tier and the check";
}

}  // namespace
}  // namespace bplace
