// The tests of Submitter and Judge (daemon/submit/submitter.h): placement,
// the bsub command line, the next queue after a refusal, and what each bsub
// reply means.

#include "daemon/submit/submitter.h"

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
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;
using namespace std::chrono_literals;
using testing::IsBsub;
using testing::kAliceQuery;
using testing::QueueBlock;
using testing::ValueOf;

using testing::SubmitterTest;

TEST_F(SubmitterTest, SubmitsToLeastBusyQueue) {
  const SubmissionResult result = Submit(Command("sleep 10"));
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.queue, "qa");
  EXPECT_EQ(result.requested_queue, "qa");
  EXPECT_EQ(result.job_id, "1000");
  ASSERT_EQ(result.attempts.size(), 1u);
  EXPECT_EQ(result.attempts[0].outcome, "submitted");
  EXPECT_EQ(result.attempts[0].queue, "qa");
  ASSERT_TRUE(result.placement);
  EXPECT_EQ(result.placement->candidates.front().queue, "qa");
  EXPECT_EQ(result.placement->permission_source, "lsf");
}

TEST_F(SubmitterTest, BuildsArgvWithQueueHostTagAndCommandAsOneArgument) {
  JobRequest job = Command("echo hello world > out.txt");
  job.host = "node001";
  const SubmissionResult result = Submit(job, "6f1c");
  ASSERT_FALSE(result.error) << result.error->message;
  const std::vector<std::string> expected = {
      "bsub", "-q", "qa", "-m", "node001", "-Jd", "bplace:6f1c", "echo hello world > out.txt"};
  EXPECT_EQ(result.bsub_argv, expected);
  EXPECT_EQ(result.host, std::optional<std::string>("node001"));
  const auto calls = BsubCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].argv, expected);
  EXPECT_FALSE(calls[0].stdin_data);
  EXPECT_EQ(calls[0].timeout, 9000ms);
}

TEST_F(SubmitterTest, PassesEveryOptionInFixedOrder) {
  JobRequest job = Command("./run.sh");
  job.job_name = "align";
  job.slots = 4;
  job.resources = {"span[hosts=1]"};
  job.output = "out.%J";
  job.error = "err.%J";
  job.cwd = "/scratch/alice";
  job.walltime = "2:30";
  job.memory = "8GB";
  job.project = "chem";
  job.app = "fluent";
  job.extra_args = {"-G", "grp_chem", "-x"};
  const SubmissionResult result = Submit(job, "r2");
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_THAT(result.bsub_argv,
              ElementsAre("bsub", "-q", "qa", "-Jd", "bplace:r2", "-J", "align", "-n", "4", "-R",
                          "span[hosts=1]", "-o", "out.%J", "-e", "err.%J", "-cwd", "/scratch/alice",
                          "-W", "2:30", "-M", "8GB", "-P", "chem", "-app", "fluent", "-G",
                          "grp_chem", "-x", "./run.sh"));
}

TEST_F(SubmitterTest, BsubRunsWithTheSubmittersDirectoryUmaskAndEnvironment) {
  JobRequest job = Command("./run.sh");
  job.workdir = "/home/alice/run";
  job.umask = 027;
  job.environment = std::vector<std::string>{"PATH=/opt/x/bin", "LSB_NTRIES=5", "OMP=4"};
  const SubmissionResult result = Submit(job);
  ASSERT_FALSE(result.error) << result.error->message;
  const auto calls = BsubCalls();
  ASSERT_EQ(calls.size(), 1u);
  // The job gets the caller's variables; bsub still answers at once.
  EXPECT_THAT(calls[0].env,
              ::testing::UnorderedElementsAre("PATH=/opt/x/bin", "OMP=4", "LSB_NTRIES=1"));
  // As the daemon itself (service-account mode), in the caller's directory.
  ASSERT_TRUE(calls[0].run_as);
  EXPECT_EQ(calls[0].run_as->uid, ::getuid());
  EXPECT_EQ(calls[0].run_as->work_dir, "/home/alice/run");
  EXPECT_EQ(calls[0].run_as->umask, std::optional<mode_t>(027));
}

// volclava 2.2's lsid (docs/lsf-formats.md "Sources"): an OpenLava-family cluster.
constexpr char kVolclavaLsid[] =
    "volclava project 2.2, Nov 30 2026\n\nMy cluster name is olcluster\nMy master name is vm\n";

