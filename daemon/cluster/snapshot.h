#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "common/string_map.h"
#include "daemon/cluster/ib_health.h"
#include "daemon/cluster/job_table.h"
#include "daemon/cluster/topology.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace {

// What the load tier knows: `bqueues -w` counters and `bhosts -w` status.
// Immutable once published.
struct LoadState {
  std::unordered_map<std::string, lsf::QueueLoad> queues;  // by queue name
  std::vector<lsf::HostStatus> hosts;                      // in bhosts order
  StringMap<std::size_t> host_index;                       // name -> position in hosts
  // When the bqueues run that produced the counters started: submissions
  // that finished before it are in PEND; later ones are not yet.
  std::chrono::steady_clock::time_point counted_at{};

  const lsf::HostStatus* FindHost(std::string_view name) const;
};

// Whether LSF will run new work on a host in this `bhosts -w` status.
// ok, closed_Full, closed_Busy, closed_Excl, closed_Wind: yes (jobs wait for
// slots, load or a window, as LSF would make them). unavail, unreach,
// closed_Adm, closed_Lock, closed_LIM, closed_EGO, closed_RC: no (down, or an
// admin or the resource connector took it out).
// A status LSF not listed here (e.g. plain `bhosts`' "closed") takes work.
bool HostTakesNewWork(std::string_view bhosts_status);

// Every status `bhosts -w` prints (LSF 10.1; docs/lsf-formats.md "bhosts -w"),
// in that order: the values GET /v1/hosts?status= accepts.
std::vector<std::string_view> BhostsStatuses();

// The state of one refresh tier, for /v1/cluster and /readyz.
struct TierStatus {
  std::optional<SystemTime> last_success;
  std::optional<SystemTime> last_attempt;
  std::string last_error;  // empty after a success
  int consecutive_failures = 0;
  std::chrono::milliseconds last_duration{0};
  // Successful runs since start: a generation number that changes exactly
  // when the tier published new data (memories keyed to "until the next
  // refresh" compare it).
  std::uint64_t successes = 0;
};

// Identity of the cluster from `lsid`; empty when lsid failed.
struct ClusterIdentity {
  std::string cluster_name;
  std::string master_name;
  std::string version;
};

// Job slots of a set of hosts as `bhosts -w` counts them: MAX and NJOBS of
// each host whose MAX is a number; a host with MAX "-" has no slot limit.
struct HostSlots {
  std::int64_t free = 0;       // sum of max(0, MAX - NJOBS)
  std::int64_t max = 0;        // sum of MAX
  std::int64_t largest = 0;    // the largest MAX: no bigger job fits on one host
  std::int64_t unlimited = 0;  // hosts with MAX "-"

  HostSlots& operator+=(const HostSlots& other);
};

// The slots of one `bhosts -w` row.
HostSlots SlotsOf(const lsf::HostStatus& host);

// Per-queue host counts derived from topology x load.
struct QueueHostCounts {
  std::int64_t admitted = 0;  // hosts (known to bhosts) that HOSTS admits
  std::int64_t usable = 0;    // of those, hosts that take new work
  // The usable hosts by InfiniBand verdict (all unknown without a source).
  std::int64_t ib_healthy = 0;
  std::int64_t ib_unhealthy = 0;
  std::int64_t ib_unknown = 0;
  // The slots of the usable hosts, by InfiniBand verdict (index IbHealth).
  HostSlots slots_by_ib[3];

  // The slots of the usable hosts whose verdict is healthy, or (with
  // `include_unhealthy`) any verdict, plus unknown when `include_unknown`.
  HostSlots Slots(bool include_unhealthy, bool include_unknown) const;
};

// Job slots a user's followed jobs hold (dispatched: RUN, SSUSP, USUSP),
// by queue and by execution host: what counts against JL/U. Only jobs the
// jobs tier follows (submitted through bplace, or asked about) are counted.
struct UserSlotUsage {
  std::unordered_map<std::string, std::int64_t> by_queue;
  std::unordered_map<std::string, std::int64_t> by_host;
};
using SlotUsage = std::unordered_map<std::string, UserSlotUsage>;  // by user

