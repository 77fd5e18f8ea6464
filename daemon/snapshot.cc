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

std::unordered_map<std::string, QueueHostCounts> CountQueueHosts(const Topology& topology,
                                                                 const LoadState& load) {
  std::unordered_map<std::string, QueueHostCounts> counts;
  for (const QueueTopology& queue : topology.queues()) {
    QueueHostCounts& count = counts[queue.definition.name];
    for (const lsf::HostStatus& host : load.hosts) {
      if (!topology.AdmitHost(queue, host.name).admitted()) continue;
      ++count.admitted;
      if (HostTakesNewWork(host.status)) ++count.usable;
    }
  }
  return counts;
}

}  // namespace bplace
