// The job lifecycle through the real bplaced against the LSF simulator:
// exactly-once submission (Idempotency-Key, kill -9), status from the jobs
// tier, list by label, cancel (docs/api.md "Jobs: following and cancelling").

#include <signal.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;

std::string Body(const std::string& command, const json& labels = json::object()) {
  json body{{"host", "node007"}, {"queues", {"short"}}, {"command", command}};
  if (!labels.empty()) body["labels"] = labels;
  return body.dump();
}

DaemonSettings FastJobs() {
  DaemonSettings settings;
  settings.jobs_refresh_s = 1;
  settings.load_refresh_s = 1;
  return settings;
}

// The job as bplace shows it, after the next jobs refresh (wait_s: a long
// poll, no sleep) until `done` holds or `tries` refreshes passed.
json JobWhen(const DaemonProcess& daemon, const std::string& id,
             const std::function<bool(const json&)>& done, int tries = 10) {
  json job;
  for (int i = 0; i < tries; ++i) {
    const HttpReply reply = daemon.Call("GET", "/v1/jobs/" + id + "?wait_s=5");
    job = reply.Json();
    if (reply.status == 200 && done(job)) return job;
  }
  return job;
}

std::string StatusIs(const json& job) { return job.value("status", ""); }

// Jobs of the simulator, by description.
std::map<std::string, std::string> JobsByDescription(const SimCluster& sim) {
  const ProcessOutput out =
      sim.Lsf({"bjobs", "-a", "-u", "all", "-o", "jobid job_description", "-json"});
  std::map<std::string, std::string> jobs;
  const json answer = json::parse(out.out, nullptr, false);
  if (!answer.is_object()) return jobs;
  for (const json& record : answer.value("RECORDS", json::array())) {
    jobs[record.value("JOB_DESCRIPTION", "")] = record.value("JOBID", "");
  }
  return jobs;
}

class JobsTest : public ::testing::Test {
 protected:
  JobsTest() : sim_(DEMO_CLUSTER), daemon_(std::make_unique<DaemonProcess>(sim_, FastJobs())) {}
  SimCluster sim_;
  std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(JobsTest, ASubmittedJobIsFollowedFromSubmittedToItsExitCode) {
  const HttpReply submitted = daemon_->Post("/v1/jobs", Body("exit 3"));
  ASSERT_EQ(submitted.status, 201) << submitted.body;
  const std::string id = submitted.Json()["job_id"];
  EXPECT_EQ(submitted.Json()["job_url"], "/v1/jobs/" + id);

  const HttpReply first = daemon_->Call("GET", "/v1/jobs/" + id);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_THAT(StatusIs(first.Json()), ::testing::AnyOf("SUBMITTED", "PEND"));
  EXPECT_TRUE(first.Json()["submitted_by_bplace"]);

  ASSERT_EQ(sim_.Lsf({"lsfsim", "schedule"}).exit_code, 0);
  json job = JobWhen(*daemon_, id, [](const json& j) { return StatusIs(j) == "RUN"; });
  EXPECT_EQ(StatusIs(job), "RUN") << job.dump();
  EXPECT_EQ(job["queue"], "short");
  EXPECT_FALSE(job["start_time"].is_null());

  ASSERT_EQ(sim_.Lsf({"lsfsim", "finish", id, "--exit", "3"}).exit_code, 0);
  job = JobWhen(*daemon_, id, [](const json& j) { return j.value("terminal", false); });
  EXPECT_EQ(StatusIs(job), "EXIT") << job.dump();
  EXPECT_EQ(job["exit_code"], 3);
  EXPECT_TRUE(job["terminal"]);
  // Finished: it is not asked about again, and it outlives a restart.
  ASSERT_EQ(daemon_->Terminate(), 0);
  daemon_ = std::make_unique<DaemonProcess>(sim_, FastJobs());
  EXPECT_EQ(daemon_->Call("GET", "/v1/jobs/" + id).Json()["exit_code"], 3);
}

TEST_F(JobsTest, TheSameIdempotencyKeyGivesTheSameJobAndNeverASecondBsub) {
  const std::map<std::string, std::string> key = {{"Idempotency-Key", "wf-17-step-3"}};
  const HttpReply first = daemon_->Call("POST", "/v1/jobs", Body("sleep 60"), key);
  ASSERT_EQ(first.status, 201) << first.body;
  const HttpReply again = daemon_->Call("POST", "/v1/jobs", Body("sleep 60"), key);
  ASSERT_EQ(again.status, 201) << again.body;
  EXPECT_EQ(again.Json()["job_id"], first.Json()["job_id"]);
  EXPECT_EQ(again.headers.at("idempotency-replayed"), "true");
  const HttpReply other = daemon_->Call("POST", "/v1/jobs", Body("sleep 61"), key);
  EXPECT_EQ(other.status, 422) << other.body;
  EXPECT_EQ(sim_.Counts()["bsub"], 1);
  // The client's own X-Request-Id counts as its key when it sends no other.
  const std::map<std::string, std::string> rid = {{"X-Request-Id", "client-rid-1"}};
  const HttpReply by_rid = daemon_->Call("POST", "/v1/jobs", Body("sleep 62"), rid);
  ASSERT_EQ(by_rid.status, 201);
  EXPECT_EQ(daemon_->Call("POST", "/v1/jobs", Body("sleep 62"), rid).Json()["job_id"],
            by_rid.Json()["job_id"]);
  EXPECT_EQ(sim_.Counts()["bsub"], 2);
}

TEST_F(JobsTest, ListsTheCallersJobsByLabelNewestFirst) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    const HttpReply reply = daemon_->Post(
        "/v1/jobs", Body("sleep 60", {{"workflow", "a"}, {"step", std::to_string(i)}}));
    ASSERT_EQ(reply.status, 201) << reply.body;
    ids.push_back(reply.Json()["job_id"]);
  }
  ASSERT_EQ(daemon_->Post("/v1/jobs", Body("sleep 60", {{"workflow", "b"}})).status, 201);
  const HttpReply list = daemon_->Call("GET", "/v1/jobs?label=workflow=a");
  ASSERT_EQ(list.status, 200) << list.body;
  std::vector<std::string> listed;
  const json listing = list.Json();
  for (const json& job : listing["jobs"]) listed.push_back(job["job_id"]);
  EXPECT_THAT(listed, ::testing::ElementsAre(ids[2], ids[1], ids[0]));
  const HttpReply page = daemon_->Call("GET", "/v1/jobs?limit=2");
  ASSERT_EQ(page.Json()["jobs"].size(), 2u);
  const std::string cursor = page.Json()["next_cursor"];
  ASSERT_FALSE(cursor.empty());
  EXPECT_EQ(daemon_->Call("GET", "/v1/jobs?limit=2&cursor=" + cursor).Json()["jobs"].size(), 2u);
  EXPECT_EQ(daemon_->Call("GET", "/v1/jobs?status=bogus").status, 400);
}

