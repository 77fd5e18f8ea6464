#pragma once

// The list reads of hosts and groups (docs/api.md "Reads"): every host with its
// state in one answer, every host group, every user group. Like the other
// reads (routes_read.h) each needs the `read` scope, answers from the cached
// snapshot without running an LSF command, is 503 with Retry-After before
// the first complete snapshot (WithSnapshot) and carries the ages
// (`as_of`/`age_s`, `topology_as_of`/`topology_age_s`).

#include <optional>
#include <set>
#include <string>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"
#include "common/result.h"
#include "daemon/cluster/ib_health.h"

namespace bplace::api {

// Which hosts GET /v1/hosts lists: those whose bhosts status is one of
// `statuses` and whose InfiniBand verdict is one of `ib`; an empty set does
// not filter.
struct HostFilter {
  std::set<std::string> statuses;
  std::set<IbHealth> ib;
};

// Reads the query of GET /v1/hosts: `status` (bhosts -w statuses,
// BhostsStatuses()) and `ib` (healthy, unhealthy, unknown), each a
// comma-separated list and repeatable (the values add up). Fails with
// kInvalidArgument naming the parameter and the allowed values for an
// unknown value ("status: unknown bhosts status `okay` (use ok, closed_Adm,
// ...)") or an empty one, and for any other parameter. Pure.
Result<HostFilter> ParseHostFilter(const RouteParams& params);

// GET /v1/hosts: {"hosts": [HostSummaryJson...], "count"} for every host of
// bhosts -w that passes the filter, in bhosts order; 400 for a bad filter
// (ParseHostFilter). The per-host number of admitting queues is the
// snapshot's queues_admitting, counted once per refresh: a request costs
// O(hosts), not O(queues x hosts).
Response GetHosts(const Services& services, const Caller& caller, const Request& req,
                  const RouteParams& params);

// GET /v1/hostgroups: {"host_groups": [GroupJson with "hosts"...], "count"}
// in bmgroup -w order.
Response GetHostGroups(const Services& services, const Caller& caller, const Request& req,
                       const RouteParams& params);

// GET /v1/usergroups: {"user_groups": [GroupJson with "users"...], "count"}
// in bugroup -w order.
Response GetUserGroups(const Services& services, const Caller& caller, const Request& req,
                       const RouteParams& params);

}  // namespace bplace::api