TEST_F(SubmitterTest, OnOpenlavaBsubRunsInTheCwdWithMemoryInTheClustersUnits) {
  fake_.OnArgv({"lsid"}, FakeCommandRunner::Output(kVolclavaLsid));
  JobRequest job = Command("./run.sh");
  job.workdir = "/home/alice/run";
  job.cwd = "out";
  job.memory = "100MB";
  job.resources = {"select[mem>1GB] rusage[mem=1GB]"};
  const SubmissionResult result = Submit(job, "r3");
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_THAT(result.bsub_argv,
              ElementsAre("bsub", "-q", "qa", "-Jd", "bplace:r3", "-R",
                          "select[mem>1024] rusage[mem=1024]", "-M", "102400", "./run.sh"));
  const auto calls = BsubCalls();
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_TRUE(calls[0].run_as);
  EXPECT_EQ(calls[0].run_as->work_dir, "/home/alice/run/out");  // -cwd, relative to the caller's
}

TEST_F(SubmitterTest, OnOpenlavaAnOptionItsBsubLacksIsRefusedBeforeBsubRuns) {
  fake_.OnArgv({"lsid"}, FakeCommandRunner::Output(kVolclavaLsid));
  JobRequest job = Command("true");
  job.extra_args = {"-G", "grp_chem"};
  const SubmissionResult result = Submit(job);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kRejected);
  EXPECT_THAT(result.error->message, ::testing::HasSubstr("bsub -G: the cluster is OpenLava"));
  EXPECT_TRUE(BsubCalls().empty());
}

TEST_F(SubmitterTest, WithoutTheSubmittersContextBsubRunsAsBefore) {
  ASSERT_FALSE(Submit(Command("true")).error);
  const auto calls = BsubCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].run_as);
  EXPECT_EQ(calls[0].env, lsf_.Spec("bsub", {}).env);
}

TEST_F(SubmitterTest, QuotesArgvIntoOneCommandString) {
  JobRequest job;
  job.argv = std::vector<std::string>{"echo", "a b", "it's"};
  const SubmissionResult result = Submit(job);
  ASSERT_FALSE(result.error) << result.error->message;
  ASSERT_FALSE(result.bsub_argv.empty());
  EXPECT_EQ(result.bsub_argv.back(), "echo 'a b' 'it'\\''s'");
}

TEST_F(SubmitterTest, FeedsScriptOnStdinWithoutCommandArgument) {
  JobRequest job;
  job.script = "#!/bin/sh\n#BSUB -W 10\necho hi\n";
  const SubmissionResult result = Submit(job, "r3");
  ASSERT_FALSE(result.error) << result.error->message;
  const auto calls = BsubCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].stdin_data, std::optional<std::string>(*job.script));
  EXPECT_EQ(calls[0].argv, (std::vector<std::string>{"bsub", "-q", "qa", "-Jd", "bplace:r3"}));
}

TEST_F(SubmitterTest, AnArrayGetsItsIndexListInTheJobNameAndChargesEveryElementsSlots) {
  JobRequest job = Command("./step.sh");
  job.job_name = "sweep";
  job.array = "1-5";
  job.array_elements = 5;
  job.slots = 2;
  const SubmissionResult result = Submit(job, "r4");
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_THAT(result.bsub_argv, ElementsAre("bsub", "-q", "qa", "-Jd", "bplace:r4", "-J",
                                            "sweep[1-5]", "-n", "2", "./step.sh"));
  // Every element pends at once: 5 x 2 slots.
  EXPECT_THAT(ledger_.Counts(), UnorderedElementsAre(Pair("qa", 10)));
}

TEST_F(SubmitterTest, PlacesAndChargesTheScriptsSlotsWithoutAddingMinusN) {
  JobRequest job;
  job.script = "#BSUB -n 3\necho hi\n";
  job.script_slots = 3;
  const SubmissionResult result = Submit(job, "r5");
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.bsub_argv, (std::vector<std::string>{"bsub", "-q", "qa", "-Jd", "bplace:r5"}));
  EXPECT_THAT(ledger_.Counts(), UnorderedElementsAre(Pair("qa", 3)));
}