TEST_F(JobsTest, CancellingIsIdempotentAndABatchCancelsAWorkflowWithOneBkill) {
  const HttpReply one = daemon_->Post("/v1/jobs", Body("sleep 600", {{"workflow", "c"}}));
  const HttpReply two = daemon_->Post("/v1/jobs", Body("sleep 600", {{"workflow", "c"}}));
  const HttpReply three = daemon_->Post("/v1/jobs", Body("sleep 600", {{"workflow", "c"}}));
  ASSERT_EQ(three.status, 201) << three.body;
  const std::string id = one.Json()["job_id"];
  const HttpReply cancelled = daemon_->Call("DELETE", "/v1/jobs/" + id);
  EXPECT_EQ(cancelled.status, 202) << cancelled.body;
  json job = JobWhen(*daemon_, id, [](const json& j) { return j.value("terminal", false); });
  EXPECT_EQ(StatusIs(job), "EXIT");
  const HttpReply again = daemon_->Call("DELETE", "/v1/jobs/" + id);
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json()["job"]["status"], "EXIT");

  const int bkills = sim_.Counts()["bkill"];
  const HttpReply batch =
      daemon_->Call("POST", "/v1/jobs:cancel", json{{"labels", {{"workflow", "c"}}}}.dump());
  ASSERT_EQ(batch.status, 200) << batch.body;
  EXPECT_EQ(sim_.Counts()["bkill"], bkills + 1) << "one bkill for the batch";
  std::set<std::string> outcomes;
  const json answer = batch.Json();
  for (const json& result : answer["results"]) outcomes.insert(result["outcome"]);
  EXPECT_THAT(outcomes, ::testing::Contains("terminating"));
  job = JobWhen(*daemon_, three.Json()["job_id"],
                [](const json& j) { return j.value("terminal", false); });
  EXPECT_EQ(StatusIs(job), "EXIT");
  (void)two;
}

