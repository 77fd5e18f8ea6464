#include "api/router.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <boost/beast/http/field.hpp>
#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "tests/api/http/response_json.h"

namespace bplace::api {
namespace {

namespace http = boost::beast::http;

Request MakeRequest(http::verb method, std::string target) {
  Request req{method, target, 11};
  return req;
}

// Routes synchronously; every handler here responds before returning.
Response RouteOnce(const Router& router, http::verb method, std::string target) {
  std::optional<Response> out;
  router.Dispatch(MakeRequest(method, std::move(target)), RequestContext{},
                  [&out](Response res) { out = std::move(res); });
  EXPECT_TRUE(out.has_value());
  return out ? std::move(*out) : Response{};
}

// A route that answers with its name, path parameters and query.
RouteHandler Echo(std::string name) {
  return [name](Request&&, const RequestContext&, const RouteParams& params, Responder respond) {
    nlohmann::json query = nlohmann::json::array();
    for (const auto& [key, value] : params.query) query.push_back({key, value});
    respond(MakeJson(200, {{"route", name}, {"path", params.path}, {"query", query}}));
  };
}

using http_test::Body;

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.Add(http::verb::get, "/healthz", Echo("healthz"));
    router_.Add(http::verb::get, "/v1/queues", Echo("queues"));
    router_.Add(http::verb::get, "/v1/queues/{name}", Echo("queue"));
    router_.Add(http::verb::get, "/v1/queues/default", Echo("default queue"));
    router_.Add(http::verb::post, "/v1/jobs", Echo("submit"));
    router_.Add(http::verb::put, "/v1/jobs", Echo("put"));
  }
  Router router_;
};

TEST_F(RouterTest, MatchesLiteralPath) {
  const Response res = RouteOnce(router_, http::verb::get, "/healthz");
  EXPECT_EQ(res.result_int(), 200u);
  EXPECT_EQ(Body(res)["route"], "healthz");
}

TEST_F(RouterTest, PercentDecodesPathParameters) {
  const Response res = RouteOnce(router_, http::verb::get, "/v1/queues/a%20b%2Fc+d");
  EXPECT_EQ(Body(res)["route"], "queue");
  EXPECT_EQ(Body(res)["path"]["name"], "a b/c+d");
}

TEST_F(RouterTest, PrefersLiteralSegmentOverParameter) {
  EXPECT_EQ(Body(RouteOnce(router_, http::verb::get, "/v1/queues/default"))["route"],
            "default queue");
  EXPECT_EQ(Body(RouteOnce(router_, http::verb::get, "/v1/queues/normal"))["route"], "queue");
}

TEST_F(RouterTest, ParsesQueryWithRepeatsPlusAndBareNames) {
  const Response res = RouteOnce(router_, http::verb::get, "/v1/queues?u=a+b&u=%41&&flag&h=");
  const nlohmann::json expected = nlohmann::json::array(
      {nlohmann::json::array({"u", "a b"}), nlohmann::json::array({"u", "A"}),
       nlohmann::json::array({"flag", ""}), nlohmann::json::array({"h", ""})});
  EXPECT_EQ(Body(res)["query"], expected);
}

TEST_F(RouterTest, UnknownPathIs404Problem) {
  const Response res = RouteOnce(router_, http::verb::get, "/v2/nothing");
  EXPECT_EQ(res.result_int(), 404u);
  EXPECT_EQ(res[http::field::content_type], "application/problem+json");
  EXPECT_EQ(Body(res)["status"], 404);
}

TEST_F(RouterTest, TrailingSlashIs404NamingThePathWithoutIt) {
  const Response res = RouteOnce(router_, http::verb::get, "/v1/queues/");
  EXPECT_EQ(res.result_int(), 404u);
  EXPECT_NE(Body(res)["detail"].get<std::string>().find("try /v1/queues"), std::string::npos);
}

