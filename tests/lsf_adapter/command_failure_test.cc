#include "lsf_adapter/command_failure.h"

#include <gtest/gtest.h>

#include "lsf_adapter/lsf_messages.h"

namespace bplace::lsf {
namespace {

CommandResult Exited(int code, std::string out, std::string err = {}) {
  CommandResult result;
  result.exit_code = code;
  result.out = std::move(out);
  result.err = std::move(err);
  return result;
}

TEST(ClassifyFailureTest, CompleteOutputWithExitZeroIsNoFailure) {
  EXPECT_EQ(ClassifyFailure(Exited(0, "QUEUE_NAME\nnormal\n")).kind, CommandFailureKind::kNone);
  EXPECT_EQ(ClassifyFailure(Exited(0, "")).kind, CommandFailureKind::kNone);
}

TEST(ClassifyFailureTest, OutputWithoutFinalNewlineIsTruncatedEvenWithExitZero) {
  const CommandFailure failure = ClassifyFailure(Exited(0, "HOST_NAME STATUS\nnode001 o"));
  EXPECT_EQ(failure.kind, CommandFailureKind::kTruncated);
  EXPECT_NE(failure.reason.find("no final newline"), std::string::npos);
}

TEST(ClassifyFailureTest, OutputCutByTheRunnerIsTruncated) {
  CommandResult result = Exited(0, "HOST_NAME STATUS\n");
  result.output_truncated = true;
  EXPECT_EQ(ClassifyFailure(result).kind, CommandFailureKind::kTruncated);
}

TEST(ClassifyFailureTest, TimeoutAndSignalAreTransient) {
  CommandResult timed_out;
  timed_out.timed_out = true;
  timed_out.elapsed = std::chrono::milliseconds(7000);
  EXPECT_EQ(ClassifyFailure(timed_out).kind, CommandFailureKind::kTransient);
  EXPECT_EQ(ClassifyFailure(timed_out).reason, "no answer within 7000 ms (killed)");
  CommandResult killed;
  killed.exit_code = -1;
  killed.term_signal = 9;
  EXPECT_EQ(ClassifyFailure(killed).reason, "killed by signal 9");
}

TEST(ClassifyFailureTest, LsfDownIsUnavailableWhateverStreamSaysIt) {
  EXPECT_EQ(ClassifyFailure(Exited(255, "", "LSF is down. Please wait...\n")).kind,
            CommandFailureKind::kUnavailable);
  // The reason on stdout, the chatter on stderr: the reason decides.
  const CommandFailure failure = ClassifyFailure(Exited(
      255, "Connection refused by server\n", "LSF is processing your request. Please wait...\n"));
  EXPECT_EQ(failure.kind, CommandFailureKind::kUnavailable);
  EXPECT_EQ(failure.reason, "exit status 255: Connection refused by server");
}

TEST(ClassifyFailureTest, NoGroupsIsAnAnswerNotAFailure) {
  EXPECT_EQ(ClassifyFailure(Exited(255, "", "No host group found\n")).kind,
            CommandFailureKind::kNoGroups);
  EXPECT_EQ(ClassifyFailure(Exited(255, "", "No user group\n")).kind,
            CommandFailureKind::kNoGroups);
}

TEST(ClassifyFailureTest, OtherExitIsACommandError) {
  const CommandFailure failure = ClassifyFailure(Exited(255, "", "nosuchq: No such queue\n"));
  EXPECT_EQ(failure.kind, CommandFailureKind::kCommandError);
  EXPECT_EQ(failure.reason, "exit status 255: nosuchq: No such queue");
}

TEST(QueryOutputTest, NamesTheCommandAndMapsEachKindToOneCode) {
  EXPECT_EQ(*QueryOutput("lsid", Exited(0, "x\n")), "x\n");
  EXPECT_EQ(QueryOutput("bhosts -w", Exited(0, "x")).error().code, ErrorCode::kParseError);
  EXPECT_EQ(QueryOutput("bhosts -w", Exited(0, "x")).error().message.rfind("bhosts -w: ", 0), 0u);
  EXPECT_EQ(QueryOutput("bmgroup -w", Exited(255, "", "No host group\n")).error().code,
            ErrorCode::kNotFound);
  EXPECT_EQ(QueryOutput("bqueues -w", Exited(255, "", "LSF is down.\n")).error().code,
            ErrorCode::kUnavailable);
  EXPECT_EQ(QueryOutput("bqueues -w", Exited(3, "", "odd\n")).error().code,
            ErrorCode::kCommandFailed);
  EXPECT_EQ(
      QueryOutput("bqueues -w", Fail(ErrorCode::kCommandFailed, "execve: ENOENT")).error().code,
      ErrorCode::kUnavailable);
}

TEST(LsfMessagesTest, ReasonLinePrefersStderrThenStdoutThenChatter) {
  EXPECT_EQ(ReasonLine("out reason\n", "err reason\n"), "err reason");
  EXPECT_EQ(ReasonLine("out reason\n", "Cannot connect to LSF. Please wait ...\n"), "out reason");
  EXPECT_EQ(ReasonLine("", "LSF is down. Please wait...\n  \n"), "LSF is down. Please wait...");
  EXPECT_EQ(ReasonLine("", ""), "");
}

TEST(LsfMessagesTest, SaysNoJobFoundForEveryNoJobSentenceOnly) {
  EXPECT_TRUE(SaysNoJobFound("No job found"));
  EXPECT_TRUE(SaysNoJobFound("No unfinished job found"));
  EXPECT_TRUE(SaysNoJobFound("No DONE/EXIT job found"));
  EXPECT_TRUE(SaysNoJobFound("  No pending job found in queue <short>\r"));
  EXPECT_FALSE(SaysNoJobFound("Job <12> is not found"));
  EXPECT_FALSE(SaysNoJobFound("Nojob found"));
  EXPECT_FALSE(SaysNoJobFound("LSF is down. Please wait..."));
  EXPECT_FALSE(SaysNoJobFound(""));
}

}  // namespace
}  // namespace bplace::lsf
