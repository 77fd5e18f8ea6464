#include "daemon/placement.h"

#include <algorithm>
#include <tuple>

namespace bplace {

const char* ExclusionCodeName(ExclusionCode code) {
  switch (code) {
    case ExclusionCode::kNotRequested:
      return "not_requested";
    case ExclusionCode::kExcludedByConfig:
      return "excluded_by_config";
    case ExclusionCode::kQueueClosed:
      return "queue_closed";
    case ExclusionCode::kHostNotInQueue:
      return "host_not_in_queue";
    case ExclusionCode::kHostExcluded:
      return "host_excluded";
    case ExclusionCode::kRemoteOnly:
      return "remote_hosts_only";
    case ExclusionCode::kUserNotPermitted:
      return "user_not_permitted";
    case ExclusionCode::kRejectedByLsf:
      return "rejected_by_lsf";
    case ExclusionCode::kHostUnavailable:
      return "host_unavailable";
    case ExclusionCode::kNoUsableHost:
      return "no_usable_host";
    case ExclusionCode::kNoHealthyIbHost:
      return "no_healthy_ib_host";
  }
  return "unknown";
}

namespace {

template <typename Map>
const typename Map::mapped_type* Lookup(const Map* map, const std::string& key) {
  if (map == nullptr) return nullptr;
  const auto it = map->find(key);
  return it == map->end() ? nullptr : &it->second;
}

std::string JoinReasons(const std::vector<std::string>& reasons) {
  std::string joined;
  for (const std::string& reason : reasons) {
    if (!joined.empty()) joined += "; ";
    joined += reason;
  }
  return joined.empty() ? "no reason given" : joined;
}

}  // namespace

namespace {

// What Place knows about the asked-for host (request.host).
struct HostFacts {
  const lsf::HostStatus* status = nullptr;  // null: not in bhosts -w
  std::optional<HostIbHealth> ib;
};

// The host check: unknown host is kNotFound; with require_ib an unhealthy
// (or, without allow_unknown, unknown) host is kConflict naming the reasons.
Result<HostFacts> CheckHost(const ClusterSnapshot& snapshot, const PlacementContext& context,
                            const PlacementRequest& request) {
  HostFacts facts;
  if (!request.host) return facts;
  const std::string& host = *request.host;
  facts.status = snapshot.load->FindHost(host);
  if (facts.status == nullptr && !snapshot.topology->NamesHost(host)) {
    return Fail(ErrorCode::kNotFound, "host " + host +
                                          " is not known to LSF (not in bhosts -w, no host "
                                          "group or HOSTS line names it)");
  }
  const HostIbHealth* entry = snapshot.ib ? snapshot.ib->Find(host) : nullptr;
  facts.ib = entry ? *entry : HostIbHealth{};
  if (!entry) {
    facts.ib->reasons.push_back(snapshot.ib ? "the " + snapshot.ib->source +
                                                  " source has no InfiniBand data for the host"
                                            : "no InfiniBand health source configured ([ib] "
                                              "source) or it has not answered yet");
  }
  if (request.require_ib && facts.ib->health == IbHealth::kUnhealthy) {
    return Fail(ErrorCode::kConflict, "host " + host + " has unhealthy InfiniBand (" +
                                          snapshot.ib->source +
                                          "): " + JoinReasons(facts.ib->reasons) +
                                          "; ask with require_ib=false to place there anyway");
  }
  if (request.require_ib && facts.ib->health == IbHealth::kUnknown && !context.allow_unknown_ib) {
    return Fail(ErrorCode::kConflict,
                "host " + host + " has unknown InfiniBand health (" +
                    JoinReasons(facts.ib->reasons) +
                    ") and [ib] allow_unknown is false; ask with require_ib=false to place "
                    "there anyway");
  }
  return facts;
}

// A reason for a queue to be out, before it is tied to the queue's name.
struct Reason {
  ExclusionCode code;
  std::string text;
};

// Whether the user may submit to the queue: LSF's answer when known
// (bqueues -u), else the USERS line as bplace reads it.
std::optional<Reason> UserExclusion(const Topology& topology, const PlacementContext& context,
                                    const PlacementRequest& request, const QueueTopology& queue) {
  const UserAdmission why = topology.AdmitUser(queue, request.user);
  if (context.permitted_queues) {
    if (context.permitted_queues->contains(queue.definition.name)) return std::nullopt;
    return Reason{ExclusionCode::kUserNotPermitted,
                  "LSF does not let " + request.user + " use this queue (bqueues -u); " +
                      (why.admitted ? "USERS would admit: " + why.explanation : why.explanation)};
  }
  if (why.admitted) return std::nullopt;
  return Reason{ExclusionCode::kUserNotPermitted, why.explanation};
}

// Whether the asked-for host takes new work, or (without a host) the queue
// has a host that does.
std::optional<Reason> HostExclusion(const ClusterSnapshot& snapshot,
                                    const PlacementRequest& request, const QueueTopology& queue,
                                    const HostFacts& host) {
  if (request.host && host.status == nullptr) {
    return Reason{ExclusionCode::kHostUnavailable,
                  "host " + *request.host +
                      " is named in the configuration but bhosts -w does not report it"};
  }
  if (host.status && !HostTakesNewWork(host.status->status)) {
    return Reason{ExclusionCode::kHostUnavailable,
                  "host " + *request.host + " is " + host.status->status + " (bhosts -w)"};
  }
  if (request.host) return std::nullopt;
  const QueueHostCounts* counts = Lookup(&snapshot.host_counts, queue.definition.name);
  if (counts == nullptr || counts->usable != 0) return std::nullopt;
  if (queue.has_remote_hosts && counts->admitted == 0) {
    return Reason{ExclusionCode::kRemoteOnly, "HOSTS lists only MultiCluster remote hosts"};
  }
  return Reason{ExclusionCode::kNoUsableHost, "none of the queue's " +
                                                  std::to_string(counts->admitted) +
                                                  " hosts takes new work (bhosts -w)"};
}

// With require_ib and no host: a queue none of whose usable hosts is
// eligible (healthy, or unknown when allowed) is out.
std::optional<Reason> IbExclusion(const QueueHostCounts* counts, const PlacementContext& context,
                                  const PlacementRequest& request) {
  if (request.host || !request.require_ib || counts == nullptr) return std::nullopt;
  const std::int64_t eligible =
      counts->ib_healthy + (context.allow_unknown_ib ? counts->ib_unknown : 0);
  if (eligible != 0) return std::nullopt;
  std::string text = "none of the queue's " + std::to_string(counts->usable) +
                     " usable hosts has healthy InfiniBand (" +
                     std::to_string(counts->ib_unhealthy) + " unhealthy, " +
                     std::to_string(counts->ib_unknown) + " unknown";
  text += context.allow_unknown_ib ? ")" : "; [ib] allow_unknown is false)";
  return Reason{ExclusionCode::kNoHealthyIbHost, std::move(text)};
}

// The candidate with the numbers that rank it. A queue known to be
// rewritten to another (context.rewrites) is ranked by the counters of the
// queue its jobs land in: that is where the job will wait.
Candidate MakeCandidate(const ClusterSnapshot& snapshot, const PlacementContext& context,
                        const QueueTopology& queue, const lsf::QueueStatus& status,
                        const QueueHostCounts* counts, std::optional<HostAdmission> admission) {
  const std::string& name = queue.definition.name;
  const lsf::QueueLoad* counters = Lookup(&snapshot.load->queues, name);
  Candidate candidate;
  candidate.queue = name;
  candidate.status = status.text;
  candidate.active = status.active;
  candidate.prio = counters ? counters->prio : queue.definition.prio;
  if (!admission && counts) {
    candidate.ib_healthy_hosts = counts->ib_healthy;
    candidate.ib_unknown_hosts = counts->ib_unknown;
  }
  const std::string* landed = Lookup(context.rewrites, name);
  if (landed) {
    candidate.lands_in = *landed;
    counters = Lookup(&snapshot.load->queues, *landed);
  }
  candidate.pend = counters ? counters->pend : (landed ? 0 : queue.definition.pend);
  candidate.run = counters ? counters->run : (landed ? 0 : queue.definition.run);
  if (const std::int64_t* slots = Lookup(context.inflight_slots, landed ? *landed : name)) {
    candidate.inflight = *slots;
  }
  candidate.admission = std::move(admission);
  return candidate;
}

// The queue's first reason to be out, in the order a person checks:
// requested, site exclusion, open, host in HOSTS, user permitted, refused
// before, host usable, queue has usable hosts. nullopt when none applies.
std::optional<Exclusion> AdmissionExclusion(const ClusterSnapshot& snapshot,
                                            const PlacementContext& context,
                                            const PlacementRequest& request,
                                            const std::unordered_set<std::string>& requested,
                                            const QueueTopology& queue,
                                            const lsf::QueueStatus& status, const HostFacts& host,
                                            std::optional<HostAdmission>& admission) {
  const std::string& name = queue.definition.name;
  const Topology& topology = *snapshot.topology;
  auto out = [&](ExclusionCode code, std::string reason) {
    return Exclusion{name, code, std::move(reason)};
  };
  auto out_for = [&](Reason reason) { return out(reason.code, std::move(reason.text)); };
  if (!requested.empty() && !requested.contains(name)) {
    return out(ExclusionCode::kNotRequested, "not among the requested queues");
  }
  if (context.excluded_queues && context.excluded_queues->contains(name)) {
    return out(ExclusionCode::kExcludedByConfig,
               "excluded by the site configuration ([placement] exclude_queues)");
  }
  if (!status.open) {
    return out(ExclusionCode::kQueueClosed,
               "queue is " + status.text + ": LSF rejects new jobs (Queue has been closed)");
  }
  if (request.host) {
    admission = topology.AdmitHost(queue, *request.host);
    if (admission->via == HostAdmission::Via::kExcluded) {
      return out(ExclusionCode::kHostExcluded,
                 "host " + *request.host + " is " + DescribeAdmission(*admission));
    }
    if (!admission->admitted()) {
      return out(ExclusionCode::kHostNotInQueue,
                 "host " + *request.host + " is not in HOSTS: " + queue.hosts_text);
    }
  }
  if (auto refusal = UserExclusion(topology, context, request, queue)) return out_for(*refusal);
  if (const std::string* message = Lookup(context.rejections, name)) {
    return out(ExclusionCode::kRejectedByLsf, *message);
  }
  if (auto unusable = HostExclusion(snapshot, request, queue, host)) return out_for(*unusable);
  if (auto ib = IbExclusion(Lookup(&snapshot.host_counts, name), context, request)) {
    return out_for(*ib);
  }
  return std::nullopt;
}

}  // namespace

Result<Placement> Place(const ClusterSnapshot& snapshot, const PlacementContext& context,
                        const PlacementRequest& request) {
  if (!snapshot.complete()) {
    return Fail(ErrorCode::kUnavailable, "no LSF snapshot yet: the first refresh has not finished");
  }
  auto host = CheckHost(snapshot, context, request);
  if (!host) return tl::unexpected(host.error());
  std::unordered_set<std::string> requested;
  for (const std::string& name : request.queues) {
    if (snapshot.topology->FindQueue(name) == nullptr) {
      return Fail(ErrorCode::kNotFound, "queue " + name + " does not exist (bqueues -l)");
    }
    requested.insert(name);
  }

  Placement placement;
  placement.permission_source = context.permitted_queues ? "lsf" : "users_line";
  placement.host_ib = host->ib;
  for (const QueueTopology& queue : snapshot.topology->queues()) {
    const std::string& name = queue.definition.name;
    const lsf::QueueLoad* counters = Lookup(&snapshot.load->queues, name);
    // The load tier is fresher than the topology tier; prefer its status.
    const lsf::QueueStatus& status = counters ? counters->status : queue.definition.status;
    std::optional<HostAdmission> admission;
    if (auto exclusion = AdmissionExclusion(snapshot, context, request, requested, queue, status,
                                            *host, admission)) {
      placement.excluded.push_back(std::move(*exclusion));
      continue;
    }
    placement.candidates.push_back(MakeCandidate(snapshot, context, queue, status,
                                                 Lookup(&snapshot.host_counts, name),
                                                 std::move(admission)));
  }
  std::sort(placement.candidates.begin(), placement.candidates.end(), RanksBefore);
  return placement;
}

bool RanksBefore(const Candidate& a, const Candidate& b) {
  return std::make_tuple(!a.active, a.pend + a.inflight, a.run, -a.prio,
                         std::string_view(a.queue)) <
         std::make_tuple(!b.active, b.pend + b.inflight, b.run, -b.prio, std::string_view(b.queue));
}

}  // namespace bplace
