#include "rdma_probe/report.h"

#include <ctime>

namespace bplace::rdma {
namespace {

using nlohmann::json;

template <typename T>
json OrNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json PortToJson(const PortReport& port) {
  const PortFacts& f = port.facts;
  json j = {{"port", f.port},
            {"checked", port.checked},
            {"verdict", !port.checked  ? "not_checked"
                        : port.healthy ? "healthy"
                                       : "unhealthy"},
            {"reasons", port.reasons},
            {"notes", port.notes}};
  if (!f.error.empty()) {
    j["error"] = f.error;
    return j;
  }
  j["state"] = PortStateName(f.state);
  j["phys_state"] = PhysStateName(f.phys_state);
  j["link_layer"] = LinkLayerName(f.link_layer);
  j["lid"] = f.lid;
  j["sm_lid"] = f.sm_lid;
  j["width"] = port.rate ? json(port.rate->width) : json(nullptr);
  j["speed"] = port.rate ? json(port.rate->speed) : json(nullptr);
  j["rate_gbps"] = port.rate ? json(port.rate->gbps) : json(nullptr);
  j["sysfs_rate"] = OrNull(port.sysfs_rate);
  j["roce_v2_gid_index"] = OrNull(f.roce_v2_gid_index);
  json counters = json::object();
  for (const CounterReading& c : port.counters) {
    counters[c.name] = {{"value", c.value},
                        {"delta", OrNull(c.delta)},
                        {"per_hour", OrNull(c.per_hour)},
                        {"saturated", c.saturated}};
  }
  j["counters"] = counters;
  if (port.loopback) {
    j["loopback"] = {{"ok", port.loopback->ok},
                     {"stage", port.loopback->stage},
                     {"message", port.loopback->message},
                     {"elapsed_us", port.loopback->elapsed.count()}};
  } else {
    j["loopback"] = nullptr;
  }
  return j;
}

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kHealthy:
      return "healthy";
    case Verdict::kUnhealthy:
      return "unhealthy";
    case Verdict::kError:
      break;
  }
  return "error";
}

int ExitCodeFor(Verdict verdict) {
  switch (verdict) {
    case Verdict::kHealthy:
      return 0;
    case Verdict::kUnhealthy:
      return 1;
    case Verdict::kError:
      break;
  }
  return 2;
}

Report ErrorReport(std::string host, std::chrono::system_clock::time_point at, std::string reason) {
  Report report;
  report.host = std::move(host);
  report.verdict = Verdict::kError;
  report.reasons.push_back(std::move(reason));
  report.probed_at = at;
  return report;
}

std::string FormatIso8601(std::chrono::system_clock::time_point at) {
  const std::time_t t = std::chrono::system_clock::to_time_t(at);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json ReportToJson(const Report& report) {
  json devices = json::array();
  for (const DeviceReport& device : report.devices) {
    json d = {{"name", device.name}};
    d["node_guid"] = device.facts ? json(device.facts->node_guid) : json(nullptr);
    d["fw_ver"] = device.facts ? json(device.facts->fw_ver) : json(nullptr);
    d["phys_port_cnt"] = device.facts ? json(device.facts->phys_port_cnt) : json(nullptr);
    d["error"] = device.error.empty() ? json(nullptr) : json(device.error);
    json ports = json::array();
    for (const PortReport& port : device.ports) ports.push_back(PortToJson(port));
    d["ports"] = ports;
    devices.push_back(d);
  }
  return {{"host", report.host},
          {"verdict", VerdictName(report.verdict)},
          {"reasons", report.reasons},
          {"rate_gbps", OrNull(report.rate_gbps)},
          {"probed_at", FormatIso8601(report.probed_at)},
          {"notes", report.notes},
          {"devices", devices}};
}

}  // namespace bplace::rdma
