#include "lsf_adapter/bsub_reply.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::BsubCase;
using testing::ReadBsubCases;
using testing::WithCrlf;

std::string OutcomeName(BsubOutcome outcome) {
  switch (outcome) {
    case BsubOutcome::kSubmitted:
      return "submitted";
    case BsubOutcome::kQueueRejected:
      return "queue_rejected";
    case BsubOutcome::kJobRejected:
      return "job_rejected";
    case BsubOutcome::kUnavailable:
      return "unavailable";
    case BsubOutcome::kUnknown:
      return "unknown";
  }
  return "?";
}

void ExpectCase(const BsubCase& c, const BsubReply& reply) {
  SCOPED_TRACE(c.name + " (" + c.source + ")");
  EXPECT_EQ(OutcomeName(reply.outcome()), c.outcome);
  EXPECT_EQ(reply.job_id, c.job_id);
  EXPECT_EQ(reply.queue, c.queue);
  if (c.outcome != "submitted") {
    EXPECT_EQ(reply.message, c.message);
  }
  if (c.has_prefix) {
    EXPECT_EQ(reply.prefix, c.prefix);
  }
}

class BsubCaptureTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BsubCaptureTest, ClassifiesEveryCapturedReply) {
  const std::vector<BsubCase> cases = ReadBsubCases(GetParam());
  ASSERT_FALSE(cases.empty());
  for (const BsubCase& c : cases) {
    ExpectCase(c, ClassifyBsubReply(c.exit_code, c.out, c.err));
    ExpectCase(c, ClassifyBsubReply(c.exit_code, WithCrlf(c.out), WithCrlf(c.err)));
  }
}

INSTANTIATE_TEST_SUITE_P(Captures, BsubCaptureTest,
                         ::testing::Values("lsf/lsf10/bsub_replies.txt",
                                           "lsf/openlava/bsub_replies.txt"));

TEST(ClassifyBsubReplyTest, KeepsTheRawLine) {
  const BsubReply reply =
      ClassifyBsubReply(255, "", "adminq: User cannot use the queue. Job not submitted.  \n");
  EXPECT_EQ(reply.raw_line, "adminq: User cannot use the queue. Job not submitted.");
  EXPECT_EQ(reply.prefix, "adminq");
  EXPECT_EQ(reply.message, "User cannot use the queue");
}

TEST(ClassifyBsubReplyTest, TrustsTheSuccessLineOverTheExitStatus) {
  const BsubReply reply =
      ClassifyBsubReply(255, "Job <5> is submitted to queue <normal>.\n", "some later complaint\n");
  EXPECT_EQ(reply.outcome(), BsubOutcome::kSubmitted);
  EXPECT_EQ(reply.job_id, "5");
  EXPECT_EQ(reply.queue, "normal");
}

TEST(ClassifyBsubReplyTest, IgnoresLookalikesOfTheSuccessLine) {
  for (const char* out :
       {"Job <> is submitted to queue <normal>.\n", "Job <12a> is submitted to queue <normal>.\n",
        "Job <12> is submitted to queue <>.\n", "Job <12> is submitted to queue <nor mal>.\n",
        "Job <12> is submitted to queue <normal\n",
        "Job <12> was submitted to queue <normal>.\n"}) {
    const BsubReply reply = ClassifyBsubReply(0, out, "");
    EXPECT_EQ(reply.outcome(), BsubOutcome::kUnknown) << out;
    EXPECT_TRUE(reply.job_id.empty()) << out;
  }
}

TEST(ClassifyBsubReplyTest, FindsTheSuccessLineAfterALookalike) {
  const BsubReply reply = ClassifyBsubReply(0,
                                            "Job <x> Job <7> is submitted to default queue <q<>\n"
                                            "Job <8> is submitted to default queue <night>.\n",
                                            "");
  EXPECT_EQ(reply.outcome(), BsubOutcome::kSubmitted);
  EXPECT_EQ(reply.job_id, "8");
  EXPECT_EQ(reply.queue, "night");
}

TEST(ClassifyBsubReplyTest, TreatsAnUnknownNotSubmittedReasonAsAJobRejection) {
  const BsubReply reply =
      ClassifyBsubReply(255, "", "night: A reason LSF added later. Job not submitted.\n");
  EXPECT_EQ(reply.outcome(), BsubOutcome::kJobRejected);
  EXPECT_EQ(reply.prefix, "night");
  EXPECT_EQ(reply.message, "A reason LSF added later");
}

TEST(ClassifyBsubReplyTest, ReturnsUnknownForOtherOutput) {
  const BsubReply garbled = ClassifyBsubReply(3, "", "segmentation fault\n");
  EXPECT_EQ(garbled.outcome(), BsubOutcome::kUnknown);
  EXPECT_EQ(garbled.message, "segmentation fault");
  const BsubReply silent = ClassifyBsubReply(0, "", "");
  EXPECT_EQ(silent.outcome(), BsubOutcome::kUnknown);
  EXPECT_EQ(silent.message, "bsub exited with status 0 and no output");
  const BsubReply busy =
      ClassifyBsubReply(-1, "", "LSF is processing your request. Please wait...\n");
  EXPECT_EQ(busy.outcome(), BsubOutcome::kUnknown);
}

