#include "rdma_probe/probe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/fakes/fake_verbs_api.h"
#include "tests/rdma_probe/test_support.h"

namespace bplace::rdma {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::FakeVerbsApi;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class ProbeTest : public ::testing::Test {
 protected:
  ProbeTest() {
    settings_.host = "node1";
    settings_.ib.sysfs_root = tree_.sysfs_root();
    settings_.ib.state_file = tree_.state_file();
    settings_.boot_id_path = tree_.boot_id_path();
    settings_.use_state = false;
  }

  Report Run() { return RunProbe(api_, clock_, settings_); }

  testing::SysfsTree tree_;
  testing::ManualClock clock_;
  FakeVerbsApi api_;
  ProbeSettings settings_;
};

TEST_F(ProbeTest, NoRdmaStackIsUnhealthyWithReason) {
  api_.SetListStatus(DeviceListStatus::kNoStack, "ibv_get_device_list: Function not implemented");
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons,
              ElementsAre("no RDMA stack (ibv_get_device_list: Function not implemented)"));
  EXPECT_THAT(report.devices, IsEmpty());
  EXPECT_FALSE(report.rate_gbps);
}

TEST_F(ProbeTest, EmptyDeviceListIsNoHca) {
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons, ElementsAre(HasSubstr("no HCA")));
}

TEST_F(ProbeTest, HealthyHdrPortReportsItsRateAndRunsLoopback) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  tree_.SetRate("mlx5_0", 1, "200 Gb/sec (4X HDR)");
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy) << ::testing::PrintToString(report.reasons);
  EXPECT_THAT(report.reasons, IsEmpty());
  ASSERT_TRUE(report.rate_gbps);
  EXPECT_DOUBLE_EQ(*report.rate_gbps, 200);
  ASSERT_EQ(api_.loopback_calls().size(), 1u);
  EXPECT_EQ(api_.loopback_calls()[0].port, 1u);
  EXPECT_EQ(api_.loopback_calls()[0].timeout, std::chrono::seconds(2));
  ASSERT_EQ(report.devices.size(), 1u);
  ASSERT_EQ(report.devices[0].ports.size(), 1u);
  EXPECT_EQ(report.devices[0].ports[0].rate->width, "4x");
  EXPECT_EQ(report.devices[0].ports[0].rate->speed, "HDR");
}

TEST_F(ProbeTest, PortDownIsUnhealthyAndSkipsLoopback) {
  PortFacts port = FakeVerbsApi::ActiveIbPort(1);
  port.state = 1;       // DOWN
  port.phys_state = 3;  // Disabled
  api_.AddDevice("mlx5_0", {port});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons, Contains("mlx5_0 port 1: state DOWN"));
  EXPECT_THAT(report.reasons, Contains("mlx5_0 port 1: phys_state Disabled"));
  EXPECT_THAT(api_.loopback_calls(), IsEmpty());
  EXPECT_FALSE(report.rate_gbps);
}

TEST_F(ProbeTest, PollingPhysStateIsAReason) {
  PortFacts port = FakeVerbsApi::ActiveIbPort(1);
  port.state = 1;
  port.phys_state = 2;
  api_.AddDevice("mlx5_0", {port});
  EXPECT_THAT(Run().reasons, Contains("mlx5_0 port 1: phys_state Polling"));
}

TEST_F(ProbeTest, InitPortWithoutSubnetManagerNamesLidAndSmLid) {
  PortFacts port = FakeVerbsApi::ActiveIbPort(1);
  port.state = 2;  // INIT: link up, no SM has configured it
  port.lid = 0;
  port.sm_lid = 0;
  api_.AddDevice("mlx5_0", {port});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons, Contains("mlx5_0 port 1: state INIT"));
  EXPECT_THAT(report.reasons, Contains(HasSubstr("mlx5_0 port 1: LID 0")));
  EXPECT_THAT(report.reasons, Contains(HasSubstr("mlx5_0 port 1: SM LID 0")));
  EXPECT_THAT(api_.loopback_calls(), IsEmpty());
}

TEST_F(ProbeTest, DowntrainFrom4xTo1xFallsBelowMinimum) {
  settings_.ib.min_rate_gbps = 100;
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1, /*width=*/1, /*speed=*/32)});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons,
              ElementsAre("mlx5_0 port 1: rate 25 Gb/s (1x EDR) below the minimum 100 Gb/s"));
}

TEST_F(ProbeTest, FullWidthEdrMeetsTheSameMinimum) {
  settings_.ib.min_rate_gbps = 100;
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1, /*width=*/2, /*speed=*/32)});
  EXPECT_EQ(Run().verdict, Verdict::kHealthy);
}

