#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "rdma_probe/verbs_api.h"

namespace bplace::testing {

// A VerbsApi for unit tests: a table of fake devices and ports, a scripted
// device-list outcome and scripted loopback results, every loopback call
// recorded. No hardware, no libibverbs.
//
// Defaults: the list status follows the table (kNoDevices when empty, kOk
// otherwise) until SetListStatus overrides it; a loopback not scripted
// succeeds.
//
// Not thread-safe, like the real one.
class FakeVerbsApi final : public rdma::VerbsApi {
 public:
  // An ACTIVE, LinkUp InfiniBand port with LID 0x10 + port and SM LID 1,
  // `width` and `speed` as IBTA codes (default 4x HDR = 200 Gb/s).
  static rdma::PortFacts ActiveIbPort(std::uint32_t port, std::uint32_t width = 2,
                                      std::uint32_t speed = 64) {
    rdma::PortFacts p;
    p.port = port;
    p.state = 4;
    p.phys_state = 5;
    p.link_layer = rdma::LinkLayer::kInfiniband;
    p.lid = 0x10 + port;
    p.sm_lid = 1;
    p.active_width = width;
    p.active_speed = speed;
    p.active_mtu = 5;
    p.gid_tbl_len = 8;
    return p;
  }

  // An ACTIVE, LinkUp Ethernet (RoCE) port, 4x EDR (100 Gb/s), no LID,
  // with a RoCE v2 GID at `gid_index` unless that is negative.
  static rdma::PortFacts ActiveRocePort(std::uint32_t port, int gid_index = 3) {
    rdma::PortFacts p = ActiveIbPort(port, 2, 32);
    p.link_layer = rdma::LinkLayer::kEthernet;
    p.lid = 0;
    p.sm_lid = 0;
    p.gid_tbl_len = 16;
    if (gid_index >= 0) p.roce_v2_gid_index = static_cast<std::uint32_t>(gid_index);
    return p;
  }

  // Adds `name` with these ports; phys_port_cnt is their number.
  FakeVerbsApi& AddDevice(const std::string& name, std::vector<rdma::PortFacts> ports) {
    Device device;
    device.facts.name = name;
    device.facts.node_guid = "0c42:a103:0065:1f2e";
    device.facts.fw_ver = "20.31.1014";
    device.facts.vendor_id = 0x02c9;
    device.facts.vendor_part_id = 4123;
    device.facts.phys_port_cnt = static_cast<std::uint32_t>(ports.size());
    device.ports = std::move(ports);
    order_.push_back(name);
    devices_[name] = std::move(device);
    return *this;
  }

  // Makes QueryDevice/QueryPorts of `name` fail with kCommandFailed `message`.
  void FailOpen(const std::string& name, std::string message) {
    devices_.at(name).open_error = std::move(message);
  }

  // Makes ListDevices report `status` with `message` (and no names unless kOk).
  void SetListStatus(rdma::DeviceListStatus status, std::string message = {}) {
    list_status_ = status;
    list_message_ = std::move(message);
  }

  // The loopback on `device` port `port` returns `result`.
  void ScriptLoopback(const std::string& device, std::uint32_t port, rdma::LoopbackResult result) {
    loopbacks_[{device, port}] = std::move(result);
  }

  // Every RunLoopback call so far, as (device, port, timeout).
  struct LoopbackCall {
    std::string device;
    std::uint32_t port;
    std::chrono::milliseconds timeout;
  };
  const std::vector<LoopbackCall>& loopback_calls() const { return loopback_calls_; }

  rdma::DeviceList ListDevices() override {
    rdma::DeviceList list;
    if (list_status_) {
      list.status = *list_status_;
      list.message = list_message_;
      if (list.status == rdma::DeviceListStatus::kOk) list.names = order_;
      return list;
    }
    list.names = order_;
    list.status = order_.empty() ? rdma::DeviceListStatus::kNoDevices : rdma::DeviceListStatus::kOk;
    return list;
  }

  Result<rdma::DeviceFacts> QueryDevice(const std::string& device) override {
    auto it = devices_.find(device);
    if (it == devices_.end()) return Fail(ErrorCode::kNotFound, device + ": no such device");
    if (!it->second.open_error.empty()) {
      return Fail(ErrorCode::kCommandFailed, it->second.open_error);
    }
    return it->second.facts;
  }

  Result<std::vector<rdma::PortFacts>> QueryPorts(const std::string& device) override {
    Result<rdma::DeviceFacts> facts = QueryDevice(device);
    if (!facts) return tl::unexpected(facts.error());
    return devices_.at(device).ports;
  }

  rdma::LoopbackResult RunLoopback(const std::string& device, const rdma::PortFacts& port,
                                   std::chrono::milliseconds timeout) override {
    loopback_calls_.push_back({device, port.port, timeout});
    if (auto it = loopbacks_.find({device, port.port}); it != loopbacks_.end()) return it->second;
    rdma::LoopbackResult ok;
    ok.ok = true;
    ok.elapsed = std::chrono::microseconds(42);
    return ok;
  }

 private:
  struct Device {
    rdma::DeviceFacts facts;
    std::vector<rdma::PortFacts> ports;
    std::string open_error;
  };

  std::vector<std::string> order_;
  std::map<std::string, Device> devices_;
  std::optional<rdma::DeviceListStatus> list_status_;
  std::string list_message_;
  std::map<std::pair<std::string, std::uint32_t>, rdma::LoopbackResult> loopbacks_;
  std::vector<LoopbackCall> loopback_calls_;
};

}  // namespace bplace::testing
