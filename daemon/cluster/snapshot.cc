#include "daemon/cluster/snapshot.h"

#include <algorithm>
#include <array>
#include <bit>

#include "daemon/cluster/host_admission_index.h"

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

namespace {

constexpr int kVerdicts = 3;  // IbHealth values, the index of slots_by_ib

void CountUsable(QueueHostCounts& count, IbHealth verdict, std::int64_t hosts,
                 const HostSlots& slots) {
  count.usable += hosts;
  count.slots_by_ib[static_cast<int>(verdict)] += slots;
  switch (verdict) {
    case IbHealth::kHealthy:
      count.ib_healthy += hosts;
      break;
    case IbHealth::kUnhealthy:
      count.ib_unhealthy += hosts;
      break;
    case IbHealth::kUnknown:
      count.ib_unknown += hosts;
      break;
  }
}

// The bhosts rows of one load, by host id of the topology's admission index:
// what a queue's admission bitset is ANDed with. bhosts prints each host
// once, but a name twice would count twice, as it did when every row was
// evaluated on its own; `rows`, `usable_rows` and the summed `slots` keep
// that. Rows without an id (hosts the topology does not mention) are summed
// into `unlisted`, which every queue admitting unlisted hosts adds whole.
struct LoadByHostId {
  std::vector<std::uint64_t> present;  // ids with at least one row
  std::vector<std::uint64_t> usable;   // ids with at least one row taking new work
  std::vector<std::int32_t> rows;
  std::vector<std::int32_t> usable_rows;
  std::vector<IbHealth> verdict;  // one per id: verdicts are by host name
  std::vector<HostSlots> slots;   // of the usable rows
  bool one_row_per_id = true;
  QueueHostCounts unlisted;
};

LoadByHostId GroupByHostId(const HostAdmissionIndex& index, const LoadState& load,
                           const IbHealthState* ib, std::vector<std::int32_t>* queues_admitting) {
  const auto listed = static_cast<std::size_t>(index.unlisted_id());
  LoadByHostId by_id;
  by_id.present.assign(index.words(), 0);
  by_id.usable.assign(index.words(), 0);
  by_id.rows.assign(listed, 0);
  by_id.usable_rows.assign(listed, 0);
  by_id.verdict.assign(listed, IbHealth::kUnknown);
  by_id.slots.assign(listed, HostSlots{});
  if (queues_admitting) queues_admitting->assign(load.hosts.size(), 0);
  for (std::size_t i = 0; i < load.hosts.size(); ++i) {
    const lsf::HostStatus& host = load.hosts[i];
    const std::int32_t id = index.HostId(host.name);
    if (queues_admitting) (*queues_admitting)[i] = index.QueuesAdmitting(id);
    const bool takes_work = HostTakesNewWork(host.status);
    const IbHealth verdict = takes_work ? HostIbVerdict(ib, host.name) : IbHealth::kUnknown;
    if (id == index.unlisted_id()) {
      ++by_id.unlisted.admitted;
      if (takes_work) CountUsable(by_id.unlisted, verdict, 1, SlotsOf(host));
      continue;
    }
    const auto at = static_cast<std::size_t>(id);
    by_id.present[at / 64] |= std::uint64_t{1} << (at % 64);
    if (++by_id.rows[at] > 1) by_id.one_row_per_id = false;
    if (!takes_work) continue;
    by_id.usable[at / 64] |= std::uint64_t{1} << (at % 64);
    ++by_id.usable_rows[at];
    by_id.verdict[at] = verdict;
    by_id.slots[at] += SlotsOf(host);
  }
  return by_id;
}

void AddUnlisted(QueueHostCounts& count, const QueueHostCounts& unlisted) {
  count.admitted += unlisted.admitted;
  count.usable += unlisted.usable;
  count.ib_healthy += unlisted.ib_healthy;
  count.ib_unhealthy += unlisted.ib_unhealthy;
  count.ib_unknown += unlisted.ib_unknown;
  for (int v = 0; v < kVerdicts; ++v) count.slots_by_ib[v] += unlisted.slots_by_ib[v];
}

// One queue: its admission words ANDed with the load's, popcount for the
// admitted hosts, a walk of the set bits for the usable ones (their slots
// are summed per verdict).
void CountQueue(const HostAdmissionIndex& index, std::size_t queue, const LoadByHostId& by_id,
                QueueHostCounts& count) {
  const std::uint64_t* admits = index.QueueWords(queue);
  for (std::size_t w = 0; w < index.words(); ++w) {
    const std::uint64_t present = admits[w] & by_id.present[w];
    if (present == 0) continue;
    if (by_id.one_row_per_id) {
      count.admitted += std::popcount(present);
    } else {
      for (std::uint64_t bits = present; bits != 0; bits &= bits - 1) {
        count.admitted += by_id.rows[w * 64 + static_cast<std::size_t>(std::countr_zero(bits))];
      }
    }
    for (std::uint64_t bits = admits[w] & by_id.usable[w]; bits != 0; bits &= bits - 1) {
      const std::size_t id = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      CountUsable(count, by_id.verdict[id], by_id.usable_rows[id], by_id.slots[id]);
    }
  }
  if (index.Admits(queue, index.unlisted_id())) AddUnlisted(count, by_id.unlisted);
}

}  // namespace

std::unordered_map<std::string, QueueHostCounts> CountQueueHosts(
    const Topology& topology, const LoadState& load, const IbHealthState* ib,
    std::vector<std::int32_t>* queues_admitting) {
  const HostAdmissionIndex& index = topology.admission_index();
  const LoadByHostId by_id = GroupByHostId(index, load, ib, queues_admitting);
  std::unordered_map<std::string, QueueHostCounts> counts;
  counts.reserve(topology.queues().size());
  for (std::size_t q = 0; q < topology.queues().size(); ++q) {
    // Two queues of one name add up in one entry, as they always did.
    CountQueue(index, q, by_id, counts[topology.queues()[q].definition.name]);
  }
  return counts;
}

}  // namespace bplace
