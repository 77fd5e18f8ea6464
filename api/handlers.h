#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "api/auth.h"
#include "api/job_request_decoder.h"
#include "api/options.h"
#include "api/router.h"
#include "daemon/cluster_cache.h"
#include "daemon/rate_limiter.h"
#include "daemon/submitter.h"

namespace bplace::api {

// What the handlers need from the daemon. Owned by the daemon; outlives the
// server.
struct Services {
  const Authenticator* auth = nullptr;  // who callers are; null: everyone is the daemon's user
  RateLimiter* limiter = nullptr;       // submissions per user; null: unlimited
  ClusterCache* cache = nullptr;
  Submitter* submitter = nullptr;  // its options() give the [ib] policy
  InflightLedger* ledger = nullptr;
  std::string user;  // the caller every request acts for (service-account mode: the daemon's user)
  ApiOptions options;
  std::string version;

  // bsub runs as the caller ([auth] mode = "multi-user").
  bool multi_user() const { return auth != nullptr && auth->policy().mode == AuthMode::kMultiUser; }
  const IbPolicy& ib() const { return submitter->options().ib; }
};

// Adds every endpoint of DESIGN §4 to `router`:
// GET /healthz, /readyz, /v1/cluster, /v1/queues, /v1/queues/{name},
// /v1/hosts/{host}, /v1/hostgroups/{name}, /v1/placement, /v1/ib; POST /v1/jobs,
// /v1/cache/refresh. Reads answer from the cached snapshot and never run an
// LSF command; each carries `as_of` (RFC 3339, UTC) and `age_s` (seconds) of
// the load data, and `topology_as_of`/`topology_age_s` of the topology.
// Errors are application/problem+json. Every route but /healthz and /readyz
// first identifies the caller (Authenticator): 401 with `WWW-Authenticate:
// Bearer` without acceptable credentials, 403 for what the caller may not
// do; POST /v1/jobs is also limited per user (429 with Retry-After) and
// logs one `audit` line per decision. `services` must outlive the router's
// handlers.
void RegisterRoutes(Router& router, const Services& services);

}  // namespace bplace::api
