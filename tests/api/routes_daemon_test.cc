// GET /healthz, GET /readyz and POST /v1/cache/refresh (api/routes_daemon.h),
// over the route-test fixture (tests/api/handlers_fixture.h).

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/routes_daemon.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

using nlohmann::json;
using ::testing::StartsWith;
using namespace std::chrono_literals;
namespace http = boost::beast::http;

TEST_F(HandlersTest, HealthzIsOkEvenWithoutASnapshot) {
  const Response response = GetHealthz(services_, kGet);
  EXPECT_EQ(response.result_int(), 200u);
  EXPECT_EQ(Body(response), json({{"status", "ok"}}));
}

TEST_F(HandlersTest, ReadyzIs503WithRetryAfterUntilTheFirstCompleteSnapshot) {
  const Response response = GetReadyz(services_, kGet);
  EXPECT_EQ(response.result_int(), 503u);
  EXPECT_EQ(Header(response, http::field::retry_after), "5");
  EXPECT_THAT(Detail(response), StartsWith("no LSF snapshot yet"));
}

TEST_F(HandlersTest, ReadyzIsReadyWithAgesMeasuredOnTheServicesClock) {
  Ready();
  clock_.Advance(3500ms);
  const Response response = GetReadyz(services_, kGet);
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  const json body = Body(response);
  EXPECT_EQ(body["status"], "ready");
  EXPECT_DOUBLE_EQ(body["age_s"].get<double>(), 3.5);
  EXPECT_DOUBLE_EQ(body["topology_age_s"].get<double>(), 3.5);
  EXPECT_EQ(body["as_of"], "2026-01-01T00:00:00.000Z");
}

TEST_F(HandlersTest, ReadyzIsStaleOnceTheLoadDataIsOlderThanMaxStaleness) {
  Ready();
  clock_.Advance(121s);
  const Response response = GetReadyz(services_, kGet);
  EXPECT_EQ(response.result_int(), 503u);
  EXPECT_THAT(Detail(response), StartsWith("stale: "));
  EXPECT_DOUBLE_EQ(Body(response)["age_s"].get<double>(), 121.0);
}

TEST_F(HandlersTest, RefreshNeedsTheAdminScopeAndIsLimitedToOnePerInterval) {
  Ready();
  UseAuth(false);
  const Request refresh = MakeRequest(http::verb::post, "/v1/cache/refresh", kBobReadToken);
  const Response refused = Call(refresh);
  EXPECT_EQ(refused.result_int(), 403u);
  EXPECT_EQ(Detail(refused), "the token of bob lacks the `admin` scope");

  const Response started =
      Call(MakeRequest(http::verb::post, "/v1/cache/refresh", kCarolAdminToken));
  EXPECT_EQ(started.result_int(), 202u);
  const Response again = Call(MakeRequest(http::verb::post, "/v1/cache/refresh", kCarolAdminToken));
  EXPECT_EQ(again.result_int(), 429u);
  EXPECT_EQ(Header(again, http::field::retry_after), "5");
  EXPECT_EQ(Body(again)["type"], "https://bplace.invalid/problems/rate-limited");
}

}  // namespace
}  // namespace bplace::api::testing
