// The tests of the Reconciler and Settle (daemon/submit/reconciler.h): the
// submissions whose outcome is unknown, settled through LSF.

#include "daemon/submit/reconciler.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/daemon/submit/submit_fixture.h"

namespace bplace {
namespace {

using ::testing::ElementsAre;
using testing::FakeCommandRunner;
using namespace std::chrono_literals;

// The reconciler over the submission service's state store and jobs tier.
class ReconcilerTest : public testing::SubmissionServiceTest {};

// Found on volclava 2.2 (tests/realsched, kill -9 with a bsub in flight):
// after a restart the jobs tier follows nothing unfinished, so it never
// learns that bjobs refuses -o/-json, and the reconciler asked with -o
// forever (volclava: exit 99, no job_description field); the retry of the
// key got 409 until the orphan's job left `bjobs -a`, then a second job.
// Now its own refused query switches it to `bjobs -a -l -u CALLER`.
TEST_F(ReconcilerTest, TheReconcilerFallsBackToTheLongFormWhenBjobsRefusesItsFields) {
  const auto is_bjobs_with = [](const std::string& flag) {
    return [flag](const lsf::CommandSpec& spec) {
      return spec.argv.at(0) == "bjobs" &&
             std::find(spec.argv.begin(), spec.argv.end(), flag) != spec.argv.end();
    };
  };
  fake_.On(is_bjobs_with("-o"), [](const lsf::CommandSpec&) {
    return FakeCommandRunner::Reply(FakeCommandRunner::Output(
        "", "<JOB_DESCRIPTION> in the format string is not a valid field name.\n", 99));
  });
  fake_.On(is_bjobs_with("-l"), [](const lsf::CommandSpec&) {
    return FakeCommandRunner::Reply(FakeCommandRunner::Output(
        "\nJob <7>, Job Name <crash>, User <alice>, Project <default>, Status <RUN>, Queue "
        "<short>, Command <sleep 1>, Job Description <bplace:tag-k9>\n"
        "Tue Dec  1 13:06:38: Submitted from host <vm>, CWD <$HOME>;\n"));
  });
  Reconciler reconciler(io_.get_executor(), fake_, clock_, cache().store(), lsf_, *journal_,
                        *service_, *tracker_, 1s);
  reconciler.Add({"alice", "tag-k9", "req-k9", clock_.SystemNow(), std::nullopt, std::nullopt, {}});
  for (int run = 0; run < 2; ++run) {
    bool done = false;
    reconciler.Refresh([&](Result<void>) { done = true; });
    RunUntil([&] { return done; });
  }
  std::vector<std::vector<std::string>> asked;
  for (const auto& call : fake_.Calls()) {
    if (call.argv.at(0) == "bjobs") asked.push_back(call.argv);
  }
  ASSERT_GE(asked.size(), 2u);
  EXPECT_THAT(asked.front(), ::testing::Contains("-o"));
  EXPECT_THAT(asked.back(), ElementsAre("bjobs", "-a", "-l", "-u", "alice"));
  EXPECT_EQ(reconciler.Pending(), 0u) << "adopted";
  const auto jobs = cache().Current()->jobs;
  ASSERT_TRUE(jobs);
  const JobView* job = jobs->Find(JobKey{7, 0});
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->tag, "tag-k9");
  EXPECT_EQ(job->lsf.queue, "short");
}

// Found by an attack run: of 400 keyed submissions across six kill -9, the 68 the
// reconciler adopted had no labels and no key: `?label=` and cancel by
// label missed them, though the submissions table has both.
TEST_F(ReconcilerTest, AnAdoptedJobKeepsItsLabelsAndIdempotencyKey) {
  fake_.OnPrefix({"bjobs", "-a", "-u", "alice"},
                 FakeCommandRunner::Output("{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":1,\n"
                                           "  \"RECORDS\":[\n    {\n      \"JOBID\":\"778\",\n"
                                           "      \"STAT\":\"RUN\",\n      \"QUEUE\":\"qa\",\n"
                                           "      \"USER\":\"alice\",\n"
                                           "      \"JOB_DESCRIPTION\":\"bplace:tag-k7\"\n    }\n"
                                           "  ]\n}\n"));
  Reconciler reconciler(io_.get_executor(), fake_, clock_, cache().store(), lsf_, *journal_,
                        *service_, *tracker_, 1s);
  reconciler.Add({"alice",
                  "tag-k7",
                  "req-k7",
                  clock_.SystemNow(),
                  std::nullopt,
                  "k7",
                  {{"workflow", "wf17"}}});
  bool done = false;
  reconciler.Refresh([&](Result<void>) { done = true; });
  RunUntil([&] { return done; });
  ASSERT_EQ(reconciler.Pending(), 0u) << "adopted";
  const JobView* job = cache().Current()->jobs->Find(JobKey{778, 0});
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->idempotency_key, "k7");
  EXPECT_EQ(job->labels, (std::map<std::string, std::string>{{"workflow", "wf17"}}));
}

TEST(SettleTest, AdoptsOnlyTheJobWhoseDescriptionIsExactlyTheTag) {
  const SystemTime now = std::chrono::sys_days(std::chrono::year(2027) / 1 / 1);
  UnsettledSubmission submission{"alice", "k9-1", "r1", now - std::chrono::minutes(10), {}, {}, {}};
  lsf::JobRecord other;
  other.job_id = "10";
  other.job_description = "bplace:k9-10";  // the old substring match took this one
  lsf::JobRecord mine;
  mine.job_id = "11";
  mine.queue = "short";
  mine.job_description = "bplace:k9-1";
  EXPECT_EQ(Settle(submission, {other}, false, now, 30s).kind, Settlement::Kind::kRelease);
  const Settlement adopted = Settle(submission, {other, mine}, false, now, 30s);
  EXPECT_EQ(adopted.kind, Settlement::Kind::kAdopt);
  EXPECT_EQ(adopted.job_id, "11");
  EXPECT_EQ(adopted.queue, "short");
}

TEST(SettleTest, WaitsWhileABsubMayStillSubmitAndKillsAnOrphanPastItsTimeout) {
  const SystemTime now = std::chrono::sys_days(std::chrono::year(2027) / 1 / 1);
  UnsettledSubmission young{"alice", "t", "r", now - 10s, {}, {}, {}};
  EXPECT_EQ(Settle(young, {}, false, now, 30s).kind, Settlement::Kind::kWait);
  UnsettledSubmission old{"alice", "t", "r", now - 60s, 4242, {}, {}};
  const Settlement alive = Settle(old, {}, true, now, 30s);
  EXPECT_EQ(alive.kind, Settlement::Kind::kWait);
  EXPECT_TRUE(alive.kill_bsub);
  EXPECT_EQ(Settle(old, {}, false, now, 30s).kind, Settlement::Kind::kRelease);
}

}  // namespace
}  // namespace bplace
