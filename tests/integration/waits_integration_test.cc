// Wait prediction through the real bplaced against the LSF simulator
// (docs/api.md "Expected start"): the daemon finds the simulator's
// lsb.events from lsf.conf and lsid, learns the waits of jobs it never
// submitted, answers every candidate with an expected start, keeps the
// prediction with the jobs it submits and counts how the bounds fared in
// /metrics and /v1/cluster, which the job itself agrees with. No
// wall-clock assertion: every wait is on a condition with a generous
// deadline.

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

DaemonSettings FastTiers() {
  DaemonSettings settings;
  settings.jobs_refresh_s = 1;
  settings.load_refresh_s = 1;
  settings.topology_refresh_s = 1;
  return settings;
}

// Polls `get` until `done` holds of its answer, for at most 45 s.
json Until(const std::function<HttpReply()>& get, const std::function<bool(const json&)>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(45);
  json body;
  while (std::chrono::steady_clock::now() < deadline) {
    const HttpReply reply = get();
    body = reply.Json();
    if (reply.status == 200 && done(body)) return body;
    // The daemon refreshes every second; the condition decides, not the pause.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return body;
}

// The id of bsub's "Job <N> is submitted to queue <q>." line; empty if none.
std::string JobIdOf(const std::string& bsub_out) {
  const auto open = bsub_out.find("Job <");
  const auto close = bsub_out.find('>', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return bsub_out.substr(open + 5, close - open - 5);
}

TEST(WaitsIntegrationTest, LearnsFromTheEventLogAndCountsCoverageOfItsOwnJobs) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonProcess daemon(sim, FastTiers());

  // Every candidate carries an expected start from the first answer on.
  const json first = daemon.Get("/v1/placement?queue=short,normal").Json();
  ASSERT_TRUE(first.contains("candidates")) << first.dump();
  for (const json& candidate : first["candidates"]) {
    const json& start = candidate["expected_start"];
    EXPECT_TRUE(start.contains("bound_s") && start.contains("p50_s") && start.contains("method"))
        << candidate.dump();
    EXPECT_FALSE(start.value("summary", "").empty());
  }

  // Jobs submitted straight to LSF (not through bplace) teach it through
  // lsb.events: they wait until the simulator dispatches them.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(sim.Lsf({"bsub", "-q", "normal", "sleep 1"}).exit_code, 0);
  }
  ASSERT_EQ(sim.Lsf({"lsfsim", "schedule"}).exit_code, 0);
  const json waits = Until(
      [&] { return daemon.Get("/v1/queues/normal/waits"); },
      [](const json& body) { return body.value("recent_waits_s", json::array()).size() >= 3; });
  ASSERT_GE(waits.value("recent_waits_s", json::array()).size(), 3u) << waits.dump();
  EXPECT_EQ(waits["estimates"][0]["slots"], "1");
  EXPECT_NE(waits["estimates"][0]["expected_start"]["method"], "no_history") << waits.dump();

  // A job bplace did not place, looked up by id: its wait, no prediction.
  const ProcessOutput straight = sim.Lsf({"bsub", "-q", "normal", "sleep 30"});
  ASSERT_EQ(straight.exit_code, 0);
  const std::string straight_id = JobIdOf(straight.out);
  ASSERT_EQ(sim.Lsf({"lsfsim", "schedule"}).exit_code, 0);
  const json looked_up = Until([&] { return daemon.Call("GET", "/v1/jobs/" + straight_id); },
                               [](const json& job) { return job["wait_s"].is_number(); });
  EXPECT_TRUE(looked_up["wait_s"].is_number()) << looked_up.dump();
  ASSERT_TRUE(looked_up.contains("expected_start")) << looked_up.dump();
  EXPECT_TRUE(looked_up["expected_start"].is_null()) << looked_up.dump();
  EXPECT_TRUE(looked_up["within_bound"].is_null()) << looked_up.dump();

  // A job bplace submits where it starts now: the prediction is kept with
  // the job and compared with its wait once it starts.
  const HttpReply submitted =
      daemon.Post("/v1/jobs", R"({"host": "node007", "queues": ["short"], "command": "sleep 30"})");
  ASSERT_EQ(submitted.status, 201) << submitted.body;
  const std::string job_id = submitted.Json().value("job_id", "");
  // As its placement gave it, before it starts.
  const json pending = daemon.Call("GET", "/v1/jobs/" + job_id).Json();
  EXPECT_EQ(pending["expected_start"]["method"], "starts_now") << pending.dump();
  EXPECT_FALSE(pending["expected_start"].value("summary", "").empty()) << pending.dump();
  EXPECT_TRUE(pending["expected_start"]["bound_s"].is_number()) << pending.dump();
  EXPECT_TRUE(pending["within_bound"].is_null()) << pending.dump();
  ASSERT_EQ(sim.Lsf({"lsfsim", "schedule"}).exit_code, 0);
  const json cluster =
      Until([&] { return daemon.Get("/v1/cluster"); },
            [](const json& body) { return body["wait_predictions"].value("predictions", 0) >= 1; });
  const json& record = cluster["wait_predictions"];
  ASSERT_GE(record.value("predictions", 0), 1) << cluster.dump();
  EXPECT_EQ(record["within_bound"], record["predictions"]) << cluster.dump();
  const std::string metrics = daemon.Get("/metrics").body;
  EXPECT_THAT(metrics, HasSubstr("bplace_wait_predictions_total{queue=\"short\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("bplace_wait_within_bound_total{queue=\"short\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("bplace_wait_coverage_ratio 1"));

  // The job says the same: its wait, within the bound it was given; so do
  // the items of the list.
  const json started = daemon.Call("GET", "/v1/jobs/" + job_id).Json();
  EXPECT_TRUE(started["wait_s"].is_number()) << started.dump();
  EXPECT_LE(started.value("wait_s", 1 << 30), started["expected_start"].value("bound_s", 0))
      << started.dump();
  EXPECT_EQ(started["within_bound"], true) << started.dump();
  const json list = daemon.Call("GET", "/v1/jobs").Json();
  ASSERT_EQ(list.value("jobs", json::array()).size(), 1u) << list.dump();
  EXPECT_EQ(list["jobs"][0]["expected_start"], started["expected_start"]) << list.dump();
  EXPECT_EQ(list["jobs"][0]["within_bound"], true) << list.dump();
}

TEST(WaitsIntegrationTest, AJobJudgedFromTheEventLogShowsTheWaitItWasJudgedOn) {
  // The event log is read every load interval (1 s); bjobs only every
  // hour: the log sees the job start long before the jobs tier does. The
  // job must still say the wait the counters judged, not "not started".
  DaemonSettings settings;
  settings.load_refresh_s = 1;
  settings.topology_refresh_s = 1;
  SimCluster sim(DEMO_CLUSTER);
  DaemonProcess daemon(sim, settings);
  const HttpReply submitted =
      daemon.Post("/v1/jobs", R"({"host": "node007", "queues": ["short"], "command": "sleep 30"})");
  ASSERT_EQ(submitted.status, 201) << submitted.body;
  const std::string job_id = submitted.Json().value("job_id", "");
  ASSERT_EQ(sim.Lsf({"lsfsim", "schedule"}).exit_code, 0);
  const json cluster =
      Until([&] { return daemon.Get("/v1/cluster"); },
            [](const json& body) { return body["wait_predictions"].value("predictions", 0) >= 1; });
  ASSERT_EQ(cluster["wait_predictions"].value("predictions", 0), 1) << cluster.dump();
  EXPECT_EQ(cluster["wait_predictions"]["within_bound"], 1) << cluster.dump();

  const json job = daemon.Call("GET", "/v1/jobs/" + job_id).Json();
  EXPECT_TRUE(job["wait_s"].is_number()) << job.dump();
  EXPECT_LE(job.value("wait_s", 1 << 30), job["expected_start"].value("bound_s", 0)) << job.dump();
  EXPECT_EQ(job["within_bound"], true) << job.dump();
  const json list = daemon.Call("GET", "/v1/jobs").Json();
  ASSERT_EQ(list.value("jobs", json::array()).size(), 1u) << list.dump();
  EXPECT_EQ(list["jobs"][0]["wait_s"], job["wait_s"]) << list.dump();
  EXPECT_EQ(list["jobs"][0]["within_bound"], true) << list.dump();
}

}  // namespace
}  // namespace bplace::testing
