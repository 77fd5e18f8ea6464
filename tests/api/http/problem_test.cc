#include "api/http/problem.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/api/http/response_json.h"

namespace bplace::api {
namespace {

using http_test::Body;

TEST(HttpStatusForTest, MapsEveryErrorCode) {
  EXPECT_EQ(HttpStatusFor(ErrorCode::kInvalidArgument), 400u);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kNotFound), 404u);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kConflict), 409u);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kRejected), 422u);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kUnavailable), 503u);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kTimeout), 504u);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kParseError), 502u);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kCommandFailed), 502u);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kInternal), 500u);
}

TEST(MakeProblemTest, BuildsAboutBlankProblemWithStatusPhraseAsDefaultTitle) {
  const Response res = MakeProblem(404, "", "no route for /x");
  EXPECT_EQ(res.result_int(), 404u);
  EXPECT_EQ(res[boost::beast::http::field::content_type], "application/problem+json");
  EXPECT_EQ(res.body().back(), '\n');
  const nlohmann::json body = Body(res);
  EXPECT_EQ(body["type"], "about:blank");
  EXPECT_EQ(body["title"], "Not Found");
  EXPECT_EQ(body["status"], 404);
  EXPECT_EQ(body["detail"], "no route for /x");
  EXPECT_EQ(res[boost::beast::http::field::content_length], std::to_string(res.body().size()));
}

TEST(MakeProblemTest, MergesExtraMembersWhichMayOverrideType) {
  const Response res = MakeProblem(
      409, "No eligible queue", "every queue refused",
      {{"reasons", {{"short", "closed"}}}, {"type", "https://bplace.invalid/problems/custom"}});
  const nlohmann::json body = Body(res);
  EXPECT_EQ(body["reasons"]["short"], "closed");
  EXPECT_EQ(body["type"], "https://bplace.invalid/problems/custom");
  EXPECT_EQ(body["title"], "No eligible queue");
}

TEST(MakeProblemTest, FromErrorUsesStableTypeUriAndMappedStatus) {
  const Response res = MakeProblem(Error{ErrorCode::kNotFound, "no queue 'gpu'"});
  EXPECT_EQ(res.result_int(), 404u);
  const nlohmann::json body = Body(res);
  EXPECT_EQ(body["type"], "https://bplace.invalid/problems/not-found");
  EXPECT_EQ(body["detail"], "no queue 'gpu'");
  EXPECT_EQ(body["status"], 404);

  EXPECT_EQ(Body(MakeProblem(Error{ErrorCode::kInvalidArgument, "x"}))["type"],
            "https://bplace.invalid/problems/invalid-argument");
}

TEST(MakeProblemTest, RepairsInvalidUtf8InsteadOfThrowing) {
  Response res;
  ASSERT_NO_THROW(res = MakeProblem(404, "", std::string("no host '\xff\xfe'")));
  EXPECT_NE(Body(res)["detail"].get<std::string>().find("\xef\xbf\xbd"), std::string::npos);
}

TEST(MakeProblemTest, HonoursVersionAndKeepAlive) {
  const Response res = MakeProblem(400, "", "bad", {}, 11, false);
  EXPECT_FALSE(res.keep_alive());
  EXPECT_EQ(res.version(), 11u);
}

TEST(MakeJsonTest, DumpsCompactlyWithTrailingNewline) {
  const Response res = MakeJson(201, {{"job_id", 42}});
  EXPECT_EQ(res.result_int(), 201u);
  EXPECT_EQ(res[boost::beast::http::field::content_type], "application/json");
  EXPECT_EQ(res.body(), "{\"job_id\":42}\n");
  EXPECT_TRUE(res.keep_alive());
}

}  // namespace
}  // namespace bplace::api
