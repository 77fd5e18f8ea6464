// Who may call what: credentials, scopes and the refusals that name the
// caller (api/route_access.h),
// over the route-test fixture (tests/api/handlers_fixture.h).

#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/route_access.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace http = boost::beast::http;

TEST_F(HandlersTest, ReadWithoutCredentialsIs401WithWwwAuthenticate) {
  Ready();
  UseAuth(false);
  for (const std::string target : {"/v1/queues", "/v1/cluster", "/v1/placement", "/v1/ib"}) {
    const Response response = Get(target);
    EXPECT_EQ(response.result_int(), 401u) << target;
    EXPECT_EQ(Header(response, http::field::www_authenticate), "Bearer realm=\"bplace\"");
  }
  EXPECT_EQ(Get("/v1/queues", "Bearer no-such-token").result_int(), 401u);
  EXPECT_EQ(Get("/healthz").result_int(), 200u);  // probes need no credentials
}

TEST_F(HandlersTest, TokenWithoutTheReadScopeIs403NamingItsUser) {
  Ready();
  UseAuth(false);
  const Response response = Get("/v1/queues", kBobSubmitToken);
  EXPECT_EQ(response.result_int(), 403u);
  EXPECT_EQ(Detail(response), "the token of bob lacks the `read` scope");
  EXPECT_EQ(Get("/v1/queues", kBobReadToken).result_int(), 200u);
}

TEST_F(HandlersTest, AnonymousCallToARouteNeedingAScopeIs401AskingForAToken) {
  Ready();
  UseAuth(true);
  EXPECT_EQ(Get("/v1/queues").result_int(), 200u);  // anonymous_read
  const Response response = Call(MakeRequest(http::verb::post, "/v1/cache/refresh"));
  EXPECT_EQ(response.result_int(), 401u);
  EXPECT_EQ(Header(response, http::field::www_authenticate), "Bearer realm=\"bplace\"");
  EXPECT_THAT(Detail(response), StartsWith("anonymous callers lack the `admin` scope"));
}

TEST_F(HandlersTest, AccessErrorIs401ForAnonymousAnd403NamingAnIdentifiedCaller) {
  const Caller anonymous;  // without anonymous_read: may not even read
  EXPECT_EQ(AccessError(anonymous, Access::kRead)->code, ErrorCode::kUnauthenticated);
  EXPECT_FALSE(AccessError(anonymous, Access::kIdentified));
  EXPECT_EQ(AccessError(anonymous, Access::kAuthenticated)->code, ErrorCode::kUnauthenticated);
  Caller peer;
  peer.method = AuthMethod::kPeerCredentials;
  peer.uid = 1001;
  peer.user = "alice";
  peer.can_read = true;
  EXPECT_FALSE(AccessError(peer, Access::kRead));
  EXPECT_FALSE(AccessError(peer, Access::kAuthenticated));
  const std::optional<Error> admin = AccessError(peer, Access::kAdmin);
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(admin->message, "uid 1001 (alice) lacks the `admin` scope");
  const Result<Caller> unidentified =
      tl::unexpected(Error{ErrorCode::kUnauthenticated, "unknown bearer token"});
  EXPECT_EQ(AccessError(unidentified, Access::kIdentified)->message, "unknown bearer token");
}

TEST_F(HandlersTest, CallersAreNamedByHowTheyCame) {
  Caller token;
  token.method = AuthMethod::kBearerToken;
  token.user = "bob";
  EXPECT_EQ(DescribeCaller(token), "the token of bob");
  Caller peer;
  peer.method = AuthMethod::kPeerCredentials;
  peer.uid = 1001;
  peer.user = "alice";
  EXPECT_EQ(DescribeCaller(peer), "uid 1001 (alice)");
  peer.user.clear();  // not in passwd
  EXPECT_EQ(DescribeCaller(peer), "uid 1001");
  EXPECT_EQ(DescribeCaller(Caller{}), "anonymous callers");
}

TEST_F(HandlersTest, ResponsesCarryTheRequestsVersionAndKeepAlive) {
  Ready();
  Request req = MakeRequest(http::verb::get, "/v1/queues");
  req.version(10);
  req.keep_alive(false);
  const Response response = Call(req);
  EXPECT_EQ(response.version(), 10u);
  EXPECT_FALSE(response.keep_alive());
}

TEST_F(HandlersTest, AnonymousCancelIs401WithWwwAuthenticateNot403) {
  Ready();
  UseAuth(true);  // anonymous reads on: anonymous callers are identified
  for (Request req : {MakeRequest(http::verb::delete_, "/v1/jobs/1"),
                      MakeRequest(http::verb::post, "/v1/jobs:cancel")}) {
    const std::string target(req.target());
    const Response response = Call(std::move(req));
    EXPECT_EQ(response.result_int(), 401u) << target << ": " << response.body();
    EXPECT_EQ(Header(response, http::field::www_authenticate), "Bearer realm=\"bplace\"");
    EXPECT_THAT(Detail(response), StartsWith("anonymous callers may not do this"));
  }
}

TEST_F(HandlersTest, EveryRefusalOfAnIdentifiedCallerNamesIt) {
  Ready();
  UseAuth(false);
  // Read scope missing, admin scope missing, submit scope missing.
  EXPECT_THAT(Detail(Get("/v1/queues", kBobSubmitToken)), HasSubstr("bob"));
  EXPECT_THAT(Detail(Call(MakeRequest(http::verb::post, "/v1/cache/refresh", kBobReadToken))),
              HasSubstr("bob"));
  Request submit = PostJob(R"({"command":"true"})");
  submit.set(http::field::authorization, kBobReadToken);
  const Response refused = Call(submit);
  EXPECT_EQ(refused.result_int(), 403u);
  EXPECT_THAT(Detail(refused), HasSubstr("bob"));
}

TEST_F(HandlersTest, HeaderCheckRefusesMissingCredentialsBeforeTheBodyComes) {
  Ready();
  UseAuth(false);
  const HeaderCheck check = router_.AsHeaderCheck();
  RequestContext ctx;
  ctx.request_id = "rid-1";
  ctx.remote = "127.0.0.1:40000";
  Request header = MakeRequest(http::verb::post, "/v1/jobs");
  header.set(http::field::expect, "100-continue");
  std::optional<Response> refusal = check(header, ctx);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->result_int(), 401u);
  EXPECT_EQ(Header(*refusal, http::field::www_authenticate), "Bearer realm=\"bplace\"");
  EXPECT_FALSE(refusal->keep_alive());
  header.set(http::field::authorization, "Bearer no-such-token");
  refusal = check(header, ctx);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->result_int(), 401u);
  // A token that may submit is let through to send its body.
  header.set(http::field::authorization, kAliceToken);
  EXPECT_FALSE(check(header, ctx));
  // Public routes and unknown paths are left to the handler.
  EXPECT_FALSE(check(MakeRequest(http::verb::get, "/healthz"), ctx));
  EXPECT_FALSE(check(MakeRequest(http::verb::post, "/nowhere"), ctx));
}

}  // namespace
}  // namespace bplace::api::testing
