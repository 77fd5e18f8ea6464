// AdmitSubmission and SubmissionResponse (api/submission.h),
// over the route-test fixture (tests/api/handlers_fixture.h).

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/submission.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

using nlohmann::json;
using ::testing::StartsWith;
using namespace std::chrono_literals;
namespace http = boost::beast::http;

// A call as PostJobs makes it, for SubmissionResponse.
SubmissionCall CallOf(const std::string& request_id, const std::string& user) {
  SubmissionCall call;
  call.context.request_id = request_id;
  call.context.user = user;
  call.context.tag = request_id;
  return call;
}

TEST_F(HandlersTest, SubmissionWithoutASnapshotIs503WithRetryAfter) {
  const auto refused =
      AdmitSubmission(services_, DaemonUser(), PostJob(R"({"command":"true"})"), {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().response.result_int(), 503u);
  EXPECT_EQ(Header(refused.error().response, http::field::retry_after), "5");
  EXPECT_EQ(refused.error().reason, "no LSF snapshot yet");
}

TEST_F(HandlersTest, SubmissionIs503WhenLsfFailsAndTheSnapshotIsStale) {
  Ready();
  clock_.Advance(121s);
  LoadRefreshFails();
  const std::size_t calls = fake_.CallCount();
  const Response response = Call(PostJob(R"({"command":"true"})"));
  EXPECT_EQ(response.result_int(), 503u);
  EXPECT_EQ(Header(response, http::field::retry_after), "15");
  EXPECT_THAT(Detail(response), StartsWith("LSF is not answering and the cached data is stale"));
  EXPECT_EQ(fake_.CallCount(), calls) << "no bsub on stale data while LSF is down";
}

TEST_F(HandlersTest, StaleSnapshotIsStillSubmittedOnWhileLsfAnswers) {
  Ready();
  clock_.Advance(121s);  // old, but no refresh has failed
  EXPECT_TRUE(AdmitSubmission(services_, DaemonUser(), PostJob(R"({"command":"true"})"), {}));
}

TEST_F(HandlersTest, SubmissionResponseOfAnErrorIsItsProblemWithTheRequestMembers) {
  SubmissionResult conflict;
  conflict.error = Error{ErrorCode::kConflict, "no queue may take the job"};
  conflict.placement = Placement{};
  conflict.placement->excluded.push_back(
      {"qa", ExclusionCode::kQueueClosed, "qa is closed", nullptr});
  const Response response = SubmissionResponse(conflict, CallOf("rid-7", "alice"));
  EXPECT_EQ(response.result_int(), 409u);
  const json body = Body(response);
  EXPECT_EQ(body["request_id"], "rid-7");
  EXPECT_EQ(body["user"], "alice");
  EXPECT_EQ(body["excluded"][0]["code"], "queue_closed");

  SubmissionResult busy;
  busy.error = Error{ErrorCode::kRateLimited, "LSF-call budget spent"};
  EXPECT_EQ(Header(SubmissionResponse(busy, CallOf("r", "alice")), http::field::retry_after), "1");
  SubmissionResult down;
  down.error = Error{ErrorCode::kUnavailable, "LSF is down"};
  EXPECT_EQ(Header(SubmissionResponse(down, CallOf("r", "alice")), http::field::retry_after), "15");
}

}  // namespace
}  // namespace bplace::api::testing