// Everything a read needs, published atomically as one immutable object.
// Readers hold a shared_ptr and never lock; a refresh builds a new one.
struct ClusterSnapshot {
  std::shared_ptr<const Topology> topology;  // null until the first topology refresh
  std::shared_ptr<const LoadState> load;     // null until the first load refresh
  SystemTime topology_as_of{};
  SystemTime load_as_of{};
  TierStatus topology_status;
  TierStatus load_status;
  // The InfiniBand tier ([ib] source = "lsload"), published apart from the
  // load tier; its errors are also in ib->last_error.
  TierStatus ib_status;
  // The jobs bplace follows (the jobs tier, daemon/jobs/job_tracker.h); null
  // until the tracker starts.
  std::shared_ptr<const JobTable> jobs;
  TierStatus jobs_status;
  ClusterIdentity identity;
  // Hosts' InfiniBand health; null when no source is configured or it has
  // not answered yet (every host is then unknown).
  std::shared_ptr<const IbHealthState> ib;
  std::unordered_map<std::string, QueueHostCounts> host_counts;  // by queue name
  // Slots the followed jobs hold, from `jobs`; null until the jobs tier
  // has published.
  std::shared_ptr<const SlotUsage> slot_usage;
  // For each host of load->hosts (same positions): how many queues' HOSTS
  // admit it. Counted with host_counts, once per published change of
  // topology or load, so that GET /v1/hosts costs O(hosts) per request.
  std::vector<std::int32_t> queues_admitting;
  // Counts the publishes of SnapshotStore (1 for its first): equal
  // generations mean the same snapshot, so an answer computed from one
  // generation stays true while it is current (api/placement_answer_cache.h).
  std::uint64_t generation = 0;

  // Both tiers have succeeded at least once.
  bool complete() const { return topology && load; }
  // When the counters and host status were read: the `as_of` of reads. The
  // topology is read less often (topology_as_of) and judged against its own
  // interval; see StaleReason.
  SystemTime as_of() const { return load_as_of; }
};

// Why the snapshot is too old to trust at `now`, or nullopt when it is fresh:
// the load tier older than `max_staleness`, or the topology tier older than
// `topology_interval + max_staleness` (it is meant to be up to one interval
// old). The reason names the ages, the limits and each tier's last error.
std::optional<std::string> StaleReason(const ClusterSnapshot& snapshot,
                                       std::chrono::seconds max_staleness,
                                       std::chrono::milliseconds topology_interval, SystemTime now);

// A host's InfiniBand verdict in `ib` (null: no data), kUnknown when absent:
// the source's reading, before HostIbOf judges it against bhosts.
IbHealth HostIbVerdict(const IbHealthState* ib, std::string_view host);

// A host's InfiniBand health as bplace answers it (GET /v1/hosts, /v1/ib,
// /v1/hosts/{host}, placement): the entry of `ib` for `host` (no entry, or
// `ib` null: unknown without reasons), except that a healthy reading of a
// host whose bhosts status (`status`, null when bhosts does not list it)
// takes no new work (HostTakesNewWork: unavail, unreach, closed_Adm, ...) is
// unknown, with a reason naming the status and the reading. Such a host runs
// nothing new, so nothing exercises its fabric, and ib_ok of a host whose
// daemons are down is a stale value: "healthy" would vouch for what nobody
// checks. An unhealthy reading stays unhealthy whatever the status (a failed
// probe is a fact an admin wants to see). Pure.
HostIbHealth HostIbOf(const IbHealthState* ib, const lsf::HostStatus* status,
                      std::string_view host);

// Counts, for every queue of `topology`, the bhosts hosts its HOSTS admits,
// how many of those take new work, and those by InfiniBand verdict in `ib`
// (may be null). Admission comes from topology.admission_index(), decided
// once per topology: this costs one hash look-up per bhosts row (two with
// `ib`) and an AND + popcount of queues x host ids / 64 words, plus a walk
// of the admitted usable hosts for their slots; the same counts as calling
// Topology::AdmitHost for every queue x row. When `queues_admitting` is
// given, it is resized to load.hosts and receives the number of queues that
// admit each host.
std::unordered_map<std::string, QueueHostCounts> CountQueueHosts(
    const Topology& topology, const LoadState& load, const IbHealthState* ib,
    std::vector<std::int32_t>* queues_admitting = nullptr);

// The slots `jobs`' dispatched jobs hold per user, queue and host. Pure;
// O(jobs).
SlotUsage CountSlotsInUse(const JobTable& jobs);

}  // namespace bplace
