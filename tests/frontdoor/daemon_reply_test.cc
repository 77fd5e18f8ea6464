#include "frontdoor/daemon_reply.h"

#include <gtest/gtest.h>

namespace bplace::frontdoor {
namespace {

client::HttpAnswer Answer(int status, std::string body,
                          std::map<std::string, std::string> headers = {}) {
  return client::HttpAnswer{status, std::move(headers), std::move(body)};
}

TEST(ReadDaemonReplyTest, AnAnswerIsPrintedAsIs) {
  const DaemonReply reply = ReadDaemonReply(
      Answer(200, R"({"stdout":"RUN\n","stderr":"Job <9> is not found\n","exit_code":255})"));
  EXPECT_EQ(reply.kind, DaemonReply::Kind::kAnswered);
  EXPECT_EQ(reply.out, "RUN\n");
  EXPECT_EQ(reply.err, "Job <9> is not found\n");
  EXPECT_EQ(reply.exit_code, 255);
}

TEST(ReadDaemonReplyTest, RunLsfCarriesTheArguments) {
  const DaemonReply reply =
      ReadDaemonReply(Answer(200, R"({"run_lsf":["-q","short","-Is","bash"],"reason":"x"})"));
  EXPECT_EQ(reply.kind, DaemonReply::Kind::kRunReal);
  EXPECT_EQ(reply.args, (std::vector<std::string>{"-q", "short", "-Is", "bash"}));
  EXPECT_EQ(reply.reason, "x");
}

TEST(ReadDaemonReplyTest, RunLsfMayAskForExit0WhenEmpty) {
  EXPECT_TRUE(ReadDaemonReply(Answer(200, R"({"run_lsf":["-json"],"exit_0_when_empty":true})"))
                  .exit_0_when_empty);
  EXPECT_FALSE(ReadDaemonReply(Answer(200, R"({"run_lsf":["-json"]})")).exit_0_when_empty);
  EXPECT_FALSE(ReadDaemonReply(Answer(200, R"({"run_lsf":["-json"],"exit_0_when_empty":"yes"})"))
                   .exit_0_when_empty);
}

TEST(ReadDaemonReplyTest, RetryableStatusesKeepTheKey) {
  EXPECT_EQ(ReadDaemonReply(Answer(409, "{}", {{"retry-after", "7"}})).retry_after.count(), 7);
  EXPECT_EQ(ReadDaemonReply(Answer(409, "{}", {{"retry-after", "7"}})).kind,
            DaemonReply::Kind::kRetry);
  for (int status : {429, 500, 503, 504}) {
    const DaemonReply reply = ReadDaemonReply(Answer(status, "{}"));
    EXPECT_EQ(reply.kind, DaemonReply::Kind::kRetry) << status;
    EXPECT_EQ(reply.status, status);
    EXPECT_EQ(reply.retry_after.count(), 5) << status;
  }
}

TEST(ReadDaemonReplyTest, AnythingElseIsNotHandled) {
  EXPECT_EQ(ReadDaemonReply(Answer(409, "{}")).kind, DaemonReply::Kind::kNotHandled);
  EXPECT_EQ(ReadDaemonReply(Answer(404, "{}")).kind, DaemonReply::Kind::kNotHandled);
  EXPECT_EQ(ReadDaemonReply(Answer(401, "{}")).kind, DaemonReply::Kind::kNotHandled);
  EXPECT_EQ(ReadDaemonReply(Answer(200, "not json")).kind, DaemonReply::Kind::kNotHandled);
  EXPECT_EQ(ReadDaemonReply(Answer(200, R"({"stdout":"x"})")).kind, DaemonReply::Kind::kNotHandled);
  EXPECT_EQ(ReadDaemonReply(Answer(200, R"({"run_lsf":[1]})")).kind,
            DaemonReply::Kind::kNotHandled);
}

}  // namespace
}  // namespace bplace::frontdoor
