// Wait prediction through the real bplaced against the LSF simulator
// (docs/api.md "Expected start"): the daemon finds the simulator's
// lsb.events from lsf.conf and lsid, learns the waits of jobs it never
// submitted, answers every candidate with an expected start, keeps the
// prediction with the jobs it submits and counts how the bounds fared in
// /metrics and /v1/cluster. No wall-clock assertion: every wait is on a
// condition with a generous deadline.

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

  // A job bplace submits where it starts now: the prediction is kept with
  // the job and compared with its wait once it starts.
  const HttpReply submitted =
      daemon.Post("/v1/jobs", R"({"host": "node007", "queues": ["short"], "command": "sleep 30"})");
  ASSERT_EQ(submitted.status, 201) << submitted.body;
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
}

}  // namespace
}  // namespace bplace::testing
