// The reads of the cluster's state: GET /v1/cluster, /v1/queues, /v1/hosts/{host},
// /v1/hostgroups/{group}, /v1/ib (api/routes_read.h),
// over the route-test fixture (tests/api/handlers_fixture.h).

#include <chrono>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/route_access.h"
#include "api/routes_read.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

using nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;
namespace http = boost::beast::http;

TEST_F(HandlersTest, ClusterAnswersBeforeTheFirstSnapshotWithNullAges) {
  const Response response = GetCluster(services_, DaemonUser(), kGet, {});
  ASSERT_EQ(response.result_int(), 200u);
  const json body = Body(response);
  EXPECT_EQ(body["ready"], false);
  EXPECT_TRUE(body["as_of"].is_null());
  EXPECT_TRUE(body["load"]["age_s"].is_null());
  EXPECT_EQ(body["counts"],
            json({{"queues", 0}, {"hosts", 0}, {"host_groups", 0}, {"user_groups", 0}}));
}

TEST_F(HandlersTest, ClusterNamesTheClusterCountsAndInflightSlots) {
  Ready();
  ledger_.Reserve("qb", 4);
  clock_.Advance(2s);
  const json body = Body(GetCluster(services_, DaemonUser(), kGet, {}));
  EXPECT_EQ(body["cluster_name"], "cluster1");
  EXPECT_EQ(body["master_name"], "lsfmaster01");
  EXPECT_EQ(body["bplace_version"], "9.9.9");
  EXPECT_EQ(body["user"], "alice");
  EXPECT_EQ(body["ready"], true);
  EXPECT_DOUBLE_EQ(body["load"]["age_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(body["load"]["refresh_s"].get<double>(),
                   std::chrono::duration<double>(cache_.options().load_interval).count());
  EXPECT_DOUBLE_EQ(body["topology"]["refresh_s"].get<double>(),
                   std::chrono::duration<double>(cache_.options().topology_interval).count());
  EXPECT_EQ(body["counts"],
            json({{"queues", 3}, {"hosts", 2}, {"host_groups", 1}, {"user_groups", 1}}));
  EXPECT_EQ(body["inflight_slots"], json({{"qb", 4}}));
}

TEST_F(HandlersTest, QueuesListsEveryQueueInBqueuesOrderWithAges) {
  Ready();
  const Response response = GetQueues(services_, DaemonUser(), kGet, {});
  ASSERT_EQ(response.result_int(), 200u);
  const json body = Body(response);
  std::vector<std::string> names;
  for (const json& queue : body["queues"]) names.push_back(queue["name"]);
  EXPECT_THAT(names, ElementsAre("qa", "qb", "qc"));
  EXPECT_EQ(body["queues"][1]["pend"], 4);
  EXPECT_TRUE(body["age_s"].is_number());
  EXPECT_TRUE(body["topology_as_of"].is_string());
}

TEST_F(HandlersTest, QueueIsOneQueueAnd404NamesTheQueueAndWhereLsfListsThem) {
  Ready();
  const Response found = GetQueue(services_, DaemonUser(), kGet, Path("name", "qc"));
  ASSERT_EQ(found.result_int(), 200u);
  EXPECT_EQ(Body(found)["name"], "qc");
  EXPECT_EQ(Body(found)["hosts_admitted"], 2);

  const Response missing = GetQueue(services_, DaemonUser(), kGet, Path("name", "gpu"));
  EXPECT_EQ(missing.result_int(), 404u);
  EXPECT_EQ(Detail(missing), "queue gpu does not exist (bqueues -l)");
}

TEST_F(HandlersTest, HostShowsItsStatusTheQueuesThatAdmitItAndUnknownIb) {
  Ready();
  const Response response = GetHost(services_, DaemonUser(), kGet, Path("host", "node001"));
  ASSERT_EQ(response.result_int(), 200u);
  const json body = Body(response);
  EXPECT_EQ(body["in_bhosts"], true);
  EXPECT_EQ(body["status"], "ok");
  EXPECT_EQ(body["takes_new_work"], true);
  EXPECT_EQ(body["max"], 48);
  std::vector<std::string> queues;
  for (const json& queue : body["queues"]) queues.push_back(queue["queue"]);
  EXPECT_THAT(queues, ElementsAre("qa", "qb", "qc"));
  EXPECT_EQ(body["queues"][2]["via"], "group");
  EXPECT_EQ(body["excluded_by"], json::array());
  EXPECT_EQ(body["ib"]["health"], "unknown");
  EXPECT_EQ(body["ib"]["source"], "none");
}

TEST_F(HandlersTest, HostNamedOnlyByAHostGroupIsKnownWithNullStatus) {
  Ready();
  const Response response = GetHost(services_, DaemonUser(), kGet, Path("host", "node009"));
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  const json body = Body(response);
  EXPECT_EQ(body["in_bhosts"], false);
  EXPECT_TRUE(body["status"].is_null());
  EXPECT_EQ(body["takes_new_work"], false);
}

TEST_F(HandlersTest, HostUnknownToLsfIs404) {
  Ready();
  const Response response = GetHost(services_, DaemonUser(), kGet, Path("host", "node1.ib"));
  EXPECT_EQ(response.result_int(), 404u);
  EXPECT_THAT(Detail(response), StartsWith("host node1.ib is not known to LSF"));
}

TEST_F(HandlersTest, HostGroupShowsMembersAndExpandedHostsAnd404WhenAbsent) {
  Ready();
  const Response found = GetHostGroup(services_, DaemonUser(), kGet, Path("name", "hg_two"));
  ASSERT_EQ(found.result_int(), 200u);
  EXPECT_EQ(Body(found)["members"], json({"node001", "node002", "node009"}));
  EXPECT_EQ(Body(found)["all"], false);
  EXPECT_THAT(Body(found)["hosts"], Contains("node009"));

  const Response missing = GetHostGroup(services_, DaemonUser(), kGet, Path("name", "hg_x"));
  EXPECT_EQ(missing.result_int(), 404u);
  EXPECT_EQ(Detail(missing), "host group hg_x does not exist (bmgroup -w)");
}

TEST_F(HandlersTest, IbListsEveryBhostsHostAsUnknownWithoutASource) {
  Ready();
  const Response response = GetIb(services_, DaemonUser(), kGet, {});
  ASSERT_EQ(response.result_int(), 200u);
  const json body = Body(response);
  EXPECT_EQ(body["source"], "none");
  EXPECT_EQ(body["require_ib"], true);
  EXPECT_TRUE(body["source_as_of"].is_null());
  EXPECT_EQ(body["healthy"], json::array());
  ASSERT_EQ(body["unknown"].size(), 2u);
  EXPECT_EQ(body["unknown"][0]["host"], "node001");
  EXPECT_FALSE(body["unknown"][0].contains("health"));
}

TEST_F(HandlersTest, EveryReadOfLsfStateIs503WithRetryAfterWithoutASnapshot) {
  const std::vector<std::pair<std::string, Route>> routes = {{"queues", GetQueues},
                                                             {"queue", GetQueue},
                                                             {"host", GetHost},
                                                             {"hostgroup", GetHostGroup},
                                                             {"ib", GetIb}};
  RouteParams params;
  params.path = {{"name", "qa"}, {"host", "node001"}};
  for (const auto& [name, route] : routes) {
    const Response response = route(services_, DaemonUser(), kGet, params);
    EXPECT_EQ(response.result_int(), 503u) << name;
    EXPECT_EQ(Header(response, http::field::retry_after), "5") << name;
    EXPECT_THAT(Detail(response), StartsWith("no LSF snapshot yet")) << name;
  }
}

TEST_F(HandlersTest, NoSnapshotDetailGivesEachTiersLastError) {
  LoadRefreshFails();
  const Response response = GetQueues(services_, DaemonUser(), kGet, {});
  EXPECT_EQ(response.result_int(), 503u);
  EXPECT_THAT(Detail(response), HasSubstr("load refresh: "));
  EXPECT_THAT(Detail(response), HasSubstr("LSF is down"));
}

}  // namespace
}  // namespace bplace::api::testing
