// The route functions of api/ without a socket: read routes, placement,
// access rules and POST /v1/jobs over a ClusterCache and Submitter fed by a
// FakeCommandRunner, on a ManualClock (tests/api/handlers_fixture.h).

#include <chrono>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/audit.h"
#include "api/route_access.h"
#include "api/routes_daemon.h"
#include "api/routes_jobs.h"
#include "api/routes_placement.h"
#include "api/routes_read.h"
#include "api/submission.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

// A call as PostJobs makes it, for SubmissionResponse.
SubmissionCall CallOf(const std::string& request_id, const std::string& user) {
  SubmissionCall call;
  call.context.request_id = request_id;
  call.context.user = user;
  call.context.tag = request_id;
  return call;
}

using nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;
namespace http = boost::beast::http;

const Request kGet{http::verb::get, "/", 11};

// --- Reads of the cluster's state --------------------------------------------

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

// --- GET /v1/placement ------------------------------------------------------

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
      {"colour=red", "colour: unknown query parameter (use host, user, queue, slots, require_ib)"},
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

// --- Who may call what ------------------------------------------------------

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

// --- POST /v1/jobs ------------------------------------------------------------

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

TEST_F(HandlersTest, AuditRecordsNameTheDecisionRequestAndCaller) {
  RequestContext ctx;
  ctx.request_id = "rid-9";
  ctx.remote = "127.0.0.1:1";
  const json unknown = AuditRecord(nullptr, ctx, "unknown bearer token");
  EXPECT_EQ(unknown, json({{"event", "submit"},
                           {"decision", "refused"},
                           {"reason", "unknown bearer token"},
                           {"request_id", "rid-9"},
                           {"remote", "127.0.0.1:1"}}));

  Caller caller;
  caller.method = AuthMethod::kPeerCredentials;
  caller.user = "alice";
  caller.uid = 1001;
  SubmissionResult result;
  result.job_id = "1000";
  result.queue = result.requested_queue = "qa";
  result.bsub_argv = {"bsub", "-q", "qa"};
  const json submitted = AuditRecord(caller, ctx, result);
  EXPECT_EQ(submitted["decision"], "submitted");
  EXPECT_EQ(submitted["job_id"], "1000");
  EXPECT_EQ(submitted["caller"], "alice");
  EXPECT_EQ(submitted["uid"], 1001);
  EXPECT_EQ(submitted["auth"], "peer_credentials");
  EXPECT_EQ(submitted["attempts"], json::array());
  EXPECT_FALSE(submitted.contains("candidates"));

  result.error = Error{ErrorCode::kRejected, "Bad resource requirement syntax"};
  const json failed = AuditRecord(caller, ctx, result);
  EXPECT_EQ(failed["decision"], "failed");
  EXPECT_EQ(failed["reason"], "Bad resource requirement syntax");
  EXPECT_FALSE(failed.contains("job_id"));
}

}  // namespace
}  // namespace bplace::api::testing
