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

Result<Placement> Place(const ClusterSnapshot& snapshot, const PlacementContext& context,
                        const PlacementRequest& request) {
  if (!snapshot.complete()) {
    return Fail(ErrorCode::kUnavailable, "no LSF snapshot yet: the first refresh has not finished");
  }
  const Topology& topology = *snapshot.topology;
  const LoadState& load = *snapshot.load;

  const lsf::HostStatus* host_status = nullptr;
  if (request.host) {
    host_status = load.FindHost(*request.host);
    if (host_status == nullptr && !topology.NamesHost(*request.host)) {
      return Fail(ErrorCode::kNotFound, "host " + *request.host +
                                            " is not known to LSF (not in bhosts -w, no host "
                                            "group or HOSTS line names it)");
    }
  }
  std::optional<HostIbHealth> host_ib;
  if (request.host) {
    const HostIbHealth* entry = snapshot.ib ? snapshot.ib->Find(*request.host) : nullptr;
    host_ib = entry ? *entry : HostIbHealth{};
    if (!entry) {
      host_ib->reasons.push_back(snapshot.ib ? "the " + snapshot.ib->source +
                                                   " source has no InfiniBand data for the host"
                                             : "no InfiniBand health source configured ([ib] "
                                               "source) or it has not answered yet");
    }
    if (request.require_ib && host_ib->health == IbHealth::kUnhealthy) {
      return Fail(ErrorCode::kConflict, "host " + *request.host + " has unhealthy InfiniBand (" +
                                            snapshot.ib->source +
                                            "): " + JoinReasons(host_ib->reasons) +
                                            "; ask with require_ib=false to place there anyway");
    }
    if (request.require_ib && host_ib->health == IbHealth::kUnknown && !context.allow_unknown_ib) {
      return Fail(ErrorCode::kConflict,
                  "host " + *request.host + " has unknown InfiniBand health (" +
                      JoinReasons(host_ib->reasons) +
                      ") and [ib] allow_unknown is false; ask with require_ib=false to place "
                      "there anyway");
    }
  }

  std::unordered_set<std::string> requested;
  for (const std::string& name : request.queues) {
    if (topology.FindQueue(name) == nullptr) {
      return Fail(ErrorCode::kNotFound, "queue " + name + " does not exist (bqueues -l)");
    }
    requested.insert(name);
  }

  Placement placement;
  placement.permission_source = context.permitted_queues ? "lsf" : "users_line";
  placement.host_ib = std::move(host_ib);
  for (const QueueTopology& queue : topology.queues()) {
    const std::string& name = queue.definition.name;
    const lsf::QueueLoad* counters = Lookup(&load.queues, name);
    // The load tier is fresher than the topology tier; prefer its status.
    const lsf::QueueStatus& status = counters ? counters->status : queue.definition.status;
    auto exclude = [&](ExclusionCode code, std::string reason) {
      placement.excluded.push_back(Exclusion{name, code, std::move(reason)});
    };

    if (!requested.empty() && !requested.contains(name)) {
      exclude(ExclusionCode::kNotRequested, "not among the requested queues");
      continue;
    }
    if (context.excluded_queues && context.excluded_queues->contains(name)) {
      exclude(ExclusionCode::kExcludedByConfig,
              "excluded by the site configuration ([placement] exclude_queues)");
      continue;
    }
    if (!status.open) {
      exclude(ExclusionCode::kQueueClosed,
              "queue is " + status.text + ": LSF rejects new jobs (Queue has been closed)");
      continue;
    }
    std::optional<HostAdmission> admission;
    if (request.host) {
      admission = topology.AdmitHost(queue, *request.host);
      if (admission->via == HostAdmission::Via::kExcluded) {
        exclude(ExclusionCode::kHostExcluded,
                "host " + *request.host + " is " + DescribeAdmission(*admission));
        continue;
      }
      if (!admission->admitted()) {
        exclude(ExclusionCode::kHostNotInQueue,
                "host " + *request.host + " is not in HOSTS: " + queue.hosts_text);
        continue;
      }
    }
    bool permitted = false;
    if (context.permitted_queues) {
      permitted = context.permitted_queues->contains(name);
      if (!permitted) {
        const UserAdmission why = topology.AdmitUser(queue, request.user);
        exclude(ExclusionCode::kUserNotPermitted,
                "LSF does not let " + request.user + " use this queue (bqueues -u); " +
                    (why.admitted ? "USERS would admit: " + why.explanation : why.explanation));
        continue;
      }
    } else {
      const UserAdmission why = topology.AdmitUser(queue, request.user);
      permitted = why.admitted;
      if (!permitted) {
        exclude(ExclusionCode::kUserNotPermitted, why.explanation);
        continue;
      }
    }
    if (const std::string* message = Lookup(context.rejections, name)) {
      exclude(ExclusionCode::kRejectedByLsf, *message);
      continue;
    }
    if (request.host && host_status == nullptr) {
      exclude(ExclusionCode::kHostUnavailable,
              "host " + *request.host +
                  " is named in the configuration but bhosts -w does not "
                  "report it");
      continue;
    }
    if (host_status && !HostTakesNewWork(host_status->status)) {
      exclude(ExclusionCode::kHostUnavailable,
              "host " + *request.host + " is " + host_status->status + " (bhosts -w)");
      continue;
    }
    if (!request.host) {
      const QueueHostCounts* counts = Lookup(&snapshot.host_counts, name);
      if (counts && counts->usable == 0) {
        const bool only_remote = queue.has_remote_hosts && counts->admitted == 0;
        exclude(only_remote ? ExclusionCode::kRemoteOnly : ExclusionCode::kNoUsableHost,
                only_remote ? "HOSTS lists only MultiCluster remote hosts"
                            : "none of the queue's " + std::to_string(counts->admitted) +
                                  " hosts takes new work (bhosts -w)");
        continue;
      }
    }

    Candidate candidate;
    if (!request.host) {
      const QueueHostCounts* counts = Lookup(&snapshot.host_counts, name);
      if (counts) {
        candidate.ib_healthy_hosts = counts->ib_healthy;
        candidate.ib_unknown_hosts = counts->ib_unknown;
      }
      const std::int64_t eligible =
          counts ? counts->ib_healthy + (context.allow_unknown_ib ? counts->ib_unknown : 0) : 1;
      if (request.require_ib && eligible == 0) {
        std::string reason = "none of the queue's " + std::to_string(counts->usable) +
                             " usable hosts has healthy InfiniBand (" +
                             std::to_string(counts->ib_unhealthy) + " unhealthy, " +
                             std::to_string(counts->ib_unknown) + " unknown";
        reason += context.allow_unknown_ib ? ")" : "; [ib] allow_unknown is false)";
        exclude(ExclusionCode::kNoHealthyIbHost, std::move(reason));
        continue;
      }
    }
    candidate.queue = name;
    candidate.status = status.text;
    candidate.active = status.active;
    candidate.prio = counters ? counters->prio : queue.definition.prio;
    // Where the job will wait: this queue, or the one an esub moves it to.
    const std::string* landed = Lookup(context.rewrites, name);
    const std::string& waits_in = landed ? *landed : name;
    if (landed) {
      candidate.lands_in = *landed;
      counters = Lookup(&load.queues, *landed);
    }
    candidate.pend = counters ? counters->pend : (landed ? 0 : queue.definition.pend);
    candidate.run = counters ? counters->run : (landed ? 0 : queue.definition.run);
    if (const std::int64_t* slots = Lookup(context.inflight_slots, waits_in)) {
      candidate.inflight = *slots;
    }
    candidate.admission = std::move(admission);
    placement.candidates.push_back(std::move(candidate));
  }

  std::sort(placement.candidates.begin(), placement.candidates.end(),
            [](const Candidate& a, const Candidate& b) {
              return std::make_tuple(!a.active, a.pend + a.inflight, a.run, -a.prio,
                                     std::string_view(a.queue)) <
                     std::make_tuple(!b.active, b.pend + b.inflight, b.run, -b.prio,
                                     std::string_view(b.queue));
            });
  return placement;
}

}  // namespace bplace
