// Probes the real hardware of this host through libibverbs. Skipped where
// there is no HCA (label `hw`: run on an InfiniBand node with
// `ctest -L hw`).

#include <gtest/gtest.h>

#include "rdma_probe/clock.h"
#include "rdma_probe/libibverbs_api.h"
#include "rdma_probe/probe.h"

namespace bplace::rdma {
namespace {

TEST(HardwareTest, ProbesEveryPortOfEveryDevice) {
  LibibverbsApi api("/sys/class/infiniband");
  const DeviceList list = api.ListDevices();
  if (list.status != DeviceListStatus::kOk) {
    GTEST_SKIP() << "no HCA on this host: " << (list.message.empty() ? "no device" : list.message);
  }
  for (const std::string& name : list.names) {
    Result<DeviceFacts> facts = api.QueryDevice(name);
    ASSERT_TRUE(facts) << name << ": " << facts.error().message;
    Result<std::vector<PortFacts>> ports = api.QueryPorts(name);
    ASSERT_TRUE(ports) << name << ": " << ports.error().message;
    EXPECT_EQ(ports->size(), facts->phys_port_cnt) << name;
  }
  SystemClock clock;
  ProbeSettings settings;
  settings.ib.link_layer = LinkLayerWanted::kAny;
  settings.use_state = false;
  const Report report = RunProbe(api, clock, settings);
  EXPECT_NE(report.verdict, Verdict::kError);
  for (const DeviceReport& device : report.devices) {
    for (const PortReport& port : device.ports) {
      if (port.loopback) {
        EXPECT_TRUE(port.loopback->ok) << device.name << " port " << port.facts.port << ": "
                                       << port.loopback->stage << ": " << port.loopback->message;
      }
    }
  }
}

}  // namespace
}  // namespace bplace::rdma
