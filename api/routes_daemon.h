#pragma once

// Routes about the daemon itself rather than the cluster: its health probes
// and the forced refresh of its cache.

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// GET /healthz: 200 {"status": "ok"} while the process serves at all.
// Public: nobody is identified.
Response GetHealthz(const Services& services, const Request& req);

// GET /readyz: 200 {"status": "ready"} with the snapshot's ages when a
// complete snapshot exists and is fresh (StaleReason at the services' clock);
// 503 with Retry-After while there is no complete snapshot (WithSnapshot);
// 503 "stale: <reason>" with the ages as extra members when it is too old.
// Public.
Response GetReadyz(const Services& services, const Request& req);

// POST /v1/cache/refresh (the `admin` scope): starts a refresh of every tier
// and answers 202 {"status": "refresh started"}, or 429 with Retry-After
// (whole seconds) when the last forced refresh was less than
// min_manual_interval ago. Returns at once; the refresh runs on.
Response PostCacheRefresh(const Services& services, const Caller& caller, const Request& req,
                          const RouteParams& params);

}  // namespace bplace::api
