#pragma once

#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// Adds every endpoint of docs/api.md "Routes" to `router`, one route function each:
// GET /healthz, /readyz (api/routes_daemon.h); GET /metrics
// (api/routes_metrics.h); GET /v1/cluster, /v1/queues,
// /v1/queues/{name}, /v1/hosts/{host}, /v1/hostgroups/{name}, /v1/ib
// (api/routes_read.h); GET /v1/placement (api/routes_placement.h); POST
// /v1/jobs (api/routes_jobs.h); POST /v1/cache/refresh (routes_daemon.h).
// Reads answer from the cached snapshot and never run an LSF command; each
// carries `as_of` (RFC 3339, UTC) and `age_s` (seconds) of the load data,
// and `topology_as_of`/`topology_age_s` of the topology. Errors are
// application/problem+json. Every route but /healthz and /readyz first
// identifies the caller, once (api/route_access.h): 401 with
// `WWW-Authenticate: Bearer` without acceptable credentials, and for an
// anonymous caller on a route that needs a scope anonymous callers lack (a
// token could help); 403 naming the caller for what an identified caller
// may not do; POST /v1/jobs is also limited per user (429 with Retry-After)
// and logs one `audit` line per decision. `services` must outlive the router's handlers.
void RegisterRoutes(Router& router, const Services& services);

}  // namespace bplace::api
