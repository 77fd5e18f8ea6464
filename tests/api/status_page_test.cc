// The status page's routes (api/status_page.h) through the registered
// routes: the embedded bytes, the headers, and the read scope.

#include "api/status_page.h"

#include <fstream>
#include <iterator>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

namespace http = boost::beast::http;
using ::testing::HasSubstr;

std::string SourceFile(const std::string& name) {
  std::ifstream in(std::string(STATUS_PAGE_SOURCE_DIR) + "/" + name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(StatusPageAssetsTest, EmbedsEachFileByteForByteWithItsContentType) {
  const auto assets = StatusPageAssets();
  ASSERT_EQ(assets.size(), 3u);
  EXPECT_EQ(assets[0].path, "/");
  EXPECT_EQ(assets[0].content_type, "text/html; charset=utf-8");
  EXPECT_EQ(assets[0].body, SourceFile("index.html"));
  EXPECT_EQ(assets[1].path, "/status/status.css");
  EXPECT_EQ(assets[1].content_type, "text/css; charset=utf-8");
  EXPECT_EQ(assets[1].body, SourceFile("status.css"));
  EXPECT_EQ(assets[2].path, "/status/status.js");
  EXPECT_EQ(assets[2].content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(assets[2].body, SourceFile("status.js"));
  EXPECT_FALSE(assets[2].body.empty());
}

TEST_F(HandlersTest, StatusPageIsServedWithAStrictPolicyBeforeAnySnapshot) {
  // The page itself needs no LSF data: it says what is missing once loaded.
  const Response page = Get("/");
  ASSERT_EQ(page.result_int(), 200u) << page.body();
  EXPECT_EQ(Header(page, http::field::content_type), "text/html; charset=utf-8");
  EXPECT_EQ(std::string(page["Content-Security-Policy"]), std::string(kStatusPageCsp));
  EXPECT_EQ(std::string(page["X-Content-Type-Options"]), "nosniff");
  EXPECT_EQ(Header(page, http::field::cache_control), "no-cache");
  EXPECT_THAT(page.body(), HasSubstr("/status/status.js"));
  EXPECT_EQ(Get("/status/status.js").body(), SourceFile("status.js"));
}

TEST_F(HandlersTest, StatusPageNeedsTheReadScopeAsTheReadsDo) {
  UseAuth(false);
  const Response anonymous = Get("/");
  EXPECT_EQ(anonymous.result_int(), 401u);
  EXPECT_EQ(Header(anonymous, http::field::www_authenticate), "Bearer realm=\"bplace\"");
  EXPECT_EQ(Get("/status/status.css").result_int(), 401u);
  EXPECT_EQ(Get("/", kBobReadToken).result_int(), 200u);
  UseAuth(true);
  EXPECT_EQ(Get("/").result_int(), 200u);  // anonymous_read
}

}  // namespace
}  // namespace bplace::api::testing
