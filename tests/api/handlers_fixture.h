#pragma once

// A daemon without sockets for tests of the route functions: a ClusterCache,
// a Submitter, a jobs tier and a SubmissionService without a state store, all
// over a FakeCommandRunner that answers canned LSF 10.1 output
// (tests/fakes/canned_cluster.h; formats of docs/lsf-formats.md), a
// ManualClock, the routes registered on a Router, and helpers to call a route
// directly or through the router.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include <nlohmann/json.hpp>

#include "api/auth.h"
#include "api/handlers.h"
#include "api/router.h"
#include "api/services.h"
#include "api/token_store.h"
#include "common/manual_clock.h"
#include "daemon/cluster/bjobs_dialect.h"
#include "daemon/cluster/cluster_cache.h"
#include "daemon/cluster/inflight_ledger.h"
#include "daemon/jobs/job_tracker.h"
#include "daemon/placement/refusal_memory.h"
#include "daemon/submit/rate_limiter.h"
#include "daemon/submit/submission_service.h"
#include "daemon/submit/submitter.h"
#include "lsf_adapter/lsf_invoker.h"
#include "tests/fakes/canned_cluster.h"
#include "tests/fakes/fake_command_runner.h"

namespace bplace::api::testing {

// The canned cluster of tests/fakes/canned_cluster.h: three open queues with
// PEND 0, 4 and 10, qa and qb on all hosts, qc on hg_two.
using bplace::testing::kBhostsW;
using bplace::testing::kBqueuesW;
using bplace::testing::kBugroupW;
using bplace::testing::kLsid;
using bplace::testing::QueueBlock;
using bplace::testing::ValueOf;

// hg_two names node009, which bhosts does not list.
inline constexpr char kBmgroupW[] =
    "GROUP_NAME    HOSTS\n"
    "hg_two       node001 node002 node009 \n";

inline constexpr char kLsclustersL[] =
    "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n"
    "cluster1       ok       lsfmaster01            lsfadmin        2        2\n"
    "LSF administrators: lsfadmin\n";

// Token lines (`printf %s TOKEN | sha256sum`): bob may read, bob-submit may
// only submit, carol may read and administer, alice (the daemon's user) may
// do everything.
inline constexpr char kTokens[] =
    "sha256:76ed4759bc4ccd1e3430b4de288390c5d33007ff218d324b62ad35ee5d3f726f bob read\n"
    "sha256:4aef11b280c8413cc66d0e47689a35afcca61ad021dc10b172b7764b19d971fc bob submit\n"
    "sha256:7afe3661b38742e9ee292a5ffa46da3b13164620f30490d8351b31b139b58fce carol read,admin\n"
    "sha256:9c220f200955d76c0a38d308225e0ef10c5f971acaf2f8d1d8f732affa5bd1dc alice "
    "read,submit,admin\n";
inline constexpr char kBobReadToken[] = "Bearer bob-read-token";
inline constexpr char kBobSubmitToken[] = "Bearer bob-submit-token";
inline constexpr char kCarolAdminToken[] = "Bearer carol-admin-token";
inline constexpr char kAliceToken[] = "Bearer alice-token";

// A GET for the route functions called directly (the path is the router's
// business, not theirs).
inline const Request kGet{boost::beast::http::verb::get, "/", 11};

class HandlersTest : public ::testing::Test {
 protected:
  using FakeCommandRunner = bplace::testing::FakeCommandRunner;

  HandlersTest() {
    // Refresh failures and audit lines are logged; tests check them instead.
    spdlog::set_level(spdlog::level::err);
    CannedCluster();
    services_.user = "alice";
    services_.version = "9.9.9";
    RegisterRoutes(router_, services_);
  }

  void CannedCluster() {
    bplace::testing::AnswerAsCannedCluster(fake_, kBmgroupW);
    fake_.OnArgv({"lsclusters", "-l"}, FakeCommandRunner::Output(kLsclustersL));
  }

  // Refreshes both tiers once, so that the snapshot is complete.
  void Ready() {
    RunRefresh(&ClusterCache::RefreshTopology);
    RunRefresh(&ClusterCache::RefreshLoad);
  }

  // Runs one tier's refresh to its end; returns its result.
  Result<void> RunRefresh(void (ClusterCache::*refresh)(ClusterCache::Done)) {
    std::optional<Result<void>> result;
    (cache_.*refresh)([&](Result<void> r) { result = std::move(r); });
    RunUntil([&] { return result.has_value(); });
    return result.value_or(Result<void>{});
  }

  // Makes `bqueues -w` fail from now on and runs a load refresh.
  void LoadRefreshFails() {
    fake_.OnArgv({"bqueues", "-w"},
                 tl::unexpected(Error{ErrorCode::kUnavailable, "LSF is down or not responding"}));
    EXPECT_FALSE(RunRefresh(&ClusterCache::RefreshLoad));
  }

