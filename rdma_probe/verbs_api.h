#pragma once

// The seam between rdma_probe and libibverbs: devices, ports and the loopback
// test as plain structs. No ibv_* type appears here, so the evaluator and the
// probe are tested with tests/fakes/fake_verbs_api.h and no hardware.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace bplace::rdma {

// What ibv_get_device_list found.
enum class DeviceListStatus {
  kOk,         // at least one device
  kNoStack,    // libibverbs has no kernel support (ENOSYS): no RDMA stack loaded
  kNoDevices,  // the stack is there but lists no device: no HCA
  kError,      // any other failure; `message` says which
};

struct DeviceList {
  DeviceListStatus status = DeviceListStatus::kNoDevices;
  std::vector<std::string> names;  // as ibv_get_device_name gives them ("mlx5_0"), in list order
  std::string message;             // for kError (and kNoStack): the call and errno text
};

// ibv_query_device, the fields the report shows.
struct DeviceFacts {
  std::string name;
  std::string node_guid;  // "0c42:a103:0065:1f2e", as ibstat prints it
  std::string fw_ver;
  std::uint32_t vendor_id = 0;
  std::uint32_t vendor_part_id = 0;
  std::uint32_t phys_port_cnt = 0;
};

// Link layer of a port (ibv_port_attr::link_layer).
enum class LinkLayer { kUnspecified, kInfiniband, kEthernet };

// ibv_query_port of one port, with the raw IBTA codes: `state` is
// enum ibv_port_state (4 = ACTIVE), `phys_state` the PortPhysicalState
// (5 = LinkUp), `active_width` and `active_speed` the PortInfo bit codes
// decoded by link_rate.h. `active_mtu` is enum ibv_mtu (1 = 256 .. 5 = 4096).
struct PortFacts {
  std::uint32_t port = 0;  // 1-based
  int state = 0;
  int phys_state = 0;
  LinkLayer link_layer = LinkLayer::kUnspecified;
  std::uint32_t lid = 0;
  std::uint32_t sm_lid = 0;
  std::uint32_t active_width = 0;
  std::uint32_t active_speed = 0;  // from active_speed_ex where rdma-core has it (XDR)
  int active_mtu = 0;
  int gid_tbl_len = 0;
  // Ethernet (RoCE) ports: index of a RoCE v2 GID, if the port has one.
  std::optional<std::uint32_t> roce_v2_gid_index;
  // Non-empty when ibv_query_port failed for this port ("ibv_query_port: ...");
  // the other fields are then meaningless.
  std::string error;
};

// Outcome of the RC loopback test on one port.
struct LoopbackResult {
  bool ok = false;
  // Where it stopped: "open", "gid", "pd", "cq", "mr", "qp", "init", "rtr",
  // "rts", "post_recv", "post_send", "poll", "wc", "data"; empty when ok.
  std::string stage;
  std::string message;  // "Invalid argument", "timeout", "RETRY_EXC_ERR (...)"; empty when ok
  std::chrono::microseconds elapsed{0};
};

// Access to the RDMA devices of this host.
//
// Every call blocks on the driver; a driver can hang a call indefinitely,
// which is why the probe runs under a watchdog (see rdma_probe/main.cc).
// Implementations need not be thread-safe: one probe uses one VerbsApi from
// one thread.
class VerbsApi {
 public:
  virtual ~VerbsApi() = default;

  // Lists the devices. Never fails in any other way than through the status.
  virtual DeviceList ListDevices() = 0;

  // Opens `device` (a name from ListDevices) and queries it. Fails with
  // kNotFound for an unknown name and kCommandFailed naming the call and
  // errno ("ibv_open_device: Permission denied") otherwise.
  virtual Result<DeviceFacts> QueryDevice(const std::string& device) = 0;

  // Queries every port 1..phys_port_cnt of `device`, in order. A port whose
  // query fails is returned with `error` set. Fails as QueryDevice does.
  virtual Result<std::vector<PortFacts>> QueryPorts(const std::string& device) = 0;

  // Sends one message from an RC QP to itself on `port` of `device` and waits
  // for both completions until `timeout` has passed. `port` is what
  // QueryPorts returned (its LID, link layer and RoCE v2 GID index address
  // the QP). Never throws; every failure is in the result.
  virtual LoopbackResult RunLoopback(const std::string& device, const PortFacts& port,
                                     std::chrono::milliseconds timeout) = 0;
};

}  // namespace bplace::rdma
