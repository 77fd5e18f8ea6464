// GET /v1/placement (api/routes_placement.h),
// over the route-test fixture (tests/api/handlers_fixture.h).

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/routes_placement.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
namespace http = boost::beast::http;

TEST_F(HandlersTest, PlacementRanksTheCallersQueuesAndChoosesTheLeastBusy) {
  Ready();
  const Response response = GetPlacement(services_, DaemonUser(), kGet, Query("host=node001"));
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  const json body = Body(response);
  EXPECT_EQ(body["user"], "alice");
  EXPECT_EQ(body["host"], "node001");
  EXPECT_EQ(body["chosen"], "qa");
  ASSERT_EQ(body["candidates"].size(), 3u);
  EXPECT_EQ(body["candidates"][2]["queue"], "qc");
  EXPECT_EQ(body["host_ib"]["health"], "unknown");
  EXPECT_TRUE(body["age_s"].is_number());
}

TEST_F(HandlersTest, PlacementParameterErrorsAre400NamingTheParameter) {
  Ready();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"host=node001&host=node002", "host: given more than once"},
      {"user=alice&user=alice", "user: given more than once"},
      {"require_ib=yes", "require_ib: expected true or false, got `yes`"},
      {"colour=red",
       "colour: unknown query parameter (use host, user, queue, queues, slots, require_ib)"},
      {"host=", "host: must not be empty"},
      {"user=", "user: must not be empty"},
  };
  for (const auto& [query, detail] : cases) {
    const Response response = GetPlacement(services_, DaemonUser(), kGet, Query(query));
    EXPECT_EQ(response.result_int(), 400u) << query;
    EXPECT_EQ(Detail(response), detail) << query;
  }
}

TEST_F(HandlersTest, PlacementQueueListsAreCommaSeparatedAndRepeatable) {
  auto request =
      ParsePlacementQuery(Query("queue=qa,,qb&queues=qc&require_ib=false"), "bob", true, 64);
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_EQ(request->user, "bob");
  EXPECT_THAT(request->queues, ElementsAre("qa", "qb", "qc"));
  EXPECT_FALSE(request->require_ib);
  EXPECT_FALSE(request->host);
}

TEST_F(HandlersTest, PlacementSlotsAreAPositiveIntegerUpToTheLimit) {
  auto request = ParsePlacementQuery(Query("slots=8"), "bob", true, 64);
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_EQ(request->slots, 8);
  EXPECT_EQ(ParsePlacementQuery(Query(""), "bob", true, 64)->slots, 1);
  for (const char* bad :
       {"slots=0", "slots=65", "slots=-1", "slots=4x", "slots=", "slots=1&slots=2"}) {
    auto refused = ParsePlacementQuery(Query(bad), "bob", true, 64);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().code, ErrorCode::kInvalidArgument) << bad;
    EXPECT_EQ(refused.error().message.rfind("slots: ", 0), 0u) << refused.error().message;
  }
}

TEST_F(HandlersTest, PlacementForAnotherUserNeedsTheAdminScope) {
  Ready();
  UseAuth(false);
  const Response refused = Get("/v1/placement?user=alice", kBobReadToken);
  EXPECT_EQ(refused.result_int(), 403u);
  EXPECT_EQ(Detail(refused),
            "user: placing for another user than yourself (bob) needs the `admin` scope");
  const Response own = Get("/v1/placement", kBobReadToken);
  ASSERT_EQ(own.result_int(), 200u) << own.body();
  EXPECT_EQ(Body(own)["user"], "bob");
  EXPECT_EQ(Get("/v1/placement?user=bob", kCarolAdminToken).result_int(), 200u);
}

TEST_F(HandlersTest, AnonymousPlacementIsTheDaemonUsers) {
  Ready();
  UseAuth(true);
  const Response response = Get("/v1/placement");
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  EXPECT_EQ(Body(response)["user"], "alice");
}

}  // namespace
}  // namespace bplace::api::testing
