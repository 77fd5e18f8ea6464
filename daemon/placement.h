#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/result.h"
#include "daemon/snapshot.h"
#include "daemon/topology.h"

namespace bplace {

// What a caller asks to place.
struct PlacementRequest {
  std::string user;                 // who submits (LSF user name)
  std::optional<std::string> host;  // run on this host (bsub -m); none: any host of the queue
  std::vector<std::string> queues;  // consider only these; empty: every queue
  // Keep hosts with unhealthy InfiniBand out ([ib] require_ib, or the
  // request's own `require_ib`).
  bool require_ib = false;
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
  // Queues not to try again for this user, each with the sentence that says
  // why (bsub refused it since the last topology refresh, or this request
  // already tried it).
  const std::unordered_map<std::string, std::string>* rejections = nullptr;
  // Queues whose jobs LSF has been seen to put elsewhere (an esub rewriting
  // -q), mapped to where they landed.
  const std::unordered_map<std::string, std::string>* rewrites = nullptr;
  // Queues the site excluded in the configuration ([placement] exclude_queues).
  const std::unordered_set<std::string>* excluded_queues = nullptr;
  // With require_ib: whether hosts of unknown InfiniBand health may be
  // chosen ([ib] allow_unknown). They are flagged in the answer either way.
  bool allow_unknown_ib = true;
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
  kRejectedByLsf,    // bsub refused this queue for this user since the last topology refresh
  kHostUnavailable,  // the asked-for host does not take new work (bhosts)
  kNoUsableHost,     // no host of the queue takes new work
  kNoHealthyIbHost,  // require_ib: no usable host of the queue has healthy InfiniBand
};

// Short stable name of a code, e.g. "queue_closed", for JSON.
const char* ExclusionCodeName(ExclusionCode code);

struct Exclusion {
  std::string queue;
  ExclusionCode code;
  std::string reason;  // a sentence for people
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
// reason. Ranking (DESIGN §3.3): queues that dispatch (Active) before those
// that only collect (Inact*), then fewest pending (PEND + in-flight), then
// fewest running, then higher PRIO, then name. A queue known to be rewritten
// to another (context.rewrites) is ranked by the counters of the queue its
// jobs land in.
// With request.require_ib, a host whose InfiniBand is unhealthy (or unknown,
// when context.allow_unknown_ib is false) is never chosen: asking for it is
// kConflict naming the reasons, and a queue none of whose usable hosts is
// eligible is excluded (kNoHealthyIbHost).
// Errors: kUnavailable when the snapshot has no topology or load yet;
// kNotFound when the host is unknown to both bhosts and every group and HOSTS
// line, or a requested queue does not exist; kConflict as above.
Result<Placement> Place(const ClusterSnapshot& snapshot, const PlacementContext& context,
                        const PlacementRequest& request);

// The ranking of Place: true when `a` goes before `b` (Active first, then
// fewest pending slots including in-flight, fewest running, higher PRIO,
// name). A strict weak order; pure.
bool RanksBefore(const Candidate& a, const Candidate& b);

}  // namespace bplace