TEST_F(SubmitterTest, TriesNextQueueAfterQueueRejectionAndRemembersIt) {
  BsubReplies("qa", FakeCommandRunner::Output(
                        "", "qa: User cannot use the queue. Job not submitted.\n", 255));
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.queue, "qb");
  ASSERT_EQ(result.attempts.size(), 2u);
  EXPECT_EQ(result.attempts[0].queue, "qa");
  EXPECT_EQ(result.attempts[0].outcome, "queue_rejected");
  EXPECT_EQ(result.attempts[0].message, "User cannot use the queue");
  EXPECT_EQ(result.attempts[1].queue, "qb");
  EXPECT_EQ(result.attempts[1].outcome, "submitted");
  EXPECT_THAT(Refused(), UnorderedElementsAre(Pair("qa", HasSubstr("User cannot use the queue"))));
  // The refused bsub's slots are not counted; the accepted one's are.
  EXPECT_THAT(ledger_.Counts(), UnorderedElementsAre(Pair("qb", 1)));

  // The next request skips qa without asking bsub.
  const SubmissionResult next = Submit(Command("true"), "rid2");
  ASSERT_FALSE(next.error);
  ASSERT_EQ(next.attempts.size(), 1u);
  EXPECT_EQ(next.attempts[0].queue, "qb");
  EXPECT_EQ(BsubCalls().size(), 3u);
}

// A bug once: the refusal on stdout with chatter on stderr gave 502.
TEST_F(SubmitterTest, ClosedQueueRefusalPastChatterTriesTheNextQueue) {
  BsubReplies("qa",
              FakeCommandRunner::Output("qa: Queue has been closed. Job not submitted.\n",
                                        "LSF is processing your request. Please wait...\n", 255));
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.queue, "qb");
  EXPECT_EQ(result.attempts[0].outcome, "queue_rejected");
}

// Bugs once: an esub abort next to "Cannot connect to LSF" chatter gave 503
// (clients retried forever), and the esub's own reason was dropped; a queue
// whose esub refuses the user's jobs was chosen on every request;
// now the next queue is tried and the refusal remembered.
TEST_F(SubmitterTest, EsubAbortTriesTheNextQueueAndIsRememberedWithTheEsubsReason) {
  BsubReplies("qa", FakeCommandRunner::Output(
                        "Cannot connect to LSF. Please wait ...\n",
                        "esub: no licence for this project\nRequest aborted by esub. Job not "
                        "submitted.\n",
                        255));
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.queue, "qb");
  ASSERT_EQ(result.attempts.size(), 2u);
  EXPECT_EQ(result.attempts[0].outcome, "esub_rejected");
  EXPECT_THAT(result.attempts[0].message,
              HasSubstr("Request aborted by esub (esub: no licence for this project)"));
  EXPECT_THAT(Refused(), UnorderedElementsAre(Pair("qa", HasSubstr("esub: bsub refused it"))));

  const SubmissionResult next = Submit(Command("true"), "rid2");
  ASSERT_FALSE(next.error);
  ASSERT_EQ(next.attempts.size(), 1u) << "qa is not tried again";
  EXPECT_EQ(next.attempts[0].queue, "qb");
  // After [submit] esub_refusal_memory_s, qa is tried again.
  clock_.Advance(options_.esub_refusal_memory);
  EXPECT_THAT(Refused(), IsEmpty());
}

TEST_F(SubmitterTest, EsubRefusalInEveryQueueTriedIs422WithTheEsubsReason) {
  fake_.On(IsBsub, [](const lsf::CommandSpec&) {
    return FakeCommandRunner::Reply(FakeCommandRunner::Output(
        "", "esub: no licence for this project\nRequest aborted by esub. Job not submitted.\n",
        255));
  });
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kRejected);
  EXPECT_THAT(result.error->message, HasSubstr("esub: no licence for this project"));
  for (const SubmitAttempt& attempt : result.attempts) {
    EXPECT_EQ(attempt.outcome, "esub_rejected") << attempt.queue;
  }
}

// A pending-job threshold (MAX_PEND_JOBS) is about the user, not the queue:
// one bsub, then 429 with LSF's pace.
TEST_F(SubmitterTest, PendingThresholdIsRateLimitedAfterOneBsub) {
  fake_.On(IsBsub, [](const lsf::CommandSpec&) {
    return FakeCommandRunner::Reply(
        FakeCommandRunner::Output("", "Pending job threshold reached. Job not submitted.\n", 255));
  });
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kRateLimited);
  EXPECT_EQ(result.retry_after, kPendingThresholdRetryAfter);
  EXPECT_THAT(result.error->message, HasSubstr("Pending job threshold reached"));
  EXPECT_EQ(BsubCalls().size(), 1u);
  EXPECT_THAT(Refused(), IsEmpty());
}

