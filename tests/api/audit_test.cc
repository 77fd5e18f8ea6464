// The audit log's records of submissions (api/audit.h),
// over the route-test fixture (tests/api/handlers_fixture.h).

#include <string>

#include <gtest/gtest.h>

#include "api/audit.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

using nlohmann::json;

TEST_F(HandlersTest, AuditRecordsNameTheDecisionRequestAndCaller) {
  RequestContext ctx;
  ctx.request_id = "rid-9";
  ctx.remote = "127.0.0.1:1";
  const json unknown = AuditRecord(nullptr, ctx, "unknown bearer token");
  EXPECT_EQ(unknown, json({{"event", "submit"},
                           {"decision", "refused"},
                           {"reason", "unknown bearer token"},
                           {"request_id", "rid-9"},
                           {"remote", "127.0.0.1:1"}}));

  Caller caller;
  caller.method = AuthMethod::kPeerCredentials;
  caller.user = "alice";
  caller.uid = 1001;
  SubmissionResult result;
  result.job_id = "1000";
  result.queue = result.requested_queue = "qa";
  result.bsub_argv = {"bsub", "-q", "qa"};
  const json submitted = AuditRecord(caller, ctx, result);
  EXPECT_EQ(submitted["decision"], "submitted");
  EXPECT_EQ(submitted["job_id"], "1000");
  EXPECT_EQ(submitted["caller"], "alice");
  EXPECT_EQ(submitted["uid"], 1001);
  EXPECT_EQ(submitted["auth"], "peer_credentials");
  EXPECT_EQ(submitted["attempts"], json::array());
  EXPECT_FALSE(submitted.contains("candidates"));

  result.error = Error{ErrorCode::kRejected, "Bad resource requirement syntax"};
  const json failed = AuditRecord(caller, ctx, result);
  EXPECT_EQ(failed["decision"], "failed");
  EXPECT_EQ(failed["reason"], "Bad resource requirement syntax");
  EXPECT_FALSE(failed.contains("job_id"));
}

}  // namespace
}  // namespace bplace::api::testing