  // Identifies callers with tokens from kTokens ([auth] in service-account
  // mode as alice), with anonymous reads on or off.
  void UseAuth(bool anonymous_read) {
    AuthPolicy policy;
    policy.anonymous_read = anonymous_read;
    policy.daemon_user = "alice";
    policy.daemon_uid = 4242;
    auto tokens = TokenStore::Parse(kTokens, "tokens");
    EXPECT_TRUE(tokens) << tokens.error().message;
    authenticator_ = std::make_unique<Authenticator>(
        policy, std::make_shared<const TokenStore>(tokens.value_or(TokenStore{})));
    services_.auth = authenticator_.get();
  }

  // Runs the io_context (posted LSF replies, timers) until `done`; fails
  // the test after five real seconds rather than hang.
  void RunUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "condition not reached";
        return;
      }
      io_.restart();
      io_.run_one_for(std::chrono::milliseconds(50));
    }
  }

  static Request MakeRequest(boost::beast::http::verb method, const std::string& target,
                             const std::string& authorization = "") {
    Request req{method, target, 11};
    if (!authorization.empty()) req.set(boost::beast::http::field::authorization, authorization);
    return req;
  }

  static Request PostJob(const std::string& body,
                         const std::string& content_type = "application/json") {
    Request req = MakeRequest(boost::beast::http::verb::post, "/v1/jobs");
    if (!content_type.empty()) req.set(boost::beast::http::field::content_type, content_type);
    req.body() = body;
    req.prepare_payload();
    return req;
  }

  // Sends `req` through the registered routes (no socket) and waits for the
  // answer.
  Response Call(Request req, const std::string& request_id = "rid-1") {
    RequestContext ctx;
    ctx.request_id = request_id;
    ctx.remote = "127.0.0.1:40000";
    std::optional<Response> got;
    router_.Dispatch(std::move(req), ctx, [&](Response r) { got = std::move(r); });
    RunUntil([&] { return got.has_value(); });
    return got.value_or(Response{});
  }

  Response Get(const std::string& target, const std::string& authorization = "") {
    return Call(MakeRequest(boost::beast::http::verb::get, target, authorization));
  }

  // The caller every request is without [auth]: the daemon's user with
  // every right.
  Caller DaemonUser() const {
    Caller caller;
    caller.user = "alice";
    caller.can_read = caller.can_submit = caller.is_admin = true;
    return caller;
  }

  // The route parameters of a target's query ("a=1&b=2").
  static RouteParams Query(const std::string& query) {
    RouteParams params;
    auto parsed = ParseQuery(query);
    EXPECT_TRUE(parsed) << parsed.error().message;
    params.query = parsed.value_or(decltype(params.query){});
    return params;
  }

  static RouteParams Path(const std::string& name, const std::string& value) {
    RouteParams params;
    params.path.emplace(name, value);
    return params;
  }

  static nlohmann::json Body(const Response& response) {
    return nlohmann::json::parse(response.body(), nullptr, false);
  }

  static std::string Detail(const Response& response) { return Body(response).value("detail", ""); }

  static std::string Header(const Response& response, boost::beast::http::field field) {
    return std::string(response[field]);
  }

  boost::asio::io_context io_;
  FakeCommandRunner fake_{io_.get_executor()};
  lsf::LsfInvoker lsf_{"", "", std::chrono::milliseconds(9000), {}};
  InflightLedger ledger_;
  ManualClock clock_;
  RefusalMemory memory_;
  ClusterCache cache_{io_.get_executor(), fake_, lsf_, ledger_, clock_, CacheOptions{}};
  // Two submissions at once, then one a minute.
  RateLimiter limiter_{RateLimiterOptions{1, 2, 300, 30}};
  Submitter submitter_{fake_,    lsf_, cache_, ledger_, memory_, clock_, SubmitterOptions{},
                       &limiter_};
  // The jobs tier submitted jobs are handed to. services_.tracker stays null
  // (the job routes answer 503) unless a test turns those routes on.
  BjobsDialect dialect_;
  JobTracker tracker_{io_.get_executor(),  fake_,   clock_, cache_.store(), lsf_, nullptr,
                      JobTrackerOptions{}, dialect_};
  // POST /v1/jobs's one path, as the daemon's but without a state store (no
  // journal): every call is a new submission.
  SubmissionService submissions_{submitter_, tracker_, nullptr, clock_, fake_, lsf_};
  std::unique_ptr<Authenticator> authenticator_;
  Services services_{cache_, submitter_, ledger_, submissions_, clock_};
  Router router_;
};

}  // namespace bplace::api::testing