TEST(JudgeTest, ABsubThatCannotStartOrTimesOutEndsTheRequest) {
  const Verdict failed = Judge(Fail(ErrorCode::kCommandFailed, "execve: ENOENT"), "bplace:r1");
  EXPECT_EQ(failed.next, Verdict::Next::kStop);
  EXPECT_EQ(failed.error->code, ErrorCode::kUnavailable);
  EXPECT_FALSE(failed.job_may_exist);
  const Verdict timed_out = Judge(FakeCommandRunner::TimedOut(), "bplace:r1");
  EXPECT_EQ(timed_out.error->code, ErrorCode::kTimeout);
  EXPECT_TRUE(timed_out.job_may_exist) << "its slots stay charged";
  EXPECT_THAT(timed_out.error->message, HasSubstr("bplace:r1"));
  // The hint finds the tag where it is: the description, or the job name.
  EXPECT_THAT(timed_out.error->message, HasSubstr("job_name job_description"));
}

TEST(JudgeTest, RemembersEachQueueRefusalWithItsCause) {
  auto judge = [](const char* err) {
    return Judge(FakeCommandRunner::Output("", std::string(err) + "\n", 255), "bplace:x");
  };
  using lsf::BsubCause;
  EXPECT_EQ(judge("q: User cannot use the queue. Job not submitted.").remember,
            BsubCause::kPermission);
  EXPECT_EQ(judge("q: Queue has been closed. Job not submitted.").remember,
            BsubCause::kQueueClosed);
  EXPECT_EQ(judge("h: Host or host group is not used by the queue. Job not submitted.").remember,
            BsubCause::kHost);
  const Verdict limit =
      judge("q: The destination queue has reached its job limit. Job not submitted.");
  EXPECT_EQ(limit.remember, BsubCause::kLimit);
  EXPECT_EQ(limit.next, Verdict::Next::kTryNextQueue);
  const Verdict esub = judge("Request aborted by esub. Job not submitted.");
  EXPECT_EQ(esub.remember, BsubCause::kEsub);
  EXPECT_EQ(esub.next, Verdict::Next::kTryNextQueue);
  ASSERT_TRUE(esub.if_none_accepts);
  EXPECT_EQ(esub.if_none_accepts->code, ErrorCode::kRejected);
  EXPECT_EQ(judge("Bad resource requirement syntax. Job not submitted.").remember,
            BsubCause::kNone);
}

TEST_F(SubmitterTest, HostRejectionTriesNextQueueAndIsRememberedForThatHost) {
  BsubReplies("qa", FakeCommandRunner::Output(
                        "",
                        "node001: Host or host group is not used by the queue. Job not "
                        "submitted.\n",
                        255));
  JobRequest job = Command("true");
  job.host = "node001";
  const SubmissionResult result = Submit(job);
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.queue, "qb");
  EXPECT_THAT(Refused(), IsEmpty()) << "says nothing about other hosts";
  EXPECT_THAT(Refused("node001"), UnorderedElementsAre(Pair("qa", HasSubstr("on host node001"))));
  const SubmissionResult next = Submit(job, "rid2");
  ASSERT_FALSE(next.error);
  ASSERT_EQ(next.attempts.size(), 1u);
  EXPECT_EQ(next.attempts[0].queue, "qb");
}

TEST_F(SubmitterTest, StopsOnJobRejection) {
  BsubReplies("qa", FakeCommandRunner::Output(
                        "", "Bad resource requirement syntax. Job not submitted.\n", 255));
  JobRequest job = Command("true");
  job.resources = {"select[["};
  const SubmissionResult result = Submit(job);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kRejected);
  EXPECT_THAT(result.error->message, HasSubstr("Bad resource requirement syntax"));
  ASSERT_EQ(result.attempts.size(), 1u);
  EXPECT_EQ(result.attempts[0].outcome, "job_rejected");
  EXPECT_EQ(BsubCalls().size(), 1u);
  EXPECT_THAT(ledger_.Counts(), IsEmpty());
  EXPECT_THAT(Refused(), IsEmpty());
}