TEST(ClassifyBsubReplyTest, ReadsStdoutWhenStderrIsEmpty) {
  const BsubReply reply =
      ClassifyBsubReply(255, "closedq: Queue has been closed. Job not submitted.\n", "\n\n");
  EXPECT_EQ(reply.outcome(), BsubOutcome::kQueueRejected);
  EXPECT_EQ(reply.prefix, "closedq");
}

TEST(ClassifyBsubReplyTest, DecidesOnTheLastLineAfterChatter) {
  const BsubReply reply =
      ClassifyBsubReply(255, "",
                        "LSF is down. Please wait...\nnosuchq: No such queue. Job not submitted.\n"
                        "LSF is processing your request. Please wait...\n");
  EXPECT_EQ(reply.outcome(), BsubOutcome::kQueueRejected);
  EXPECT_EQ(reply.message, "No such queue");
}

TEST(ClassifyBsubReplyTest, Exit141WithOutputIsClassifiedByTheOutput) {
  const BsubReply reply =
      ClassifyBsubReply(141, "", "User permission denied. Job not submitted.\n");
  EXPECT_EQ(reply.outcome(), BsubOutcome::kJobRejected);
  EXPECT_EQ(reply.message, "User permission denied");
}

// A bug once: the refusal on stdout with retry chatter on stderr was never
// read (a closed queue gave 502 instead of moving on).
TEST(ClassifyBsubReplyTest, ReadsTheRefusalOnOneStreamPastChatterOnTheOther) {
  const BsubReply reply =
      ClassifyBsubReply(255, "closedq: Queue has been closed. Job not submitted.\n",
                        "LSF is processing your request. Please wait...\n");
  EXPECT_EQ(reply.scope, BsubScope::kUserQueue);
  EXPECT_EQ(reply.cause, BsubCause::kQueueClosed);
  EXPECT_EQ(reply.message, "Queue has been closed");
}

// A bug once: an esub abort with "Cannot connect to LSF" chatter on the other
// stream was taken for LSF being down (503, retried forever).
TEST(ClassifyBsubReplyTest, EsubAbortPastChatterIsAJobRefusalWithTheEsubsReason) {
  const BsubReply reply = ClassifyBsubReply(
      255, "Cannot connect to LSF. Please wait ...\n",
      "esub: project code missing: use -P\nRequest aborted by esub. Job not submitted.\n");
  EXPECT_EQ(reply.scope, BsubScope::kJob);
  EXPECT_EQ(reply.cause, BsubCause::kEsub);
  EXPECT_EQ(reply.message, "Request aborted by esub");
  EXPECT_EQ(reply.esub_message, "esub: project code missing: use -P");
  EXPECT_EQ(reply.Explanation(), "Request aborted by esub (esub: project code missing: use -P)");
}

TEST(ClassifyBsubReplyTest, ScopeSaysWhatARefusalIsAbout) {
  struct Case {
    const char* err;
    BsubScope scope;
    BsubCause cause;
  };
  const Case cases[] = {
      {"q: User cannot use the queue. Job not submitted.", BsubScope::kUserQueue,
       BsubCause::kPermission},
      {"node9: Host or host group is not used by the queue. Job not submitted.",
       BsubScope::kHostQueue, BsubCause::kHost},
      {"q: The destination queue has reached its job limit. Job not submitted.",
       BsubScope::kUserQueue, BsubCause::kLimit},
      {"Bad resource requirement syntax. Job not submitted.", BsubScope::kJob, BsubCause::kRequest},
      {"Unknown user. Job not submitted.", BsubScope::kJob, BsubCause::kIdentity},
      {"LSF is down. Please wait...", BsubScope::kLsfUnavailable, BsubCause::kUnavailable},
      {"segmentation fault", BsubScope::kUnknown, BsubCause::kUnknown},
  };
  for (const Case& c : cases) {
    const BsubReply reply = ClassifyBsubReply(255, "", std::string(c.err) + "\n");
    EXPECT_EQ(reply.scope, c.scope) << c.err;
    EXPECT_EQ(reply.cause, c.cause) << c.err;
  }
}

TEST(BsubRejectionPrefixTest, GivesTheTokenBeforeTheReason) {
  EXPECT_EQ(BsubRejectionPrefix("nosuchhost: Bad host name, host group name or cluster name. "
                                "Job not submitted."),
            "nosuchhost");
  EXPECT_EQ(BsubRejectionPrefix("vm hg_bigmem: Host or host group is not used by the queue. Job "
                                "not submitted."),
            "vm hg_bigmem");
  EXPECT_EQ(BsubRejectionPrefix(
                "lsb_init: Failed in an LSF library call: Unable to open file lsf.conf. Job not "
                "submitted."),
            "lsb_init");
  EXPECT_EQ(BsubRejectionPrefix("Failed in an LSF library call: LIM is down; try later. Job not "
                                "submitted."),
            "");
  EXPECT_EQ(BsubRejectionPrefix("Too many processors requested. Job not submitted."), "");
  EXPECT_EQ(BsubRejectionPrefix(""), "");
}

}  // namespace
}  // namespace bplace::lsf
