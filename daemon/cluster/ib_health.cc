#include "daemon/cluster/ib_health.h"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

namespace bplace {

const char* IbHealthName(IbHealth health) {
  switch (health) {
    case IbHealth::kHealthy:
      return "healthy";
    case IbHealth::kUnhealthy:
      return "unhealthy";
    case IbHealth::kUnknown:
      return "unknown";
  }
  return "unknown";
}

const HostIbHealth* IbHealthState::Find(std::string_view host) const {
  const auto it = hosts.find(host);
  return it == hosts.end() ? nullptr : &it->second;
}

IbHealthState IbHealthFromLsload(const std::vector<lsf::LoadIndexValue>& rows,
                                 std::chrono::system_clock::time_point as_of) {
  IbHealthState state;
  state.source = "lsload";
  state.as_of = as_of;
  for (const lsf::LoadIndexValue& row : rows) {
    HostIbHealth entry;
    entry.as_of = as_of;
    if (!row.value) {
      // LIM prints "-" for an index no elim reports, and nothing at all past
      // the status of a host whose LIM is down.
      entry.reasons.push_back(row.status.find("unavail") != std::string::npos
                                  ? "LIM on the host is unavailable (lsload status " + row.status +
                                        "); ib_ok unknown"
                                  : "the host does not report ib_ok (is elim.ib installed "
                                    "there?)");
    } else if (*row.value == 1.0) {
      entry.health = IbHealth::kHealthy;
    } else if (*row.value == 0.0) {
      entry.health = IbHealth::kUnhealthy;
      entry.reasons.push_back(
          "ib_ok is 0 (lsload): rdma_probe on the host found its InfiniBand unhealthy");
    } else {
      std::ostringstream text;
      text << "ib_ok has the unexpected value " << *row.value << " (lsload); expected 0 or 1";
      entry.reasons.push_back(text.str());
    }
    state.hosts.insert_or_assign(row.host, std::move(entry));
  }
  return state;
}

HostIbHealth IbHealthFromProbe(std::string_view report_json, int exit_code,
                               const std::optional<std::string>& failure,
                               std::chrono::system_clock::time_point as_of) {
  HostIbHealth entry;
  entry.as_of = as_of;
  entry.health = IbHealth::kUnhealthy;
  if (failure) {
    entry.reasons.push_back("rdma_probe: " + *failure);
    return entry;
  }
  const nlohmann::json report = nlohmann::json::parse(report_json, nullptr, false);
  if (report.is_discarded() || !report.is_object() || !report.contains("verdict") ||
      !report["verdict"].is_string()) {
    entry.reasons.push_back("rdma_probe exited with status " + std::to_string(exit_code) +
                            " without a readable JSON report");
    return entry;
  }
  const std::string verdict = report["verdict"].get<std::string>();
  if (const auto reasons = report.find("reasons"); reasons != report.end() && reasons->is_array()) {
    for (const auto& reason : *reasons) {
      if (reason.is_string()) entry.reasons.push_back(reason.get<std::string>());
    }
  }
  if (verdict == "healthy" && exit_code == 0) {
    entry.health = IbHealth::kHealthy;
    return entry;
  }
  if (verdict == "healthy" || (verdict == "unhealthy" && exit_code != 1)) {
    entry.reasons.push_back("rdma_probe said " + verdict + " but exited with status " +
                            std::to_string(exit_code));
  } else if (verdict == "error") {
    entry.reasons.insert(entry.reasons.begin(), "rdma_probe could not finish its checks");
  } else if (verdict != "unhealthy") {
    entry.reasons.push_back("rdma_probe gave the unknown verdict `" + verdict + "`");
  }
  return entry;
}

}  // namespace bplace