TEST_F(SubmitterTest, NeverResubmitsAfterTimeoutAndKeepsSlotsCounted) {
  lsf::CommandResult timed_out = FakeCommandRunner::TimedOut();
  timed_out.elapsed = 9000ms;
  BsubReplies("qa", timed_out);
  JobRequest job = Command("true");
  job.slots = 6;
  const SubmissionResult result = Submit(job, "lost1");
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kTimeout);
  EXPECT_THAT(result.error->message, HasSubstr("bplace:lost1"));
  ASSERT_EQ(result.attempts.size(), 1u);
  EXPECT_EQ(result.attempts[0].outcome, "timeout");
  EXPECT_EQ(BsubCalls().size(), 1u);
  EXPECT_THAT(ledger_.Counts(), UnorderedElementsAre(Pair("qa", 6)));
}

TEST_F(SubmitterTest, StopsWhenLsfIsUnavailable) {
  fake_.On(IsBsub, [](const lsf::CommandSpec&) {
    return FakeCommandRunner::Reply(FakeCommandRunner::Output(
        "",
        "lsb_init: Failed in an LSF library call: Unable to open file lsf.conf. Job not "
        "submitted.\n",
        255));
  });
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kUnavailable);
  EXPECT_EQ(BsubCalls().size(), 1u);
  EXPECT_THAT(ledger_.Counts(), IsEmpty());
}

TEST_F(SubmitterTest, ReportsBsubThatCannotStart) {
  fake_.On(IsBsub, [](const lsf::CommandSpec&) {
    return FakeCommandRunner::Reply(Fail(ErrorCode::kCommandFailed, "execve(bsub): ENOENT"));
  });
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kUnavailable);
  EXPECT_THAT(result.error->message, HasSubstr("ENOENT"));
  EXPECT_EQ(BsubCalls().size(), 1u);
  EXPECT_THAT(ledger_.Counts(), IsEmpty());
}

TEST_F(SubmitterTest, RespectsMaxAttempts) {
  options_.max_attempts = 2;
  fake_.On(IsBsub, [](const lsf::CommandSpec& spec) {
    return FakeCommandRunner::Reply(FakeCommandRunner::Output(
        "", ValueOf(spec.argv, "-q") + ": Queue has been closed. Job not submitted.\n", 255));
  });
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kConflict);
  EXPECT_EQ(result.attempts.size(), 2u);
  EXPECT_EQ(BsubCalls().size(), 2u);
  EXPECT_THAT(ledger_.Counts(), IsEmpty());
}

TEST_F(SubmitterTest, GivesUpWhenEveryQueueRefused) {
  options_.max_attempts = 10;
  fake_.On(IsBsub, [](const lsf::CommandSpec& spec) {
    return FakeCommandRunner::Reply(FakeCommandRunner::Output(
        "", ValueOf(spec.argv, "-q") + ": User cannot use the queue. Job not submitted.\n", 255));
  });
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kConflict);
  EXPECT_EQ(BsubCalls().size(), 3u) << "each queue is tried once";
  ASSERT_TRUE(result.placement);
  EXPECT_THAT(result.placement->candidates, IsEmpty());
  EXPECT_EQ(result.placement->excluded.size(), 3u);
}

TEST_F(SubmitterTest, ConflictWhenNoQueueTakesHost) {
  // node001 is only in HOSTS of qc (via hg_two/), which the site excludes.
  options_.excluded_queues = {"qc"};
  fake_.OnArgv({"bqueues", "-l"},
               FakeCommandRunner::Output(QueueBlock("qa", "node002") + QueueBlock("qb", "node002") +
                                         QueueBlock("qc", "hg_two/")));
  JobRequest job = Command("true");
  job.host = "node001";
  const SubmissionResult result = Submit(job);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kConflict);
  EXPECT_THAT(result.attempts, IsEmpty());
  ASSERT_TRUE(result.placement);
  EXPECT_EQ(result.placement->excluded.size(), 3u);
  EXPECT_TRUE(BsubCalls().empty());
}

TEST_F(SubmitterTest, UnknownHostIsNotFound) {
  JobRequest job = Command("true");
  job.host = "node999";
  const SubmissionResult result = Submit(job);
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kNotFound);
  EXPECT_TRUE(BsubCalls().empty());
}

TEST_F(SubmitterTest, FailsWhenPermissionsCannotBeFetched) {
  fake_.OnArgv(kAliceQuery, FakeCommandRunner::Output("", "LSF is down. Please wait...\n", 255));
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kUnavailable);
  EXPECT_TRUE(BsubCalls().empty());
}