TEST_F(JobsTest, AnIdNotSubmittedThroughBplaceIsLookedUpAndUnknownIdsAre404) {
  const ProcessOutput direct = sim_.Lsf({"bsub", "-q", "short", "sleep", "60"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  const std::string id = direct.out.substr(5, direct.out.find('>') - 5);
  const HttpReply found = daemon_->Call("GET", "/v1/jobs/" + id);
  ASSERT_EQ(found.status, 200) << found.body;
  EXPECT_EQ(found.Json()["status"], "PEND");
  EXPECT_FALSE(found.Json()["submitted_by_bplace"]);
  EXPECT_EQ(daemon_->Call("GET", "/v1/jobs/99999").status, 404);
  EXPECT_EQ(daemon_->Call("GET", "/v1/jobs/12x").status, 400);
}

TEST_F(JobsTest, ManyPollersCostOneBjobsPerRefresh) {
  const std::string id = daemon_->Post("/v1/jobs", Body("sleep 60")).Json()["job_id"];
  (void)JobWhen(*daemon_, id, [](const json& j) { return StatusIs(j) == "PEND"; });
  const int before = sim_.Counts()["bjobs"];
  for (int i = 0; i < 200; ++i) ASSERT_EQ(daemon_->Call("GET", "/v1/jobs/" + id).status, 200);
  // Reads never ask LSF; the tier's own refreshes (1 s) are all that ran.
  const int after = sim_.Counts()["bjobs"];
  EXPECT_LE(after - before, 20) << "200 reads";
}

// A bug once: kill -9 with submissions in flight gave jobs and no answers, and
// a retry of each made a second job. Now every retry with the same key gets
// the one job LSF has.
TEST_F(JobsTest, KillNineWithSubmissionsInFlightLosesNothingAndDuplicatesNothing) {
  constexpr int kClients = 6;
  ASSERT_EQ(sim_.Lsf({"lsfsim", "fault", "--command", "bsub", "--slow-ms", "1500"}).exit_code, 0);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([this, i] {
      try {
        (void)daemon_->Call("POST", "/v1/jobs", Body("sleep 60"),
                            {{"Idempotency-Key", "crash-" + std::to_string(i)}});
      } catch (const std::exception&) {
        // The daemon died under the request: no answer, as a crash gives.
      }
    });
  }
  // Kill once every bsub has started (the simulator counts them at once).
  for (int i = 0; i < 100 && sim_.Counts()["bsub"] < kClients; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  daemon_->Kill9();
  for (auto& client : clients) client.join();
  ASSERT_EQ(sim_.Lsf({"lsfsim", "fault", "--clear"}).exit_code, 0);
  daemon_ = std::make_unique<DaemonProcess>(sim_, FastJobs());

  std::set<std::string> answered;
  for (int i = 0; i < kClients; ++i) {
    HttpReply reply;
    for (int attempt = 0; attempt < 60; ++attempt) {
      reply = daemon_->Call("POST", "/v1/jobs", Body("sleep 60"),
                            {{"Idempotency-Key", "crash-" + std::to_string(i)}});
      if (reply.status != 409) break;
      (void)daemon_->Call("GET", "/v1/jobs?wait_s=2");  // let the reconciler run
    }
    ASSERT_EQ(reply.status, 201) << reply.body;
    EXPECT_TRUE(reply.Json().value("reconciled", false))
        << "found in LSF by its tag: " << reply.body;
    answered.insert(reply.Json()["job_id"]);
  }
  EXPECT_EQ(answered.size(), static_cast<std::size_t>(kClients));
  const auto in_lsf = JobsByDescription(sim_);
  EXPECT_EQ(in_lsf.size(), static_cast<std::size_t>(kClients)) << "exactly one job per key";
  for (const auto& [description, job_id] : in_lsf) EXPECT_TRUE(answered.contains(job_id));
}

// A 504 ("outcome unknown") is settled in the background, so the
// client's retry with the same key gets one job, never a second.
TEST(JobsTimeoutTest, ARetryAfterA504GetsExactlyOneJob) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings = FastJobs();
  settings.command_timeout_s = 1;
  DaemonProcess daemon(sim, settings);
  ASSERT_EQ(sim.Lsf({"lsfsim", "fault", "--command", "bsub", "--slow-ms", "3000"}).exit_code, 0);
  const std::map<std::string, std::string> key = {{"Idempotency-Key", "slow-1"}};
  const HttpReply timed_out = daemon.Call("POST", "/v1/jobs", Body("sleep 60"), key);
  ASSERT_EQ(timed_out.status, 504) << timed_out.body;
  const std::string description = timed_out.Json()["job_description"];
  ASSERT_EQ(sim.Lsf({"lsfsim", "fault", "--clear"}).exit_code, 0);
  HttpReply reply;
  for (int attempt = 0; attempt < 60; ++attempt) {
    reply = daemon.Call("POST", "/v1/jobs", Body("sleep 60"), key);
    if (reply.status != 409) break;
    (void)daemon.Call("GET", "/v1/jobs?wait_s=2");  // let the reconciler run
  }
  ASSERT_EQ(reply.status, 201) << reply.body;
  const auto in_lsf = JobsByDescription(sim);
  ASSERT_EQ(in_lsf.count(description), 1u);
  EXPECT_EQ(in_lsf.at(description), reply.Json()["job_id"]);
  EXPECT_EQ(in_lsf.size(), 1u) << "one job for the key";
}

}  // namespace
}  // namespace bplace::testing