TEST_F(RouterTest, OtherMethodIs405ListingAllowedMethods) {
  const Response res = RouteOnce(router_, http::verb::get, "/v1/jobs");
  EXPECT_EQ(res.result_int(), 405u);
  EXPECT_EQ(res[http::field::allow], "POST, PUT");
  EXPECT_EQ(RouteOnce(router_, http::verb::delete_, "/v1/queues/x")[http::field::allow], "GET");
}

TEST_F(RouterTest, InvalidEscapesAndNulAre400) {
  EXPECT_EQ(RouteOnce(router_, http::verb::get, "/v1/queues/a%zz").result_int(), 400u);
  EXPECT_EQ(RouteOnce(router_, http::verb::get, "/v1/queues/a%0").result_int(), 400u);
  EXPECT_EQ(RouteOnce(router_, http::verb::get, "/v1/queues/a%00b").result_int(), 400u);
  EXPECT_EQ(RouteOnce(router_, http::verb::get, "/v1/queues?u=%G1").result_int(), 400u);
}

TEST_F(RouterTest, TargetThatIsNotAPathIs400) {
  EXPECT_EQ(RouteOnce(router_, http::verb::get, "http://host/v1/queues").result_int(), 400u);
}

TEST_F(RouterTest, HandlerIsACopyIndependentOfLaterAddsAndOfTheRouter) {
  auto router = std::make_unique<Router>();
  router->Add(http::verb::get, "/a", Echo("a"));
  Handler handler = router->AsHandler();
  router->Add(http::verb::get, "/b", Echo("b"));
  router.reset();
  std::optional<Response> out;
  handler(MakeRequest(http::verb::get, "/b"), RequestContext{},
          [&out](Response res) { out = std::move(res); });
  ASSERT_TRUE(out);
  EXPECT_EQ(out->result_int(), 404u);
  handler(MakeRequest(http::verb::get, "/a"), RequestContext{},
          [&out](Response res) { out = std::move(res); });
  EXPECT_EQ(out->result_int(), 200u);
}

TEST(RouterAddTest, RejectsMalformedAndClashingPatterns) {
  Router router;
  router.Add(http::verb::get, "/v1/queues/{name}", Echo("x"));
  EXPECT_THROW(router.Add(http::verb::get, "/v1/queues/{other}", Echo("y")), std::invalid_argument);
  EXPECT_THROW(router.Add(http::verb::get, "v1/x", Echo("y")), std::invalid_argument);
  EXPECT_THROW(router.Add(http::verb::get, "/v1/{a}/{a}", Echo("y")), std::invalid_argument);
  EXPECT_THROW(router.Add(http::verb::get, "/v1/{a-b}", Echo("y")), std::invalid_argument);
  EXPECT_THROW(router.Add(http::verb::get, "/v1//x", Echo("y")), std::invalid_argument);
  EXPECT_NO_THROW(router.Add(http::verb::post, "/v1/queues/{name}", Echo("z")));
}

TEST(RouteParamsTest, OnlyQueryNamesTheFirstUnknownParameterAndWhatIsKnown) {
  RouteParams params;
  EXPECT_TRUE(params.OnlyQuery({}));
  params.query = {{"status", "RUN"}, {"stauts", "PEND"}};
  EXPECT_TRUE(params.OnlyQuery({"status", "stauts"}));
  auto checked = params.OnlyQuery({"status", "user"});
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(checked.error().message, "stauts: unknown query parameter (use status, user)");
  checked = params.OnlyQuery({});
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().message, "status: unknown query parameter (this route takes none)");
}

TEST(PercentDecodeTest, DecodesAndRejects) {
  EXPECT_EQ(PercentDecode("a%2fb%2F", false).value(), "a/b/");
  EXPECT_EQ(PercentDecode("a+b", false).value(), "a+b");
  EXPECT_EQ(PercentDecode("a+b", true).value(), "a b");
  EXPECT_EQ(PercentDecode("%", false).error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(PercentDecode("%4", false));
  EXPECT_FALSE(PercentDecode("%00", false));
}

}  // namespace
}  // namespace bplace::api
