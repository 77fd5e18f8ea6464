// GET /v1/jobs/{id}, GET /v1/jobs, POST /v1/jobs:cancel (api/routes_job_status.h)
// on the canned cluster of handlers_fixture.h, with a jobs tier whose bjobs
// the fake answers.

#include "api/routes_job_status.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/json_mapping.h"
#include "daemon/jobs/job_canceller.h"
#include "daemon/jobs/job_tracker.h"
#include "tests/api/handlers_fixture.h"

namespace bplace::api::testing {
namespace {

namespace http = boost::beast::http;
using nlohmann::json;
using ::testing::HasSubstr;

// One bjobs -o -json answer (LSF 10.1 layout, docs/lsf-formats.md "bjobs -o -json") with one job
// of `user`, or an ERROR record for every other id asked.
std::string BjobsAnswer(const std::vector<std::string>& argv, const std::string& id,
                        const std::string& user, const std::string& stat) {
  std::string records;
  for (std::size_t i = 5; i < argv.size(); ++i) {
    if (!records.empty()) records += ",\n";
    if (argv[i] == id) {
      records += "    {\n      \"JOBID\":\"" + id + "\",\n      \"JOBINDEX\":\"0\",\n" +
                 "      \"USER\":\"" + user + "\",\n      \"STAT\":\"" + stat +
                 "\",\n      \"QUEUE\":\"qa\",\n      \"JOB_NAME\":\"secret-name\"\n    }";
    } else {
      records += "    {\n      \"JOBID\":\"" + argv[i] + "\",\n      \"ERROR\":\"Job <" + argv[i] +
                 "> is not found\"\n    }";
    }
  }
  return "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":" + std::to_string(argv.size() - 5) +
         ",\n  \"RECORDS\":[\n" + records + "\n  ]\n}\n";
}

class JobRoutesTest : public HandlersTest {
 protected:
  JobRoutesTest() {
    services_.tracker = &tracker_;
    services_.canceller = &canceller_;
  }

  // bjobs knows job 50 of `user` in state `stat`, and no other id.
  void Bjobs(const std::string& user, const std::string& stat = "RUN") {
    fake_.On(
        [](const lsf::CommandSpec& spec) { return spec.argv.at(0) == "bjobs"; },
        [user, stat](const lsf::CommandSpec& spec) {
          const std::string out = BjobsAnswer(spec.argv, "50", user, stat);
          const bool unknown = out.find("ERROR") != std::string::npos;
          return FakeCommandRunner::Reply(FakeCommandRunner::Output(out, "", unknown ? 255 : 0));
        });
  }

  std::size_t BjobsRuns() const {
    std::size_t runs = 0;
    for (const auto& call : fake_.Calls()) runs += call.argv.at(0) == "bjobs";
    return runs;
  }

  Response GetAs(const std::string& target, const std::string& token) {
    clock_.Advance(std::chrono::seconds(2));  // past the lookups' one-a-second pace
    return Get(target, token);
  }

