#include "daemon/snapshot.h"

#include <algorithm>
#include <array>

namespace bplace {

const lsf::HostStatus* LoadState::FindHost(std::string_view name) const {
  const auto it = host_index.find(name);
  return it == host_index.end() ? nullptr : &hosts[it->second];
}

namespace {

struct BhostsStatus {
  std::string_view name;
  bool takes_new_work;
};

// The one list of `bhosts -w` statuses and whether each takes new work.
constexpr std::array<BhostsStatus, 12> kBhostsStatuses = {{
    {"ok", true},
    {"closed_Adm", false},
    {"closed_Busy", true},
    {"closed_Excl", true},
    {"closed_Full", true},
    {"closed_LIM", false},
    {"closed_Lock", false},
    {"closed_Wind", true},
    {"closed_RC", false},
    {"closed_EGO", false},
    {"unavail", false},
    {"unreach", false},
}};

}  // namespace

bool HostTakesNewWork(std::string_view bhosts_status) {
  for (const BhostsStatus& status : kBhostsStatuses) {
    if (bhosts_status == status.name) return status.takes_new_work;
  }
  return true;
}

std::vector<std::string_view> BhostsStatuses() {
  std::vector<std::string_view> names;
  for (const BhostsStatus& status : kBhostsStatuses) names.push_back(status.name);
  return names;
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

HostIbHealth HostIbOf(const IbHealthState* ib, const lsf::HostStatus* status,
                      std::string_view host) {
  const HostIbHealth* entry = ib ? ib->Find(host) : nullptr;
  HostIbHealth health = entry ? *entry : HostIbHealth{};
  if (health.health != IbHealth::kHealthy || status == nullptr ||
      HostTakesNewWork(status->status)) {
    return health;
  }
  health.health = IbHealth::kUnknown;
  health.reasons.insert(health.reasons.begin(), "bhosts -w says " + status->status +
                                                    ": the host takes no new work, so " +
                                                    "its last healthy InfiniBand reading (" +
                                                    ib->source + ") is not vouched for");
  return health;
}

HostSlots& HostSlots::operator+=(const HostSlots& other) {
  free += other.free;
  max += other.max;
  largest = std::max(largest, other.largest);
  unlimited += other.unlimited;
  return *this;
}

HostSlots SlotsOf(const lsf::HostStatus& host) {
  HostSlots slots;
  if (!host.max) {
    slots.unlimited = 1;
    return slots;
  }
  slots.max = *host.max;
  slots.largest = *host.max;
  slots.free = std::max<std::int64_t>(0, *host.max - host.njobs);
  return slots;
}

HostSlots QueueHostCounts::Slots(bool include_unhealthy, bool include_unknown) const {
  HostSlots sum = slots_by_ib[static_cast<int>(IbHealth::kHealthy)];
  if (include_unhealthy) sum += slots_by_ib[static_cast<int>(IbHealth::kUnhealthy)];
  if (include_unknown) sum += slots_by_ib[static_cast<int>(IbHealth::kUnknown)];
  return sum;
}

SlotUsage CountSlotsInUse(const JobTable& jobs) {
  SlotUsage usage;
  for (const auto& [key, job] : jobs.jobs) {
    const lsf::JobRecord& record = job->lsf;
    const lsf::JobStatus status = record.status_kind();
    const bool dispatched = status == lsf::JobStatus::kRun || status == lsf::JobStatus::kSsusp ||
                            status == lsf::JobStatus::kUsusp;
    if (!dispatched || job->left_lsf || record.user.empty()) continue;
    UserSlotUsage& user = usage[record.user];
    user.by_queue[record.queue] += record.slots;
    for (const lsf::ExecHost& host : record.exec_hosts) user.by_host[host.name] += host.slots;
  }
  return usage;
}

std::unordered_map<std::string, QueueHostCounts> CountQueueHosts(
    const Topology& topology, const LoadState& load, const IbHealthState* ib,
    std::vector<std::int32_t>* queues_admitting) {
  std::unordered_map<std::string, QueueHostCounts> counts;
  if (queues_admitting) queues_admitting->assign(load.hosts.size(), 0);
  for (const QueueTopology& queue : topology.queues()) {
    QueueHostCounts& count = counts[queue.definition.name];
    for (std::size_t i = 0; i < load.hosts.size(); ++i) {
      const lsf::HostStatus& host = load.hosts[i];
      if (!topology.AdmitHost(queue, host.name).admitted()) continue;
      if (queues_admitting) ++(*queues_admitting)[i];
      ++count.admitted;
      if (!HostTakesNewWork(host.status)) continue;
      ++count.usable;
      const IbHealth verdict = HostIbVerdict(ib, host.name);
      count.slots_by_ib[static_cast<int>(verdict)] += SlotsOf(host);
      switch (verdict) {
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
