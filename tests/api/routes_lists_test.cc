// GET /v1/hosts, /v1/hostgroups, /v1/usergroups (api/routes_lists.h) on the
// canned cluster of handlers_fixture.h.

#include "api/routes_lists.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

namespace http = boost::beast::http;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::StartsWith;

// node001 is free, node002 half full, node003 down and unlimited.
constexpr char kThreeHosts[] =
    "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV\n"
    "node001            ok              -     48      0      0      0      0      0\n"
    "node002            closed_Full     -      4      4      3      0      0      1\n"
    "node003            unavail         -      -      0      0      0      0      0\n";

class ListRoutesTest : public HandlersTest {
 protected:
  void ReadyWithThreeHosts() {
    fake_.OnArgv({"bhosts", "-w"}, FakeCommandRunner::Output(kThreeHosts));
    Ready();
  }

  std::vector<std::string> HostNames(const std::string& query) {
    const Response response = GetHosts(services_, DaemonUser(), kGet, Query(query));
    EXPECT_EQ(response.result_int(), 200u) << response.body();
    const json body = Body(response);  // kept: the loop reads into it
    std::vector<std::string> names;
    for (const json& host : body["hosts"]) names.push_back(host["host"]);
    return names;
  }
};

TEST_F(ListRoutesTest, HostsListsEveryBhostsHostWithStatusFreeSlotsIbAndAdmittingQueues) {
  ReadyWithThreeHosts();
  const Response response = Get("/v1/hosts");
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  const json body = Body(response);
  EXPECT_EQ(body["count"], 3);
  ASSERT_EQ(body["hosts"].size(), 3u);
  const json& free = body["hosts"][0];
  EXPECT_EQ(free, json::parse(R"({"host":"node001","status":"ok","takes_new_work":true,
      "max":48,"njobs":0,"run":0,"free_slots":48,"ib":{"health":"unknown","reasons":[]},
      "queues_admitting":3})"));
  // NJOBS counts the reserved slot too: 4 - 4 = 0.
  EXPECT_EQ(body["hosts"][1]["free_slots"], 0);
  EXPECT_EQ(body["hosts"][1]["takes_new_work"], true);
  // MAX "-": no bound, so no number of free slots.
  EXPECT_TRUE(body["hosts"][2]["max"].is_null());
  EXPECT_TRUE(body["hosts"][2]["free_slots"].is_null());
  EXPECT_EQ(body["hosts"][2]["takes_new_work"], false);
  // qa and qb take all hosts; qc's hg_two names node001 and node002 only.
  EXPECT_EQ(body["hosts"][2]["queues_admitting"], 2);
  EXPECT_TRUE(body["as_of"].is_string());
  EXPECT_TRUE(body["topology_age_s"].is_number());
}

TEST_F(ListRoutesTest, HostsFilterByBhostsStatusAndIbVerdict) {
  ReadyWithThreeHosts();
  EXPECT_THAT(HostNames("status=ok"), ElementsAre("node001"));
  EXPECT_THAT(HostNames("status=unavail,closed_Full"), ElementsAre("node002", "node003"));
  EXPECT_THAT(HostNames("status=ok&status=unavail"), ElementsAre("node001", "node003"));
  // Without an [ib] source every host is unknown.
  EXPECT_THAT(HostNames("ib=unknown"), ElementsAre("node001", "node002", "node003"));
  EXPECT_THAT(HostNames("ib=unhealthy"), ElementsAre());
  EXPECT_THAT(HostNames("ib=healthy,unknown&status=closed_Full"), ElementsAre("node002"));
  // A status LSF prints but no host has.
  EXPECT_THAT(HostNames("status=closed_Lock"), ElementsAre());
}

TEST_F(ListRoutesTest, HostsFilterErrorsAre400NamingTheAllowedValues) {
  ReadyWithThreeHosts();
  struct Case {
    std::string query;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {"status=okay",
       "status: unknown bhosts status `okay` (use ok, closed_Adm, closed_Busy, closed_Excl, "
       "closed_Full, closed_LIM, closed_Lock, closed_Wind, closed_RC, closed_EGO, unavail, "
       "unreach)"},
      {"status=closed_adm", "status: unknown bhosts status `closed_adm` (use ok,"},
      {"status=", "status: empty value (leave it out to list all)"},
      {"status=ok,", "status: empty value"},
      {"ib=sick", "ib: unknown InfiniBand verdict `sick` (use healthy, unhealthy, unknown)"},
      {"host=node001", "host: unknown query parameter (use status, ib)"},
  };
  for (const Case& c : cases) {
    const Response response = GetHosts(services_, DaemonUser(), kGet, Query(c.query));
    EXPECT_EQ(response.result_int(), 400u) << c.query;
    EXPECT_THAT(Detail(response), StartsWith(c.detail)) << c.query;
  }
}

TEST_F(ListRoutesTest, BadFilterIs400EvenBeforeTheFirstSnapshot) {
  EXPECT_EQ(GetHosts(services_, DaemonUser(), kGet, Query("ib=sick")).result_int(), 400u);
  EXPECT_EQ(GetHosts(services_, DaemonUser(), kGet, Query("ib=unhealthy")).result_int(), 503u);
}

TEST_F(ListRoutesTest, HostGroupsListEveryGroupWithMembersAndExpandedHosts) {
  Ready();
  const Response response = Get("/v1/hostgroups");
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  const json body = Body(response);
  EXPECT_EQ(body["count"], 1);
  EXPECT_EQ(body["host_groups"], json::parse(R"([{"name":"hg_two","all":false,
      "members":["node001","node002","node009"],"hosts":["node001","node002","node009"]}])"));
  // The same shape as one group's answer.
  const json one = Body(Get("/v1/hostgroups/hg_two"));
  EXPECT_EQ(one["members"], body["host_groups"][0]["members"]);
  EXPECT_EQ(one["hosts"], body["host_groups"][0]["hosts"]);
}

TEST_F(ListRoutesTest, UserGroupsListEveryGroupWithMembersAndExpandedUsers) {
  Ready();
  const Response response = Get("/v1/usergroups");
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  const json body = Body(response);
  EXPECT_EQ(body["count"], 1);
  EXPECT_EQ(body["user_groups"], json::parse(R"([{"name":"grp_chem","all":false,
      "members":["alice","bob","carol"],"users":["alice","bob","carol"]}])"));
}

TEST_F(ListRoutesTest, ListsAre503WithoutASnapshotAndNeedTheReadScope) {
  for (const char* target : {"/v1/hosts", "/v1/hostgroups", "/v1/usergroups"}) {
    const Response response = Get(target);
    EXPECT_EQ(response.result_int(), 503u) << target;
    EXPECT_EQ(Header(response, http::field::retry_after), "5") << target;
  }
  Ready();
  UseAuth(/*anonymous_read=*/false);
  for (const char* target : {"/v1/hosts", "/v1/hostgroups", "/v1/usergroups"}) {
    EXPECT_EQ(Get(target).result_int(), 401u) << target;
    EXPECT_EQ(Get(target, kBobReadToken).result_int(), 200u) << target;
    EXPECT_EQ(Get(target, kBobSubmitToken).result_int(), 403u) << target;
  }
}

}  // namespace
}  // namespace bplace::api::testing
