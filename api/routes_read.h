#pragma once

// The read routes of the cluster's state (docs/api.md "Reads"). Each answers
// from the cached snapshot and never runs an LSF command; each needs the `read`
// scope (route_access.h checks it before the call) and does not block. Ages
// (`as_of`/`age_s` of the load data, `topology_as_of`/`topology_age_s` of the
// topology) are measured to the services' clock. Routes that need a complete
// snapshot answer 503 with Retry-After without one (WithSnapshot); a name
// that is not there is 404 (NotFound).

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// GET /v1/cluster: cluster_name, master_name, lsf_version, bplace_version,
// user (the daemon's), ready, the ages (null before the first complete
// snapshot), each tier as TierJson (`load`, `topology`) with its interval
// (`refresh_s`: lsf.load_refresh_s, lsf.topology_refresh_s), counts, topology
// warnings and inflight_slots per queue. Always 200, also before the first
// snapshot: it is what one reads to learn why there is none.
Response GetCluster(const Services& services, const Caller& caller, const Request& req,
                    const RouteParams& params);

// GET /v1/queues: {"queues": [QueueJson...]} in bqueues -l order, with ages.
Response GetQueues(const Services& services, const Caller& caller, const Request& req,
                   const RouteParams& params);

// GET /v1/queues/{name}: one QueueJson with ages; 404 for a queue not in
// bqueues -l.
Response GetQueue(const Services& services, const Caller& caller, const Request& req,
                  const RouteParams& params);

// GET /v1/hosts/{host}: host, in_bhosts, status, takes_new_work, max, njobs,
// run (null when not in bhosts), the queues that admit it and those that
// exclude it (HostQueuesJson), its InfiniBand health (`ib`) and ages. 404
// for a host neither bhosts, a host group nor a HOSTS line names. Names are
// compared exactly.
Response GetHost(const Services& services, const Caller& caller, const Request& req,
                 const RouteParams& params);

// GET /v1/hostgroups/{name}: name, members (as bmgroup prints them), all
// (the group is "all"), hosts (expanded, nested groups resolved) and ages;
// 404 for a group not in bmgroup -w.
Response GetHostGroup(const Services& services, const Caller& caller, const Request& req,
                      const RouteParams& params);

// GET /v1/ib: source ([ib] source), require_ib, source_as_of and
// source_error (null when none), the hosts grouped by health (IbHostsJson)
// and ages.
Response GetIb(const Services& services, const Caller& caller, const Request& req,
               const RouteParams& params);

}  // namespace bplace::api
