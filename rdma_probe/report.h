#pragma once

// The probe's result and its JSON form, which the daemon parses
// (daemon side: `ib.source = "local"`). Pure; safe from any thread.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rdma_probe/counter_judge.h"
#include "rdma_probe/link_rate.h"
#include "rdma_probe/verbs_api.h"

namespace bplace::rdma {

enum class Verdict {
  kHealthy,    // every checked port passed
  kUnhealthy,  // some reason (this includes no RDMA stack and no HCA)
  kError,      // the probe itself failed: bad config, timeout, internal failure
};

// "healthy", "unhealthy", "error".
const char* VerdictName(Verdict verdict);

// Exit status of `rdma_probe` for a verdict: 0 healthy, 1 unhealthy, 2 error.
int ExitCodeFor(Verdict verdict);

struct PortReport {
  PortFacts facts;
  bool checked = false;  // false: listed only (not selected); see `notes`
  std::optional<LinkRate> rate;
  std::optional<std::string> sysfs_rate;
  std::vector<CounterReading> counters;
  std::optional<LoopbackResult> loopback;
  bool healthy = false;
  std::vector<std::string> reasons;  // "mlx5_0 port 1: ..."
  std::vector<std::string> notes;
};

struct DeviceReport {
  std::string name;
  std::optional<DeviceFacts> facts;  // nullopt when it could not be opened or queried
  std::string error;                 // why not
  std::vector<PortReport> ports;
};

struct Report {
  std::string host;  // short host name
  Verdict verdict = Verdict::kError;
  std::vector<std::string> reasons;  // every port's reasons plus host-wide ones
  std::vector<std::string> notes;
  std::optional<double> rate_gbps;  // lowest rate of the healthy checked ports
  std::chrono::system_clock::time_point probed_at;
  std::vector<DeviceReport> devices;
};

// A report with verdict kError and the one reason given (a timeout, a bad
// config), for when no probe result exists.
Report ErrorReport(std::string host, std::chrono::system_clock::time_point at, std::string reason);

// The JSON document:
//   {"host": "node1", "verdict": "healthy"|"unhealthy"|"error",
//    "reasons": ["mlx5_0 port 1: state DOWN", ...], "rate_gbps": 200 or null,
//    "probed_at": "2024-05-01T12:00:00Z", "notes": [...],
//    "devices": [{"name", "node_guid", "fw_ver", "phys_port_cnt", "error",
//                 "ports": [{"port", "checked", "verdict", "state", "phys_state",
//                            "link_layer", "lid", "sm_lid", "width", "speed",
//                            "rate_gbps", "sysfs_rate", "roce_v2_gid_index",
//                            "counters": {"symbol_error": {"value", "delta",
//                                         "per_hour", "saturated"}, ...},
//                            "loopback": {"ok", "stage", "message", "elapsed_us"} or null,
//                            "reasons", "notes"}]}]}
// Absent facts are null. The top-level keys are a contract with the daemon.
nlohmann::json ReportToJson(const Report& report);

// "2024-05-01T12:00:00Z" (UTC, whole seconds).
std::string FormatIso8601(std::chrono::system_clock::time_point at);

}  // namespace bplace::rdma
