#pragma once

// Pure functions that turn the output of one refresh tier's LSF queries
// into the parts of a ClusterSnapshot (docs/design.md "The snapshot"). No I/O,
// no clock: the caller passes the results and the times. Thread-safe.

#include <chrono>
#include <memory>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/cluster/ib_health.h"
#include "daemon/cluster/snapshot.h"
#include "daemon/cluster/topology.h"
#include "lsf_adapter/command_runner.h"

namespace bplace {

// The load tier's data from `bqueues -w` and `bhosts -w` (formats of LSF
// 10.1; docs/lsf-formats.md "bqueues", "bhosts -w"), counted as of `counted_at`
// (when the bqueues run started). Errors: the first failure of either command
// as lsf::QueryOutput gives it (naming the command: timeout, LSF down, exit
// status, output cut short), then parse errors as "bqueues -w: <problem>".
// A tier is never half published: any error fails the whole load.
Result<std::shared_ptr<const LoadState>> BuildLoad(const Result<lsf::CommandResult>& bqueues,
                                                   const Result<lsf::CommandResult>& bhosts,
                                                   SteadyTime counted_at);

// The topology tier's data: the queues of `bqueues -l` with the groups of
// `bmgroup -w` and `bugroup -w` (a "No ... group" answer is an empty list),
// the cluster's identity from `lsid` when it answered (lsid failing does
// not fail the tier: the identity is then empty), and the LSF
// administrators of `lsclusters -l` (of the cluster lsid names, else the
// first listed; lsclusters failing does not fail the tier either: the
// administrators are then unknown, a topology warning).
struct TopologyParts {
  std::shared_ptr<const Topology> topology;
  ClusterIdentity identity;
};
Result<TopologyParts> BuildTopology(const Result<lsf::CommandResult>& bqueues_l,
                                    const Result<lsf::CommandResult>& bmgroup,
                                    const Result<lsf::CommandResult>& bugroup,
                                    const Result<lsf::CommandResult>& lsid,
                                    const Result<lsf::CommandResult>& lsclusters);

// Hosts' InfiniBand health from `lsload -w -I ib_ok` run at `started`.
// When lsload failed (or printed something unreadable) the `previous`
// health (may be null) is kept with the error in last_error, except that
// verdicts older than `max_age` become unknown: a healthy reading must not
// keep admitting a host forever, nor a sick one keep it out. Never fails.
std::shared_ptr<const IbHealthState> BuildIbFromLsload(const Result<lsf::CommandResult>& lsload,
                                                       const IbHealthState* previous,
                                                       SystemTime started,
                                                       std::chrono::milliseconds max_age);

// The queues one user may submit to, as LSF answered `bqueues -u USER -w`.
struct UserPermissions {
  std::string user;
  std::unordered_set<std::string> queues;
  SystemTime as_of{};
};

// `bqueues -u USER -w` (run at `started`) as permissions. Errors as
// lsf::QueryOutput, then "bqueues -u USER -w: <parse problem>".
Result<std::shared_ptr<const UserPermissions>> BuildPermissions(
    const std::string& user, const Result<lsf::CommandResult>& bqueues_u, SystemTime started);

}  // namespace bplace
