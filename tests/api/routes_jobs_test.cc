// POST /v1/jobs through the router (api/routes_jobs.h),
// over the route-test fixture (tests/api/handlers_fixture.h).

#include <chrono>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/routes_jobs.h"
#include "api/submission.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;
namespace http = boost::beast::http;

TEST_F(HandlersTest, SubmissionIs201WithTheJobLsfReportedAndItsTag) {
  Ready();
  const Response response = Call(PostJob(R"({"command":"sleep 10","slots":2})"), "rid-42");
  ASSERT_EQ(response.result_int(), 201u) << response.body();
  const json body = Body(response);
  EXPECT_EQ(body["job_id"], "1000");
  EXPECT_EQ(body["queue"], "qa");
  EXPECT_EQ(body["requested_queue"], "qa");
  EXPECT_EQ(body["user"], "alice");
  EXPECT_EQ(body["request_id"], "rid-42");
  EXPECT_EQ(body["job_description"], "bplace:rid-42");
  EXPECT_TRUE(body["host"].is_null());
  EXPECT_EQ(body["attempts"].size(), 1u);
  const std::vector<std::string> argv = body["bsub_argv"];
  EXPECT_EQ(ValueOf(argv, "-Jd"), "bplace:rid-42");
  EXPECT_EQ(ValueOf(argv, "-n"), "2");
}

TEST_F(HandlersTest, SubmissionWithAnotherContentTypeIs415AndRunsNoBsub) {
  Ready();
  const std::size_t calls = fake_.CallCount();
  const Response response = Call(PostJob(R"({"command":"true"})", "text/plain"));
  EXPECT_EQ(response.result_int(), 415u);
  EXPECT_EQ(fake_.CallCount(), calls);
  // Media types are case-insensitive and may carry parameters; none is JSON.
  EXPECT_TRUE(AdmitSubmission(services_, DaemonUser(),
                              PostJob(R"({"command":"true"})", "Application/JSON; charset=utf-8"),
                              {}));
  EXPECT_TRUE(AdmitSubmission(services_, DaemonUser(), PostJob(R"({"command":"true"})", ""), {}));
}

TEST_F(HandlersTest, SubmissionWithABadFieldIs400NamingTheField) {
  Ready();
  const auto refused = AdmitSubmission(
      services_, DaemonUser(), PostJob(R"({"command":"x","slots":"two"})"), RequestContext{});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().response.result_int(), 400u);
  EXPECT_THAT(Detail(refused.error().response), StartsWith("slots: "));
  EXPECT_THAT(refused.error().reason, StartsWith("slots: "));
}

TEST_F(HandlersTest, SubmissionsBeyondTheBurstAre429UntilTheBucketRefills) {
  Ready();
  const auto submit = [this] { return Call(PostJob(R"({"command":"true"})")); };
  EXPECT_EQ(submit().result_int(), 201u);
  EXPECT_EQ(submit().result_int(), 201u);
  const std::size_t calls = fake_.CallCount();
  const Response refused = submit();
  ASSERT_EQ(refused.result_int(), 429u) << refused.body();
  EXPECT_EQ(Header(refused, http::field::retry_after), "60");
  EXPECT_THAT(Detail(refused), HasSubstr("submissions by alice"));
  EXPECT_EQ(fake_.CallCount(), calls) << "no bsub for a refused submission";
  clock_.Advance(60s);
  EXPECT_EQ(submit().result_int(), 201u);
}

TEST_F(HandlersTest, OnlySubmissionsThatReachBsubUseTheBucket) {
  Ready();
  // 415, 400 and 404 (an unknown host) run no bsub: the bucket of two
  // is still full after any number of them.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Call(PostJob(R"({"command":"true"})", "text/plain")).result_int(), 415u);
    EXPECT_EQ(Call(PostJob(R"({"command":"true","slots":"two"})")).result_int(), 400u);
    EXPECT_EQ(
        Call(PostJob(R"({"command":"true","queues":["qa"],"host":"nohost-in-qa"})")).result_int(),
        404u);
  }
  EXPECT_EQ(Call(PostJob(R"({"command":"true"})")).result_int(), 201u);
  EXPECT_EQ(Call(PostJob(R"({"command":"true"})")).result_int(), 201u);
  EXPECT_EQ(Call(PostJob(R"({"command":"true"})")).result_int(), 429u);
}

TEST_F(HandlersTest, CallerWhoMayNotSubmitIs403WithTheAuthenticatorsReason) {
  Ready();
  Caller caller = DaemonUser();
  caller.can_submit = false;
  caller.submit_refusal = "only alice may submit, and you are bob";
  const auto refused = AdmitSubmission(services_, caller, PostJob(R"({"command":"true"})"), {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().response.result_int(), 403u);
  EXPECT_EQ(Detail(refused.error().response), caller.submit_refusal);

  caller.submit_refusal_code = ErrorCode::kUnavailable;  // passwd database down
  const auto later = AdmitSubmission(services_, caller, PostJob(R"({"command":"true"})"), {});
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error().response.result_int(), 503u);
  EXPECT_EQ(Header(later.error().response, http::field::retry_after), "15");
}

TEST_F(HandlersTest, SubmissionWithoutCredentialsIs401WithWwwAuthenticate) {
  Ready();
  UseAuth(false);
  const Response response = Call(PostJob(R"({"command":"true"})"));
  EXPECT_EQ(response.result_int(), 401u);
  EXPECT_EQ(Header(response, http::field::www_authenticate), "Bearer realm=\"bplace\"");
}

TEST_F(HandlersTest, SubmissionByATokenUserIsTheirsAndAReadOnlyTokenIs403) {
  Ready();
  UseAuth(true);
  Request own = PostJob(R"({"command":"true"})");
  own.set(http::field::authorization, kAliceToken);
  EXPECT_EQ(Call(own).result_int(), 201u);
  Request read_only = PostJob(R"({"command":"true"})");
  read_only.set(http::field::authorization, kBobReadToken);
  const Response refused = Call(read_only);
  EXPECT_EQ(refused.result_int(), 403u);
  EXPECT_THAT(Detail(refused), HasSubstr("lacks the `submit` scope"));
  // Anonymous callers may read here, never submit: a token could help, so 401.
  const Response anonymous = Call(PostJob(R"({"command":"true"})"));
  EXPECT_EQ(anonymous.result_int(), 401u);
  EXPECT_EQ(Header(anonymous, http::field::www_authenticate), "Bearer realm=\"bplace\"");
}

}  // namespace
}  // namespace bplace::api::testing
