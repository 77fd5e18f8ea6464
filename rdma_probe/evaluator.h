#pragma once

// The verdict on one port from what was observed of it. Pure: no I/O, no
// clock, no verbs; safe from any thread. Tested with plain structs.

#include <optional>
#include <string>
#include <vector>

#include "rdma_probe/link_rate.h"
#include "rdma_probe/probe_options.h"
#include "rdma_probe/verbs_api.h"

namespace bplace::rdma {

// Everything the probe learnt about one checked port.
struct PortObservation {
  std::string device;
  PortFacts facts;
  // Text of sysfs ports/N/rate ("100 Gb/sec (4X EDR)"); nullopt when it
  // could not be read (not a reason: the verbs rate still decides).
  std::optional<std::string> sysfs_rate;
  std::vector<std::string> counter_reasons;  // from JudgeCounters, unprefixed
  std::optional<LoopbackResult> loopback;    // nullopt: not run
};

struct PortEvaluation {
  bool healthy = false;
  std::optional<LinkRate> rate;      // decoded active width x speed, when ACTIVE and decodable
  std::vector<std::string> reasons;  // each "mlx5_0 port 1: <finding>"
  std::vector<std::string> notes;    // unprefixed remarks that do not affect the verdict
};

// Judges `observation` against `config`. A port is healthy when it has no
// reason. Reasons, in this order:
//   "ibv_query_port: <errno text>"             the port could not be queried (nothing else judged)
//   "state DOWN"                               port state is not ACTIVE
//   "phys_state Polling"                       physical state is not LinkUp
//   "link layer Ethernet, expected InfiniBand" unless config.link_layer is kAny
//   "LID 0 (not configured by a subnet manager)", "SM LID 0 (no subnet manager)"  InfiniBand only
//   "no RoCE v2 GID"                           Ethernet ports without one
//   "rate 25 Gb/s (1x EDR) below the minimum 100 Gb/s"
//   "unknown active_width code 3"              (and active_speed)
//   "sysfs rate 100 Gb/s differs from 200 Gb/s (4x HDR) from ibv_query_port"
//   counter reasons as given
//   "loopback rtr: Invalid argument"           a loopback that failed
// Width, speed and rate are only judged on an ACTIVE port.
PortEvaluation EvaluatePort(const PortObservation& observation, const ProbeOptions& config);

// Whether the loopback test should run on a port: config.loopback is set,
// the port could be queried, is ACTIVE with phys state LinkUp, has a LID on
// InfiniBand and a RoCE v2 GID on Ethernet. On any other port the passive
// reasons already make it unhealthy, and creating a QP would only add noise.
bool ShouldRunLoopback(const PortFacts& port, const ProbeOptions& config);

}  // namespace bplace::rdma
