#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/result.h"
#include "daemon/cluster/snapshot.h"
#include "daemon/cluster/topology.h"
#include "daemon/placement/wait_model.h"

namespace bplace {

// What a caller asks to place.
struct PlacementRequest {
  std::string user;                 // who submits (LSF user name)
  std::optional<std::string> host;  // run on this host (bsub -m); none: any host of the queue
  std::vector<std::string> queues;  // consider only these; empty: every queue
  std::int64_t slots = 1;           // job slots asked for (bsub -n)
  // Keep hosts with unhealthy InfiniBand out ([ib] require_ib, or the
  // request's own `require_ib`).
  bool require_ib = false;
};

// A queue bsub refused for this user (or this host) that is not tried
// again while the refusal is remembered (RefusalMemory), or one this request
// has tried already.
struct RememberedRefusal {
  std::string reason;  // a sentence for people, with LSF's words
  // BsubCauseName of the refusal ("permission", "queue_closed", "limit",
  // "esub", "host"), or "tried" for a queue this request tried.
  std::string cause;
  // Timed memories (esub refusals) end at `until`; the others when the
  // named tier publishes again: "topology" (the queue definitions are read
  // again), "load" (the counters show room again). Both empty for "tried".
  std::optional<SystemTime> until;
  std::string until_refresh;
};

// What placement needs besides the snapshot. Every pointer may be null
// (meaning "nothing known"); the pointees are owned by the caller.
struct PlacementContext {
  // Queues LSF says the user may submit to (`bqueues -u USER -w`). Null when
  // LSF has not been asked yet: then the USERS lines are evaluated here.
  const std::unordered_set<std::string>* permitted_queues = nullptr;
  // Slots this daemon has submitted (or is submitting) per queue that the
  // last `bqueues -w` could not have counted yet.
  const std::unordered_map<std::string, std::int64_t>* inflight_slots = nullptr;
  // Queues not to try again for this user (and host), each with why: bsub
  // refused it and the refusal is still remembered, or this request already
  // tried it.
  const std::unordered_map<std::string, RememberedRefusal>* rejections = nullptr;
  // Queues whose jobs LSF has been seen to put elsewhere (an esub rewriting
  // -q), mapped to where they landed.
  const std::unordered_map<std::string, std::string>* rewrites = nullptr;
  // Queues the site excluded in the configuration ([placement] exclude_queues).
  const std::unordered_set<std::string>* excluded_queues = nullptr;
  // With require_ib: whether hosts of unknown InfiniBand health may be
  // chosen ([ib] allow_unknown). They are flagged in the answer either way.
  bool allow_unknown_ib = true;
  // The waits LSF gave earlier jobs (docs/design.md "Wait prediction"):
  // each candidate's expected start. Null: no history (kNoHistory).
  const WaitModel* waits = nullptr;
};

// A queue that may take the job, with what ranked it.
struct Candidate {
  std::string queue;
  std::string status;  // e.g. "Open:Active"
  bool active = false;
  // PEND slots from the last bqueues -w, and slots this daemon added since.
  // For a queue in `lands_in` these are that queue's: where the job will wait.
  std::int64_t pend = 0;
  std::int64_t inflight = 0;
  std::int64_t run = 0;
  std::string lands_in;  // set when LSF was seen to rewrite this queue to another
  int prio = 0;
  std::optional<HostAdmission> admission;  // set when a host was asked for
  // Without a host: the queue's usable hosts by InfiniBand verdict.
  std::int64_t ib_healthy_hosts = 0;
  std::int64_t ib_unknown_hosts = 0;
  // When the job can start (docs/api.md "How bplace ranks queues"): the job's
  // slots; the slots it could start on now, under the tightest limit that
  // applies (nullopt: no limit is known, e.g. hosts with MAX "-"); that
  // limit ("queue_max", "user_limit" for the queue's JL/U, "host_slots" for
  // the usable hosts' MAX, "host_max", "host_user_limit" for the asked-for
  // host's MAX and JL/U; empty when none); the most slots the queue can
  // run (the same limits' totals, else one per usable host), against which
  // a wait is judged; and whether the job can start now: the queue
  // dispatches and the free slots cover the slots ahead of it (pend +
  // inflight) and its own.
  std::int64_t slots = 1;
  std::optional<std::int64_t> free_slots;
  std::string_view limited_by;  // a static name, or empty
  std::int64_t capacity = 0;
  bool starts_now = false;
  // When the job can expect to start (WaitModel::Predict for the queue it
  // waits in, its slots, starts_now and its backlog share
  // slots_to_free / capacity).
  WaitEstimate expected_start;