  JobCanceller canceller_{fake_, lsf_};
};

// Found by an attack run: GET /v1/jobs/{id} checked only the `read` scope, so anonymous
// TCP callers and every user read any job (user, name, labels, request id).
TEST_F(JobRoutesTest, AUserSeesTheirOwnJobsAdminsAllAnonymousCallersNone) {
  Ready();
  UseAuth(true);  // anonymous reads on: still no job for them
  Bjobs("alice");
  const Response anonymous = GetAs("/v1/jobs/50", "");
  EXPECT_EQ(anonymous.result_int(), 401u) << anonymous.body();
  EXPECT_EQ(BjobsRuns(), 0u) << "an anonymous caller does not even cause a lookup";
  const Response bob = GetAs("/v1/jobs/50", kBobReadToken);
  EXPECT_EQ(bob.result_int(), 403u) << bob.body();
  EXPECT_THAT(Detail(bob), HasSubstr("not yours"));
  EXPECT_EQ(bob.body().find("secret-name"), std::string::npos);
  EXPECT_EQ(bob.body().find("alice"), std::string::npos) << "the owner is a detail too";
  const Response alice = GetAs("/v1/jobs/50", kAliceToken);
  ASSERT_EQ(alice.result_int(), 200u) << alice.body();
  EXPECT_EQ(Body(alice)["job_name"], "secret-name");
  EXPECT_EQ(GetAs("/v1/jobs/50", kCarolAdminToken).result_int(), 200u);
  EXPECT_EQ(GetAs("/v1/jobs", "").result_int(), 401u) << "nor a list";
  EXPECT_EQ(GetAs("/v1/jobs?user=alice", kBobReadToken).result_int(), 403u);
}

TEST_F(JobRoutesTest, WithJobVisibilityAllEveryIdentifiedCallerSeesEveryJob) {
  Ready();
  UseAuth(true);
  AuthPolicy policy = authenticator_->policy();
  policy.job_visibility = JobVisibility::kAll;
  auto tokens = TokenStore::Parse(kTokens, "tokens");
  ASSERT_TRUE(tokens);
  authenticator_ =
      std::make_unique<Authenticator>(policy, std::make_shared<const TokenStore>(*tokens));
  services_.auth = authenticator_.get();
  Bjobs("alice");
  EXPECT_EQ(GetAs("/v1/jobs/50", kBobReadToken).result_int(), 200u);
  EXPECT_EQ(GetAs("/v1/jobs?user=alice", kBobReadToken).result_int(), 200u);
  EXPECT_EQ(GetAs("/v1/jobs/50", "").result_int(), 401u) << "anonymous callers still see none";
}

// Found by an attack run: each GET of an unknown id ran a bjobs and left a followed row
// for ever; a second GET of the same id ran bjobs again.
TEST_F(JobRoutesTest, AnIdLsfDoesNotKnowIsAskedOnceAndLeavesNoRow) {
  Ready();
  Bjobs("alice");
  const Response first = GetAs("/v1/jobs/999", "");
  EXPECT_EQ(first.result_int(), 404u) << first.body();
  EXPECT_EQ(BjobsRuns(), 1u);
  bool refreshed = false;
  tracker_.Refresh([&](Result<void>) { refreshed = true; });
  RunUntil([&] { return refreshed; });
  EXPECT_TRUE(cache_.Current()->jobs->jobs.empty()) << "no row is kept for it";
  const Response again = GetAs("/v1/jobs/999", "");
  EXPECT_EQ(again.result_int(), 404u);
  EXPECT_THAT(Detail(again), HasSubstr("not known to LSF"));
  EXPECT_EQ(BjobsRuns(), 1u) << "answered from the negative cache";
  EXPECT_TRUE(cache_.Current()->jobs->jobs.empty());
}

TEST_F(JobRoutesTest, AStatusLsf101DoesNotDocumentIsUnknownWithLsfsWordKept) {
  Ready();
  Bjobs("alice", "XYZ");
  const Response response = GetAs("/v1/jobs/50", "");
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  EXPECT_EQ(Body(response)["status"], "UNKNOWN");
  EXPECT_EQ(Body(response)["lsf_status"], "XYZ");
  EXPECT_FALSE(Body(response)["terminal"]);
}

TEST_F(JobRoutesTest, TheAnswerSaysWhenLsfLastListedTheJob) {
  Ready();
  Bjobs("alice");
  const Response response = GetAs("/v1/jobs/50", "");
  ASSERT_EQ(response.result_int(), 200u) << response.body();
  EXPECT_EQ(Body(response)["last_seen_in_lsf"], FormatRfc3339(clock_.SystemNow()));
  EXPECT_TRUE(Body(response)["missing_since"].is_null());
  EXPECT_FALSE(Body(response)["left_lsf"]);
}

Request CancelRequest(const std::string& content_type,
                      const std::string& body = R"({"ids":["50"]})") {
  Request req{http::verb::post, "/v1/jobs:cancel", 11};
  req.set(http::field::content_type, content_type);
  req.body() = body;
  req.prepare_payload();
  return req;
}

// Found by an attack run: the README's own `curl -d '{...}'` (a form Content-Type) got 415
// from POST /v1/jobs while POST /v1/jobs:cancel took it, and both took
// application/json-patch+json. One rule now serves both routes.
TEST_F(JobRoutesTest, JsonBodyRoutesReadContentTypeTheSameWay) {
  Ready();
  const std::string job = R"({"command":"true"})";
  EXPECT_EQ(Call(PostJob(job, "application/x-www-form-urlencoded")).result_int(), 201u);
  EXPECT_EQ(Call(PostJob(job, "Application/JSON; charset=utf-8")).result_int(), 201u);
  EXPECT_EQ(Call(PostJob(job, "application/json-patch+json")).result_int(), 415u);
  EXPECT_EQ(Call(CancelRequest("application/json-patch+json")).result_int(), 415u);
  EXPECT_EQ(Call(CancelRequest("text/plain")).result_int(), 415u);
  EXPECT_EQ(Call(CancelRequest("application/x-www-form-urlencoded")).result_int(), 200u);
}

TEST_F(JobRoutesTest, ACancelBodyNamesWhatIsWrongWithAnId) {
  Ready();
  const struct {
    const char* body;
    const char* detail;
  } cases[] = {
      {R"({"ids":[50]})",
       R"(ids: `50` is not a job id (a string: "1234", or "1234[7]" for an array element))"},
      {R"({"ids":["5x"]})", R"(ids: `"5x"` is not a job id (digits, or 1234[7] for an array )"
                            R"(element))"},
  };
  for (const auto& c : cases) {
    const Response response = Call(CancelRequest("application/json", c.body));
    EXPECT_EQ(response.result_int(), 400u) << c.body;
    EXPECT_EQ(Detail(response), c.detail) << c.body;
  }
}

}  // namespace
}  // namespace bplace::api::testing