TEST_F(ProbeTest, HdrBelowAnNdrMinimum) {
  settings_.ib.min_rate_gbps = 400;
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1, 2, 64)});
  EXPECT_THAT(Run().reasons,
              ElementsAre("mlx5_0 port 1: rate 200 Gb/s (4x HDR) below the minimum 400 Gb/s"));
}

TEST_F(ProbeTest, NdrMeetsAnNdrMinimum) {
  settings_.ib.min_rate_gbps = 400;
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1, 2, 128)});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy);
  EXPECT_DOUBLE_EQ(*report.rate_gbps, 400);
}

TEST_F(ProbeTest, RocePortWithoutV2GidIsUnhealthy) {
  settings_.ib.link_layer = LinkLayerWanted::kEthernet;
  api_.AddDevice("mlx5_2", {FakeVerbsApi::ActiveRocePort(1, /*gid_index=*/-1)});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons, ElementsAre("mlx5_2 port 1: no RoCE v2 GID"));
  EXPECT_THAT(api_.loopback_calls(), IsEmpty());
}

TEST_F(ProbeTest, RocePortWithV2GidIsHealthyWithoutLid) {
  settings_.ib.link_layer = LinkLayerWanted::kEthernet;
  api_.AddDevice("mlx5_2", {FakeVerbsApi::ActiveRocePort(1, 3)});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy) << ::testing::PrintToString(report.reasons);
  EXPECT_EQ(api_.loopback_calls().size(), 1u);
}

TEST_F(ProbeTest, ExplicitRocePortIsUnhealthyWhenInfinibandIsRequired) {
  settings_.ib.devices = {"mlx5_2:1"};
  api_.AddDevice("mlx5_2", {FakeVerbsApi::ActiveRocePort(1, 3)});
  EXPECT_THAT(Run().reasons, Contains("mlx5_2 port 1: link layer Ethernet, expected InfiniBand"));
}

TEST_F(ProbeTest, WithoutDeviceListPortsOfOtherLinkLayerAreListedNotChecked) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  api_.AddDevice("mlx5_2", {FakeVerbsApi::ActiveRocePort(1, -1)});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy) << ::testing::PrintToString(report.reasons);
  ASSERT_EQ(report.devices.size(), 2u);
  EXPECT_FALSE(report.devices[1].ports[0].checked);
  EXPECT_THAT(report.devices[1].ports[0].notes, Contains(HasSubstr("link layer Ethernet")));
}

TEST_F(ProbeTest, OnlyPortsOfOtherLinkLayerIsUnhealthy) {
  api_.AddDevice("mlx5_2", {FakeVerbsApi::ActiveRocePort(1)});
  EXPECT_THAT(Run().reasons, ElementsAre("no port with link layer InfiniBand found"));
}

TEST_F(ProbeTest, LoopbackTimeoutNamesStage) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  api_.ScriptLoopback("mlx5_0", 1, LoopbackResult{false, "poll", "timeout", {}});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons, ElementsAre("mlx5_0 port 1: loopback poll: timeout"));
  EXPECT_FALSE(report.rate_gbps);
}

TEST_F(ProbeTest, LoopbackErrorCompletionNamesStatus) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  api_.ScriptLoopback(
      "mlx5_0", 1,
      LoopbackResult{false, "wc", "RETRY_EXC_ERR (transport retry counter exceeded)", {}});
  EXPECT_THAT(Run().reasons,
              ElementsAre("mlx5_0 port 1: loopback wc: RETRY_EXC_ERR (transport retry counter "
                          "exceeded)"));
}

TEST_F(ProbeTest, NoLoopbackOptionSkipsIt) {
  settings_.ib.loopback = false;
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  api_.ScriptLoopback("mlx5_0", 1, LoopbackResult{false, "rtr", "Invalid argument", {}});
  EXPECT_EQ(Run().verdict, Verdict::kHealthy);
  EXPECT_THAT(api_.loopback_calls(), IsEmpty());
}

TEST_F(ProbeTest, FailingDeviceNextToHealthyOneMakesHostUnhealthyButKeepsRate) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  PortFacts down = FakeVerbsApi::ActiveIbPort(1);
  down.state = 1;
  down.phys_state = 2;
  api_.AddDevice("mlx5_1", {down});
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons,
              ElementsAre("mlx5_1 port 1: state DOWN", "mlx5_1 port 1: phys_state Polling"));
  ASSERT_TRUE(report.rate_gbps);  // the healthy port's rate
  EXPECT_DOUBLE_EQ(*report.rate_gbps, 200);
  EXPECT_TRUE(report.devices[0].ports[0].healthy);
  EXPECT_FALSE(report.devices[1].ports[0].healthy);
}