TEST_F(SubmitterTest, UsesLsfPermissionAnswer) {
  // LSF lets alice use only qc.
  fake_.OnArgv(kAliceQuery,
               FakeCommandRunner::Output(
                   "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  "
                   "SUSP \n"
                   "qc               30  Open:Active       -    -    -    -    10    10     0   "
                   "  0\n"));
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.queue, "qc");
}

TEST_F(SubmitterTest, ReportsQueueLsfChose) {
  // A site esub rewrote -q qa to qc.
  BsubReplies("qa", FakeCommandRunner::Output("esub: routing to qc\n"
                                              "Job <4711> is submitted to queue <qc>.\n"));
  const SubmissionResult result = Submit(Command("true"));
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_EQ(result.job_id, "4711");
  EXPECT_EQ(result.queue, "qc");
  EXPECT_EQ(result.requested_queue, "qa");
  EXPECT_EQ(ValueOf(result.bsub_argv, "-q"), "qa");
  // qc's PEND is the one that will grow.
  EXPECT_THAT(ledger_.Counts(), UnorderedElementsAre(Pair("qc", 1)));
}

TEST_F(SubmitterTest, SpreadsBurstAcrossQueuesByPendingPlusInflight) {
  // PEND 0, 4, 10 and 2 slots per job, no load refresh in between: each job
  // goes where PEND + in-flight is lowest (ties by name), so the first 8
  // fill qa and qb up to qc's 10, and then the three take turns.
  std::map<std::string, int> per_queue;
  std::vector<std::string> order;
  for (int i = 0; i < 20; ++i) {
    JobRequest job = Command("true");
    job.slots = 2;
    const SubmissionResult result = Submit(job, "burst" + std::to_string(i));
    ASSERT_FALSE(result.error) << result.error->message;
    ++per_queue[result.queue];
    order.push_back(result.queue);
  }
  EXPECT_THAT(per_queue, ElementsAre(Pair("qa", 9), Pair("qb", 7), Pair("qc", 4)));
  EXPECT_THAT(order, ElementsAre("qa", "qa", "qa", "qb", "qa", "qb", "qa", "qb", "qa", "qb", "qc",
                                 "qa", "qb", "qc", "qa", "qb", "qc", "qa", "qb", "qc"));
  EXPECT_THAT(ledger_.Counts(),
              UnorderedElementsAre(Pair("qa", 18), Pair("qb", 14), Pair("qc", 8)));
  EXPECT_EQ(CallsOf({"bqueues", "-w"}), 1u) << "no load refresh happened";
  EXPECT_EQ(CallsOf(kAliceQuery), 1u) << "permissions were fetched once";
}

TEST_F(SubmitterTest, DryRunRunsNoCommand) {
  Submitter& submitter = Ready();
  const std::size_t calls = fake_.CallCount();
  PlacementRequest request;
  request.user = "alice";
  const auto placement = submitter.DryRun(request);
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_EQ(placement->permission_source, "users_line");
  ASSERT_EQ(placement->candidates.size(), 3u);
  EXPECT_EQ(placement->candidates[0].queue, "qa");
  EXPECT_EQ(fake_.CallCount(), calls);
}

TEST_F(SubmitterTest, DryRunUsesCachedPermissionsAndInflightSlots) {
  JobRequest job = Command("true");
  job.slots = 5;
  ASSERT_FALSE(Submit(job).error);  // fetches alice's permissions, qa gets 5 in flight
  PlacementRequest request;
  request.user = "alice";
  const auto placement = submitter_->DryRun(request);
  ASSERT_TRUE(placement);
  EXPECT_EQ(placement->permission_source, "lsf");
  ASSERT_EQ(placement->candidates.size(), 3u);
  EXPECT_EQ(placement->candidates[0].queue, "qb");
  EXPECT_EQ(placement->candidates[1].queue, "qa");
  EXPECT_EQ(placement->candidates[1].inflight, 5);
}

TEST_F(SubmitterTest, SetOptionsExcludesAQueueFromTheNextPlacement) {
  Submitter& submitter = Ready();
  PlacementRequest request;
  request.user = "alice";
  auto before = submitter.DryRun(request);
  ASSERT_TRUE(before) << before.error().message;
  ASSERT_EQ(before->candidates.size(), 3u);
  EXPECT_EQ(before->candidates[0].queue, "qa");

  SubmitterOptions reloaded = submitter.options();
  reloaded.excluded_queues = {"qa"};
  submitter.SetOptions(reloaded);
  auto after = submitter.DryRun(request);
  ASSERT_TRUE(after) << after.error().message;
  ASSERT_EQ(after->candidates.size(), 2u);
  EXPECT_EQ(after->candidates[0].queue, "qb");
  ASSERT_EQ(after->excluded.size(), 1u);
  EXPECT_EQ(after->excluded[0].queue, "qa");
  EXPECT_EQ(after->excluded[0].code, ExclusionCode::kExcludedByConfig);
  EXPECT_EQ(submitter.options().excluded_queues, std::vector<std::string>{"qa"});
}

