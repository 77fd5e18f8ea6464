#include "daemon/snapshot.h"

#include <array>

namespace bplace {

const lsf::HostStatus* LoadState::FindHost(std::string_view name) const {
  const auto it = host_index.find(name);
  return it == host_index.end() ? nullptr : &hosts[it->second];
}

bool HostTakesNewWork(std::string_view bhosts_status) {
  static constexpr std::array<std::string_view, 7> kOut = {
      "unavail", "unreach", "closed_Adm", "closed_Lock", "closed_LIM", "closed_EGO", "closed_RC"};
  for (std::string_view out : kOut) {
    if (bhosts_status == out) return false;
  }
  return true;
}

std::optional<std::string> StaleReason(const ClusterSnapshot& snapshot,
                                       std::chrono::seconds max_staleness,
                                       std::chrono::milliseconds topology_interval,
                                       SystemTime now) {
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  const auto load_age = duration_cast<seconds>(now - snapshot.load_as_of);
  const auto topology_age = duration_cast<seconds>(now - snapshot.topology_as_of);
  const auto topology_limit = duration_cast<seconds>(topology_interval) + max_staleness;
  std::string reason;
  if (load_age > max_staleness) {
    reason = "queue and host load is " + std::to_string(load_age.count()) +
             " s old (server.max_staleness_s " + std::to_string(max_staleness.count()) + ")";
    if (!snapshot.load_status.last_error.empty()) {
      reason += "; last load refresh: " + snapshot.load_status.last_error;
    }
  }
  if (topology_age > topology_limit) {
    if (!reason.empty()) reason += "; ";
    reason += "topology is " + std::to_string(topology_age.count()) +
              " s old (lsf.topology_refresh_s + server.max_staleness_s = " +
              std::to_string(topology_limit.count()) + ")";
    if (!snapshot.topology_status.last_error.empty()) {
      reason += "; last topology refresh: " + snapshot.topology_status.last_error;
    }
  }
  if (reason.empty()) return std::nullopt;
  return reason;
}

IbHealth HostIbVerdict(const IbHealthState* ib, std::string_view host) {
  if (ib == nullptr) return IbHealth::kUnknown;
  const HostIbHealth* entry = ib->Find(host);
  return entry ? entry->health : IbHealth::kUnknown;
}

std::unordered_map<std::string, QueueHostCounts> CountQueueHosts(const Topology& topology,
                                                                 const LoadState& load,
                                                                 const IbHealthState* ib) {
  std::unordered_map<std::string, QueueHostCounts> counts;
  for (const QueueTopology& queue : topology.queues()) {
    QueueHostCounts& count = counts[queue.definition.name];
    for (const lsf::HostStatus& host : load.hosts) {
      if (!topology.AdmitHost(queue, host.name).admitted()) continue;
      ++count.admitted;
      if (!HostTakesNewWork(host.status)) continue;
      ++count.usable;
      switch (HostIbVerdict(ib, host.name)) {
        case IbHealth::kHealthy:
          ++count.ib_healthy;
          break;
        case IbHealth::kUnhealthy:
          ++count.ib_unhealthy;
          break;
        case IbHealth::kUnknown:
          ++count.ib_unknown;
          break;
      }
    }
  }
  return counts;
}

}  // namespace bplace
