#include "rdma_probe/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rdma_probe/elim.h"
#include "rdma_probe/probe.h"
#include "tests/fakes/fake_verbs_api.h"
#include "tests/rdma_probe/test_support.h"

namespace bplace::rdma {
namespace {

using nlohmann::json;
using testing::FakeVerbsApi;

TEST(ReportJsonTest, TopLevelShapeIsTheDaemonContract) {
  testing::SysfsTree tree;
  testing::ManualClock clock;
  FakeVerbsApi api;
  PortFacts down = FakeVerbsApi::ActiveIbPort(2);
  down.state = 1;
  down.phys_state = 2;
  api.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1), down});
  tree.ZeroCounters("mlx5_0", 1);
  tree.SetRate("mlx5_0", 1, "200 Gb/sec (4X HDR)");
  ProbeSettings settings;
  settings.host = "node1";
  settings.ib.sysfs_root = tree.sysfs_root();
  settings.use_state = false;
  const json doc = ReportToJson(RunProbe(api, clock, settings));

  EXPECT_EQ(doc["host"], "node1");
  EXPECT_EQ(doc["verdict"], "unhealthy");
  EXPECT_EQ(doc["reasons"],
            json::array({"mlx5_0 port 2: state DOWN", "mlx5_0 port 2: phys_state Polling"}));
  EXPECT_EQ(doc["rate_gbps"], 200.0);
  EXPECT_EQ(doc["probed_at"], "2024-05-01T12:00:00Z");
  ASSERT_TRUE(doc["devices"].is_array());
  const json& device = doc["devices"][0];
  EXPECT_EQ(device["name"], "mlx5_0");
  EXPECT_EQ(device["phys_port_cnt"], 2);
  const json& port = device["ports"][0];
  EXPECT_EQ(port["port"], 1);
  EXPECT_EQ(port["verdict"], "healthy");
  EXPECT_EQ(port["state"], "ACTIVE");
  EXPECT_EQ(port["phys_state"], "LinkUp");
  EXPECT_EQ(port["link_layer"], "InfiniBand");
  EXPECT_EQ(port["width"], "4x");
  EXPECT_EQ(port["speed"], "HDR");
  EXPECT_EQ(port["rate_gbps"], 200.0);
  EXPECT_EQ(port["sysfs_rate"], "200 Gb/sec (4X HDR)");
  EXPECT_EQ(port["counters"]["symbol_error"]["value"], 0);
  EXPECT_TRUE(port["counters"]["symbol_error"]["delta"].is_null());
  EXPECT_EQ(port["counters"]["symbol_error"]["saturated"], false);
  EXPECT_EQ(port["loopback"]["ok"], true);
  const json& bad = device["ports"][1];
  EXPECT_EQ(bad["verdict"], "unhealthy");
  EXPECT_EQ(bad["state"], "DOWN");
  EXPECT_TRUE(bad["rate_gbps"].is_null());
  EXPECT_TRUE(bad["loopback"].is_null());
  EXPECT_EQ(bad["reasons"].size(), 2u);
}

TEST(ReportJsonTest, NoStackReportHasNullRateAndNoDevices) {
  FakeVerbsApi api;
  api.SetListStatus(DeviceListStatus::kNoStack, "ibv_get_device_list: Function not implemented");
  testing::ManualClock clock;
  ProbeSettings settings;
  settings.use_state = false;
  const json doc = ReportToJson(RunProbe(api, clock, settings));
  EXPECT_EQ(doc["verdict"], "unhealthy");
  EXPECT_TRUE(doc["rate_gbps"].is_null());
  EXPECT_EQ(doc["devices"], json::array());
}

TEST(ReportJsonTest, ErrorReportCarriesItsReason) {
  const json doc = ReportToJson(ErrorReport(
      "node1", std::chrono::system_clock::time_point(std::chrono::seconds(0)), "probe timed out"));
  EXPECT_EQ(doc["verdict"], "error");
  EXPECT_EQ(doc["reasons"], json::array({"probe timed out"}));
  EXPECT_EQ(doc["probed_at"], "1970-01-01T00:00:00Z");
}

TEST(ExitCodeTest, MapsVerdicts) {
  EXPECT_EQ(ExitCodeFor(Verdict::kHealthy), 0);
  EXPECT_EQ(ExitCodeFor(Verdict::kUnhealthy), 1);
  EXPECT_EQ(ExitCodeFor(Verdict::kError), 2);
  EXPECT_STREQ(VerdictName(Verdict::kUnhealthy), "unhealthy");
}

TEST(ElimLineTest, HealthyReportPublishesRate) {
  EXPECT_EQ(ElimLineForReport(R"({"verdict": "healthy", "rate_gbps": 200})"),
            "2 ib_ok 1 ib_rate 200\n");
  EXPECT_EQ(ElimLineForReport(R"({"verdict": "healthy", "rate_gbps": 2.5})"),
            "2 ib_ok 1 ib_rate 2.5\n");
}

TEST(ElimLineTest, AnythingElsePublishesNotOk) {
  EXPECT_EQ(ElimLineForReport(R"({"verdict": "unhealthy", "rate_gbps": 200})"), "1 ib_ok 0\n");
  EXPECT_EQ(ElimLineForReport(R"({"verdict": "error", "rate_gbps": null})"), "1 ib_ok 0\n");
  EXPECT_EQ(ElimLineForReport(R"({"verdict": "healthy", "rate_gbps": null})"), "1 ib_ok 0\n");
  EXPECT_EQ(ElimLineForReport(""), "1 ib_ok 0\n");
  EXPECT_EQ(ElimLineForReport("{\"verdict\": \"hea"), "1 ib_ok 0\n");
}

}  // namespace
}  // namespace bplace::rdma
