#pragma once

// What rdma_probe checks: the probe's own options, with their defaults (the
// [ib] keys of the config file that are about the probe; see
// config/bplaced.example.toml). rdma_probe needs nothing else to run on a
// compute node.

#include <chrono>
#include <string>
#include <vector>

namespace bplace::rdma {

// Link layer a port must have: InfiniBand, Ethernet (RoCE) or either.
enum class LinkLayerWanted { kInfiniband, kEthernet, kAny };

// The probe's options. Plain data; copy freely.
struct ProbeOptions {
  // Ports to check: "mlx5_0" (every port of the device) or "mlx5_0:1"; empty
  // means every port of every device found.
  std::vector<std::string> devices;
  LinkLayerWanted link_layer = LinkLayerWanted::kInfiniband;
  double min_rate_gbps = 0;                  // active width x speed per port; 0 = no minimum
  bool loopback = true;                      // send one message through an RC loopback QP per port
  std::chrono::seconds loopback_timeout{2};  // completion deadline of that message
  std::chrono::seconds probe_timeout{10};    // one whole probe; past it the verdict is an error
  std::string sysfs_root = "/sys/class/infiniband";
  std::string state_file = "/var/lib/bplace/ib-counters.json";  // counter baseline
  // Error counters judged by their rise per hour ("symbol_error" etc. in
  // ports/N/counters/); link_downed, excessive_buffer_overrun_errors and
  // local_link_integrity_errors fail on any rise.
  double symbol_error_per_hour = 10;
  double link_error_recovery_per_hour = 3;
  double port_rcv_errors_per_hour = 10;
  std::chrono::seconds elim_interval{60};  // `rdma_probe --elim`: seconds between reports
};

}  // namespace bplace::rdma
