#include "daemon/placement/placement.h"

#include <algorithm>
#include <array>
#include <limits>
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
    case ExclusionCode::kHostIbUnhealthy:
      return "host_ib_unhealthy";
    case ExclusionCode::kHostIbUnknown:
      return "host_ib_unknown";
    case ExclusionCode::kExceedsLimit:
      return "exceeds_limit";
  }
  return "unknown";
}

namespace {

// The codes LSF knows nothing of: the hosts' InfiniBand health.
constexpr ExclusionCode kLsfBlind[] = {ExclusionCode::kNoHealthyIbHost,
                                       ExclusionCode::kHostIbUnhealthy,
                                       ExclusionCode::kHostIbUnknown};

}  // namespace

bool IsExclusionLsfAllows(std::string_view name) {
  return std::any_of(std::begin(kLsfBlind), std::end(kLsfBlind),
                     [name](ExclusionCode code) { return name == ExclusionCodeName(code); });
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

// A reason for a queue to be out, before it is tied to the queue's name.
struct Reason {
  ExclusionCode code;
  std::string text;
};

// What Place knows about the asked-for host (request.host).
struct HostFacts {
  const lsf::HostStatus* status = nullptr;  // null: not in bhosts -w
  std::optional<HostIbHealth> ib;
  // With require_ib: why the host may not be chosen (unhealthy, or unknown
  // without allow_unknown); every queue that admits it is out for it.
  std::optional<Reason> ib_refusal;
  // The slots the requesting user's followed jobs hold (for JL/U), or null.
  const UserSlotUsage* usage = nullptr;
};

// The host check: unknown host is kNotFound. With require_ib, an unhealthy
// (or, without allow_unknown, unknown) host gets an ib_refusal naming the
// reasons.
Result<HostFacts> CheckHost(const ClusterSnapshot& snapshot, const PlacementContext& context,
                            const PlacementRequest& request) {
  HostFacts facts;
  if (snapshot.slot_usage) facts.usage = Lookup(snapshot.slot_usage.get(), request.user);
  if (!request.host) return facts;
  const std::string& host = *request.host;
  facts.status = snapshot.load->FindHost(host);
  if (facts.status == nullptr && !snapshot.topology->NamesHost(host)) {
    return Fail(ErrorCode::kNotFound, "host " + host +
                                          " is not known to LSF (not in bhosts -w, no host "
                                          "group or HOSTS line names it)");
  }
  const HostIbHealth* entry = snapshot.ib ? snapshot.ib->Find(host) : nullptr;
  facts.ib = HostIbOf(snapshot.ib.get(), facts.status, host);
  if (!entry) {
    facts.ib->reasons.push_back(snapshot.ib ? "the " + snapshot.ib->source +
                                                  " source has no InfiniBand data for the host"
                                            : "no InfiniBand health source configured ([ib] "
                                              "source) or it has not answered yet");
  }
  if (request.require_ib && facts.ib->health == IbHealth::kUnhealthy) {
    facts.ib_refusal = Reason{ExclusionCode::kHostIbUnhealthy,
                              "host " + host + " has unhealthy InfiniBand (" + snapshot.ib->source +
                                  "): " + JoinReasons(facts.ib->reasons) +
                                  "; ask with require_ib=false to place there anyway"};
  }
  // A host that takes no new work is refused for that (HostExclusion), the
  // truer reason, even when HostIbOf made its verdict unknown because of it.
  const bool takes_work = facts.status && HostTakesNewWork(facts.status->status);
  if (request.require_ib && facts.ib->health == IbHealth::kUnknown && !context.allow_unknown_ib &&
      (takes_work || facts.status == nullptr)) {
    facts.ib_refusal = Reason{ExclusionCode::kHostIbUnknown,
                              "host " + host + " has unknown InfiniBand health (" +
                                  JoinReasons(facts.ib->reasons) +
                                  ") and [ib] allow_unknown is false; ask with require_ib=false "
                                  "to place there anyway"};
  }
  return facts;
}

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
std::optional<Reason> HostExclusion(const PlacementRequest& request, const QueueTopology& queue,
                                    const QueueHostCounts* counts, const HostFacts& host) {
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

// The usable hosts' slots a job of `request` may use: with require_ib those
// with healthy InfiniBand (and unknown, when allowed), else all.
HostSlots EligibleSlots(const QueueHostCounts& counts, const PlacementContext& context,
                        const PlacementRequest& request) {
  if (!request.require_ib) return counts.Slots(true, true);
  return counts.Slots(false, context.allow_unknown_ib);
}

// The number of usable hosts a job of `request` may use (as EligibleSlots).
std::int64_t EligibleHosts(const QueueHostCounts& counts, const PlacementContext& context,
                           const PlacementRequest& request) {
  if (!request.require_ib) return counts.usable;
  return counts.ib_healthy + (context.allow_unknown_ib ? counts.ib_unknown : 0);
}

// MAX and JL/U of a queue: bqueues -w's when the load tier has the queue,
// else bqueues -l's.
struct QueueLimits {
  std::optional<std::int64_t> max;
  std::optional<std::int64_t> jl_u;
};

QueueLimits LimitsOf(const QueueTopology& queue, const lsf::QueueLoad* counters) {
  if (counters) return {counters->max, counters->jl_u};
  return {queue.definition.max, queue.definition.jl_u};
}

// Slots the user's followed jobs (`usage`, may be null) hold in `key` (a
// queue or a host) of `map`.
std::int64_t SlotsHeld(const UserSlotUsage* usage,
                       std::unordered_map<std::string, std::int64_t> UserSlotUsage::*map,
                       const std::string& key) {
  if (usage == nullptr) return 0;
  const std::int64_t* held = Lookup(&(usage->*map), key);
  return held ? *held : 0;
}

std::string SlotsText(std::int64_t slots) {
  return std::to_string(slots) + (slots == 1 ? " slot" : " slots");
}

// The limit the job's slots exceed for good, or nullopt: the queue's MAX or
// JL/U (bsub refuses the job), the asked-for host's MAX (refused) or JL/U
// (it would never start), or the total MAX of every host the job may use.
std::optional<Reason> LimitExclusion(const PlacementContext& context,
                                     const PlacementRequest& request, const QueueTopology& queue,
                                     const lsf::QueueLoad* counters, const QueueHostCounts* counts,
                                     const HostFacts& host) {
  const std::int64_t slots = request.slots;
  const QueueLimits limits = LimitsOf(queue, counters);
  // Sentences are made only for a queue that is out: this runs for every queue.
  const auto asks = [slots] { return "the job asks for " + SlotsText(slots); };
  auto exceeds = [](std::string text) { return Reason{ExclusionCode::kExceedsLimit, text}; };
  if (limits.max && slots > *limits.max) {
    return exceeds(asks() + " and the queue's MAX is " + std::to_string(*limits.max) +
                   " (bqueues): bsub would refuse it (Too many processors requested)");
  }
  if (limits.jl_u && slots > *limits.jl_u) {
    return exceeds(asks() + ", more than the queue lets one user run (JL/U " +
                   std::to_string(*limits.jl_u) +
                   ", bqueues): bsub would refuse it (Queue does not have enough per-user job "
                   "slots)");
  }
  if (request.host) {
    const lsf::HostStatus* status = host.status;
    if (status && status->max && slots > *status->max) {
      return exceeds(asks() + " and host " + *request.host + " has MAX " +
                     std::to_string(*status->max) +
                     " (bhosts -w): bsub would refuse it (Too many processors requested)");
    }
    if (status && status->jl_u && slots > *status->jl_u) {
      return exceeds(asks() + " and host " + *request.host + " runs at most " +
                     SlotsText(*status->jl_u) +
                     " per user (JL/U, bhosts -w): the job would never start");
    }
    return std::nullopt;
  }
  if (counts == nullptr) return std::nullopt;
  const HostSlots eligible = EligibleSlots(*counts, context, request);
  if (eligible.unlimited == 0 && slots > eligible.max) {
    return exceeds(asks() + " and the " + std::to_string(EligibleHosts(*counts, context, request)) +
                   " hosts it may use have " + SlotsText(eligible.max) +
                   " in all (MAX, bhosts -w): the job would never start");
  }
  return std::nullopt;
}

// One limit on the slots the job could start on now.
struct SlotLimit {
  std::int64_t free = 0;
  std::int64_t capacity = 0;
  const char* name = "";
};

// The limits that apply to one candidate (at most four: queue MAX and
// JL/U, and the hosts' slots or the asked-for host's MAX and JL/U).
class SlotLimits {
 public:
  void push_back(const SlotLimit& limit) { items_[size_++] = limit; }
  bool empty() const { return size_ == 0; }
  const SlotLimit& front() const { return items_[0]; }
  const SlotLimit* begin() const { return items_.data(); }
  const SlotLimit* end() const { return items_.data() + size_; }

 private:
  std::array<SlotLimit, 4> items_{};
  std::size_t size_ = 0;
};

// Sets what ranks `candidate` by when the job can start: its free slots
// under the tightest limit, the queue's capacity, and whether the job
// starts now. `counters` are the bqueues -w counters of the queue the job
// waits in (the rewritten one for a known esub rewrite), null when unknown.
void RankByStart(const PlacementContext& context, const PlacementRequest& request,
                 const QueueTopology& queue, const lsf::QueueLoad* counters,
                 const QueueHostCounts* counts, const HostFacts& host, Candidate& candidate) {
  const std::string& waits_in = candidate.lands_in.empty() ? candidate.queue : candidate.lands_in;
  // At most four limits apply; no allocation per candidate.
  SlotLimits limits;
  const QueueLimits queue_limits = candidate.lands_in.empty()
                                       ? LimitsOf(queue, counters)
                                       : QueueLimits{counters ? counters->max : std::nullopt,
                                                     counters ? counters->jl_u : std::nullopt};
  if (queue_limits.max) {
    const std::int64_t dispatched = counters ? counters->run + counters->susp : candidate.run;
    limits.push_back({*queue_limits.max - dispatched, *queue_limits.max, "queue_max"});
  }
  if (queue_limits.jl_u) {
    const std::int64_t held = SlotsHeld(host.usage, &UserSlotUsage::by_queue, waits_in);
    limits.push_back({*queue_limits.jl_u - held, *queue_limits.jl_u, "user_limit"});
  }
  std::int64_t hosts = 1;
  if (request.host) {
    if (host.status && host.status->max) {
      limits.push_back({*host.status->max - host.status->njobs, *host.status->max, "host_max"});
    }
    if (host.status && host.status->jl_u) {
      const std::int64_t held = SlotsHeld(host.usage, &UserSlotUsage::by_host, *request.host);
      limits.push_back({*host.status->jl_u - held, *host.status->jl_u, "host_user_limit"});
    }
  } else if (counts) {
    hosts = EligibleHosts(*counts, context, request);
    const HostSlots eligible = EligibleSlots(*counts, context, request);
    if (eligible.unlimited == 0) limits.push_back({eligible.free, eligible.max, "host_slots"});
  }
  candidate.slots = request.slots;
  if (limits.empty()) {
    // No limit known: judge a wait against one slot per host.
    candidate.capacity = std::max<std::int64_t>(1, hosts);
  } else {
    const SlotLimit* tightest = &limits.front();
    std::int64_t capacity = limits.front().capacity;
    for (const SlotLimit& limit : limits) {
      if (limit.free < tightest->free) tightest = &limit;
      capacity = std::min(capacity, limit.capacity);
    }
    candidate.free_slots = std::max<std::int64_t>(0, tightest->free);
    candidate.limited_by = tightest->name;
    candidate.capacity = std::max<std::int64_t>(1, capacity);
  }
  candidate.starts_now =
      candidate.active &&
      (candidate.free_slots ? *candidate.free_slots >= candidate.waiting() + candidate.slots
                            : candidate.waiting() == 0);
}

// When a job placed in `candidate` can expect to start: the wait model's
// estimate for the queue it waits in, or kNoHistory without a model.
WaitEstimate ExpectedStart(const PlacementContext& context, const Candidate& candidate) {
  if (context.waits == nullptr) {
    WaitEstimate none;
    none.quantile = WaitPredictorOptions{}.quantile;
    return none;
  }
  WaitQuery query;
  query.queue = candidate.lands_in.empty() ? candidate.queue : candidate.lands_in;
  query.slots = candidate.slots;
  query.starts_now = candidate.starts_now;
  query.backlog = BacklogShare(candidate);
  return context.waits->Predict(query);
}

// The candidate with the numbers that rank it. A queue known to be
// rewritten to another (context.rewrites) is ranked by the counters of the
// queue its jobs land in: that is where the job will wait.
// `counters` are the queue's own (bqueues -w; null when absent).
Candidate MakeCandidate(const ClusterSnapshot& snapshot, const PlacementContext& context,
                        const PlacementRequest& request, const QueueTopology& queue,
                        const lsf::QueueStatus& status, const lsf::QueueLoad* counters,
                        const QueueHostCounts* counts, const HostFacts& host,
                        std::optional<HostAdmission> admission) {
  const std::string& name = queue.definition.name;
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
  RankByStart(context, request, queue, counters, counts, host, candidate);
  return candidate;
}

// The queue's first reason to be out, in the order a person checks:
// requested, site exclusion, open, host in HOSTS, the host's InfiniBand,
// user permitted, refused before, host usable, queue has usable (and
// InfiniBand-eligible) hosts, the job's slots within the limits. nullopt
// when none applies. `counters` and `counts` are the queue's (null when
// absent), looked up once by Place.
std::optional<Exclusion> AdmissionExclusion(
    const ClusterSnapshot& snapshot, const PlacementContext& context,
    const PlacementRequest& request, const std::unordered_set<std::string>& requested,
    const QueueTopology& queue, const lsf::QueueStatus& status, const lsf::QueueLoad* counters,
    const QueueHostCounts* counts, const HostFacts& host, std::optional<HostAdmission>& admission) {
  const std::string& name = queue.definition.name;
  const Topology& topology = *snapshot.topology;
  auto out = [&](ExclusionCode code, std::string reason) {
    return Exclusion{name, code, std::move(reason), nullptr};
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
    if (host.ib_refusal) return out_for(*host.ib_refusal);
  }
  if (auto refusal = UserExclusion(topology, context, request, queue)) return out_for(*refusal);
  if (const RememberedRefusal* refusal = Lookup(context.rejections, name)) {
    Exclusion exclusion = out(ExclusionCode::kRejectedByLsf, refusal->reason);
    exclusion.refusal = std::make_shared<const RememberedRefusal>(*refusal);
    return exclusion;
  }
  if (auto unusable = HostExclusion(request, queue, counts, host)) return out_for(*unusable);
  if (auto ib = IbExclusion(counts, context, request)) return out_for(*ib);
  if (auto limit = LimitExclusion(context, request, queue, counters, counts, host)) {
    return out_for(*limit);
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
  placement.candidates.reserve(snapshot.topology->queues().size());
  placement.excluded.reserve(snapshot.topology->queues().size());
  for (const QueueTopology& queue : snapshot.topology->queues()) {
    const std::string& name = queue.definition.name;
    const lsf::QueueLoad* counters = Lookup(&snapshot.load->queues, name);
    // The load tier is fresher than the topology tier; prefer its status.
    const lsf::QueueStatus& status = counters ? counters->status : queue.definition.status;
    const QueueHostCounts* counts = Lookup(&snapshot.host_counts, name);
    std::optional<HostAdmission> admission;
    if (auto exclusion = AdmissionExclusion(snapshot, context, request, requested, queue, status,
                                            counters, counts, *host, admission)) {
      placement.excluded.push_back(std::move(*exclusion));
      continue;
    }
    placement.candidates.push_back(MakeCandidate(snapshot, context, request, queue, status,
                                                 counters, counts, *host, std::move(admission)));
  }
  for (Candidate& candidate : placement.candidates) {
    candidate.expected_start = ExpectedStart(context, candidate);
  }
  std::sort(placement.candidates.begin(), placement.candidates.end(), RanksBefore);
  return placement;
}

std::vector<std::pair<std::string, double>> QueueBacklogs(const ClusterSnapshot& snapshot) {
  std::vector<std::pair<std::string, double>> shares;
  if (!snapshot.complete()) return shares;
  PlacementRequest request;  // one slot, no host, no user's usage
  const PlacementContext context;
  for (const QueueTopology& queue : snapshot.topology->queues()) {
    const std::string& name = queue.definition.name;
    const lsf::QueueLoad* counters = Lookup(&snapshot.load->queues, name);
    if (counters == nullptr) continue;
    const QueueHostCounts* counts = Lookup(&snapshot.host_counts, name);
    const Candidate candidate = MakeCandidate(snapshot, context, request, queue, counters->status,
                                              counters, counts, HostFacts{}, std::nullopt);
    shares.emplace_back(name, BacklogShare(candidate));
  }
  return shares;
}

double BacklogShare(const Candidate& candidate) {
  return static_cast<double>(candidate.slots_to_free()) /
         static_cast<double>(std::max<std::int64_t>(1, candidate.capacity));
}

std::int64_t Candidate::slots_to_free() const {
  if (starts_now) return 0;
  return std::max<std::int64_t>(0, waiting() + slots - free_slots.value_or(0));
}

namespace {

// Bounds a count before products of two are compared, so that they fit in
// 64 bits (LSF's counters are far below it).
std::int64_t Bounded(std::int64_t value) {
  return std::clamp<std::int64_t>(value, 0, std::int64_t{1} << 30);
}

}  // namespace

bool RanksBefore(const Candidate& a, const Candidate& b) {
  if (a.active != b.active) return a.active;
  if (a.starts_now != b.starts_now) return a.starts_now;
  const auto by_name = [](const Candidate& c) {
    return std::make_tuple(-c.prio, std::string_view(c.queue));
  };
  if (a.starts_now) {
    // No known limit counts as the most room.
    const auto room = [](const Candidate& c) {
      return c.free_slots.value_or(std::numeric_limits<std::int64_t>::max());
    };
    return std::make_tuple(a.waiting(), -room(a), a.run, by_name(a)) <
           std::make_tuple(b.waiting(), -room(b), b.run, by_name(b));
  }
  // A known bound before none, the smaller first: the bound knows how fast
  // each queue drains, which the share does not (docs/api.md "How bplace
  // ranks queues").
  const auto bound = [](const Candidate& c) {
    const auto& b = c.expected_start.bound;
    return std::make_pair(!b.has_value(), b ? b->count() : 0);
  };
  if (bound(a) != bound(b)) return bound(a) < bound(b);
  // Then the smaller backlog share (BacklogShare), compared without
  // division (capacity >= 1).
  const std::int64_t left =
      Bounded(a.slots_to_free()) * Bounded(std::max<std::int64_t>(1, b.capacity));
  const std::int64_t right =
      Bounded(b.slots_to_free()) * Bounded(std::max<std::int64_t>(1, a.capacity));
  if (left != right) return left < right;
  return std::make_tuple(a.waiting(), a.run, by_name(a)) <
         std::make_tuple(b.waiting(), b.run, by_name(b));
}

}  // namespace bplace