TEST_F(ProbeTest, DeviceThatCannotBeOpenedIsAReason) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  api_.FailOpen("mlx5_0", "ibv_open_device: Permission denied");
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons, ElementsAre("mlx5_0: ibv_open_device: Permission denied"));
}

TEST_F(ProbeTest, MultiPortDeviceEnumeratesEveryPort) {
  PortFacts second = FakeVerbsApi::ActiveIbPort(2);
  second.state = 1;
  second.phys_state = 2;
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1), second});
  const Report report = Run();
  ASSERT_EQ(report.devices[0].ports.size(), 2u);
  EXPECT_EQ(report.devices[0].ports[1].facts.port, 2u);
  EXPECT_TRUE(report.devices[0].ports[1].checked);
  EXPECT_THAT(report.reasons, Contains("mlx5_0 port 2: state DOWN"));
  ASSERT_EQ(api_.loopback_calls().size(), 1u);
  EXPECT_EQ(api_.loopback_calls()[0].port, 1u);
}

TEST_F(ProbeTest, SelectingOnePortLeavesTheOtherUnchecked) {
  PortFacts second = FakeVerbsApi::ActiveIbPort(2);
  second.state = 1;
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1), second});
  settings_.ib.devices = {"mlx5_0:1"};
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy) << ::testing::PrintToString(report.reasons);
  EXPECT_FALSE(report.devices[0].ports[1].checked);
}

TEST_F(ProbeTest, SelectedPortOnlyNotOnPortOne) {
  PortFacts first = FakeVerbsApi::ActiveIbPort(1);
  first.state = 1;
  api_.AddDevice("mlx5_0", {first, FakeVerbsApi::ActiveIbPort(2)});
  settings_.ib.devices = {"mlx5_0:2"};
  EXPECT_EQ(Run().verdict, Verdict::kHealthy);
  ASSERT_EQ(api_.loopback_calls().size(), 1u);
  EXPECT_EQ(api_.loopback_calls()[0].port, 2u);
}

TEST_F(ProbeTest, MissingSelectedDeviceAndPortAreReasons) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  settings_.ib.devices = {"mlx5_0:3", "mlx5_9"};
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kUnhealthy);
  EXPECT_THAT(report.reasons, Contains("mlx5_9: no such device (found: mlx5_0)"));
  EXPECT_THAT(report.reasons, Contains("mlx5_0 port 3: no such port (the device has 1)"));
}

TEST_F(ProbeTest, BadSelectorIsAProbeError) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  settings_.ib.devices = {"mlx5_0:x"};
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kError);
  EXPECT_THAT(report.reasons, ElementsAre(HasSubstr("config: ib.devices: bad device")));
}

TEST_F(ProbeTest, PortQueryFailureIsAReason) {
  PortFacts port;
  port.port = 1;
  port.error = "ibv_query_port: Input/output error";
  api_.AddDevice("mlx5_0", {port});
  EXPECT_THAT(Run().reasons, ElementsAre("mlx5_0 port 1: ibv_query_port: Input/output error"));
}

TEST_F(ProbeTest, SysfsRateMismatchIsAReason) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  tree_.SetRate("mlx5_0", 1, "100 Gb/sec (4X EDR)");
  EXPECT_THAT(Run().reasons,
              ElementsAre("mlx5_0 port 1: sysfs rate 100 Gb/s differs from 200 Gb/s (4x HDR) "
                          "from ibv_query_port"));
}

TEST_F(ProbeTest, UnreadableSysfsRateIsOnlyANote) {
  api_.AddDevice("mlx5_0", {FakeVerbsApi::ActiveIbPort(1)});
  tree_.SetRate("mlx5_0", 1, "fast");
  const Report report = Run();
  EXPECT_EQ(report.verdict, Verdict::kHealthy);
  EXPECT_THAT(report.devices[0].ports[0].notes, Contains(HasSubstr("unreadable rate")));
}

TEST(DeviceSelectorTest, ParsesDeviceAndPort) {
  Result<std::vector<DeviceSelector>> parsed = ParseDeviceSelectors({"mlx5_0", "mlx5_1:2"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].device, "mlx5_0");
  EXPECT_FALSE((*parsed)[0].port);
  EXPECT_EQ((*parsed)[1].device, "mlx5_1");
  EXPECT_EQ((*parsed)[1].port, 2u);
}

TEST(DeviceSelectorTest, RejectsPortZeroAndEmptyName) {
  EXPECT_FALSE(ParseDeviceSelectors({"mlx5_0:0"}));
  EXPECT_FALSE(ParseDeviceSelectors({":1"}));
  EXPECT_FALSE(ParseDeviceSelectors({"mlx5_0:"}));
}

}  // namespace
}  // namespace bplace::rdma