TEST_F(SubmitterTest, SetOptionsChangesTheDefaultIbRequirement) {
  options_.ib.source = IbSource::kLsload;
  options_.ib.require_ib = true;
  options_.ib.allow_unknown = false;  // and no health source answered
  Submitter& submitter = Ready();
  EXPECT_TRUE(Submit(Command("./mpi_app"), "rid1").error);
  SubmitterOptions reloaded = submitter.options();
  reloaded.ib.require_ib = false;
  submitter.SetOptions(reloaded);
  const SubmissionResult result = Submit(Command("./mpi_app"), "rid2");
  EXPECT_FALSE(result.error) << result.error->message;
}

TEST_F(SubmitterTest, SubmitsNothingWhenNoHostHasKnownHealthyIbAndUnknownIsRefused) {
  options_.ib.require_ib = true;
  options_.ib.source = IbSource::kLsload;
  options_.ib.allow_unknown = false;  // and no health source answered
  const SubmissionResult result = Submit(Command("./mpi_app"));
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code, ErrorCode::kConflict);
  ASSERT_TRUE(result.placement);
  for (const Exclusion& exclusion : result.placement->excluded) {
    EXPECT_EQ(exclusion.code, ExclusionCode::kNoHealthyIbHost) << exclusion.queue;
  }
  EXPECT_TRUE(BsubCalls().empty());
}

TEST_F(SubmitterTest, IbSelectAlsoAdmitsHostsWithoutIbOkWhenUnknownIsAllowed) {
  options_.ib.require_ib = true;
  options_.ib.source = IbSource::kLsload;
  JobRequest job = Command("./mpi_app");
  job.resources = {"span[ptile=4]"};
  const SubmissionResult result = Submit(job);
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_THAT(result.bsub_argv,
              ElementsAre("bsub", "-q", "qa", "-Jd", "bplace:rid1", "-R", "span[ptile=4]", "-R",
                          "select[!defined(ib_ok) || ib_ok==1]", "./mpi_app"));
}

// bsub lets a command-line -R replace the script's #BSUB -R: with bplace's
// own -R on the line, the script's go there too (LSF merges several -R).
TEST_F(SubmitterTest, AScriptsResourcesJoinTheIbSelectOnTheCommandLine) {
  options_.ib.require_ib = true;
  options_.ib.source = IbSource::kLsload;
  JobRequest job;
  job.script = "#BSUB -R \"rusage[mem=4G]\"\n./mpi_app\n";
  job.script_resources = {"rusage[mem=4G]"};
  const SubmissionResult with_ib = Submit(job);
  ASSERT_FALSE(with_ib.error) << with_ib.error->message;
  EXPECT_THAT(with_ib.bsub_argv,
              ElementsAre("bsub", "-q", "qa", "-Jd", "bplace:rid1", "-R",
                          "select[!defined(ib_ok) || ib_ok==1]", "-R", "rusage[mem=4G]"));
  // Without bplace's -R the script's line stands alone: nothing is added.
  job.require_ib = false;
  const SubmissionResult without = Submit(job);
  ASSERT_FALSE(without.error) << without.error->message;
  EXPECT_THAT(without.bsub_argv, ElementsAre("bsub", "-q", "qa", "-Jd", "bplace:rid1"));
}

TEST_F(SubmitterTest, LeavesIbSelectOutWhenRequestDoesNotRequireIb) {
  options_.ib.require_ib = true;
  options_.ib.source = IbSource::kLsload;
  JobRequest job = Command("./serial_app");
  job.require_ib = false;
  const SubmissionResult result = Submit(job);
  ASSERT_FALSE(result.error) << result.error->message;
  EXPECT_THAT(result.bsub_argv,
              ElementsAre("bsub", "-q", "qa", "-Jd", "bplace:rid1", "./serial_app"));
}

}  // namespace
}  // namespace bplace