  // Slots ahead of the job: pending, and submitted by bplace since the count.
  std::int64_t waiting() const { return pend + inflight; }
  // Slots that must free up before the job can start (0 when it starts now).
  std::int64_t slots_to_free() const;
};

// Why a queue is out.
enum class ExclusionCode {
  kNotRequested,  // the request named other queues
  kExcludedByConfig,
  kQueueClosed,
  kHostNotInQueue,  // HOSTS does not list the host
  kHostExcluded,    // HOSTS takes it out with ~x
  kRemoteOnly,      // HOSTS lists only MultiCluster remote hosts
  kUserNotPermitted,
  kRejectedByLsf,    // bsub refused this queue for this user, and that is still remembered
  kHostUnavailable,  // the asked-for host does not take new work (bhosts)
  kNoUsableHost,     // no host of the queue takes new work
  kNoHealthyIbHost,  // require_ib: no usable host of the queue has healthy InfiniBand
  kHostIbUnhealthy,  // require_ib: the asked-for host's InfiniBand is unhealthy
  kHostIbUnknown,    // require_ib, [ib] allow_unknown false: the host's health is unknown
  kExceedsLimit,     // the job's slots exceed a limit: bsub would refuse it, or it never starts
};

// Short stable name of a code, e.g. "queue_closed", for JSON.
const char* ExclusionCodeName(ExclusionCode code);

// Whether `name` (an ExclusionCodeName) is a reason LSF does not know, so
// that LSF's own bsub, given the same command line, would take the job
// and start it where bplace would not: the hosts' InfiniBand health
// (kNoHealthyIbHost, kHostIbUnhealthy, kHostIbUnknown). False for every
// other code, LSF refusing the job or never starting it too, and for a
// name of no code.
bool IsExclusionLsfAllows(std::string_view name);

struct Exclusion {
  std::string queue;
  ExclusionCode code;
  std::string reason;  // a sentence for people
  // kRejectedByLsf: the refusal remembered, with its cause and until when
  // (shared: most exclusions have none, and placements are copied).
  std::shared_ptr<const RememberedRefusal> refusal;
};

// The ranked answer: candidates best first, and every other queue with why.
struct Placement {
  std::vector<Candidate> candidates;
  std::vector<Exclusion> excluded;
  // "lsf" when permission came from bqueues -u, "users_line" when from our
  // own reading of USERS (LSF not asked yet for this user).
  std::string permission_source;
  // The asked-for host's InfiniBand verdict (unknown when no source says).
  std::optional<HostIbHealth> host_ib;
};

// Decides where a job goes. Pure: no I/O, no clock, no locks; the caller
// passes the snapshot and context it holds. Every queue not chosen carries a
// reason. Candidates are ranked by when the job can start (RanksBefore;
// docs/api.md "How bplace ranks queues"). A queue known to be rewritten to
// another (context.rewrites) is ranked by the counters of the queue its jobs
// land in. A queue whose limits the job's slots exceed (queue MAX or JL/U,
// the host's MAX or JL/U, every usable host's MAX) is excluded
// (kExceedsLimit): bsub would refuse it, or it would never start.
// With request.require_ib, a host whose InfiniBand is unhealthy (or unknown,
// when context.allow_unknown_ib is false) is never chosen: asking for it
// excludes every queue that admits it with the reasons (kHostIbUnhealthy,
// kHostIbUnknown), and a queue none of whose usable hosts is eligible is
// excluded (kNoHealthyIbHost).
// Errors: kUnavailable when the snapshot has no topology or load yet;
// kNotFound when the host is unknown to both bhosts and every group and HOSTS
// line, or a requested queue does not exist.
Result<Placement> Place(const ClusterSnapshot& snapshot, const PlacementContext& context,
                        const PlacementRequest& request);

// The share of the candidate's queue that must turn over before the job
// can start: slots_to_free() / capacity (capacity taken as at least 1); 0
// when it starts now. What the wait predictor's backlog classes are on
// (WaitQuery::backlog, WaitObservation::backlog_at_submit) and what ranks
// queues where the job must wait at equal bounds (RanksBefore). Pure.
double BacklogShare(const Candidate& candidate);

// Each queue's BacklogShare for a one-slot job submitted now with no host
// asked for, no InfiniBand requirement, nothing in flight and no slots of
// its user's held (a JL/U counts none): the candidate Place would make for
// such a job, whatever the user's permissions. Every queue of the topology
// that the load tier lists, in the topology's order; empty when the
// snapshot has no topology or load yet. What the wait model records at
// each load refresh (WaitModel::RecordBacklog), so that waits learned from
// other users' jobs carry the backlog they were submitted behind. Pure.
std::vector<std::pair<std::string, double>> QueueBacklogs(const ClusterSnapshot& snapshot);

// The ranking of Place: true when `a` goes before `b`. In order: a queue
// that dispatches (Active) first; then one where the job starts now; among
// those that start now, fewest slots waiting (pend + inflight), most free
// slots (no known limit counts as most), fewest running; among those that
// must wait, one whose expected start has a bound before one without, the
// smaller bound first, then the smallest BacklogShare (the share of the
// queue's capacity that must free up first), then fewest waiting, fewest
// running; then higher PRIO, then name. A strict weak order; pure.
bool RanksBefore(const Candidate& a, const Candidate& b);

}  // namespace bplace
