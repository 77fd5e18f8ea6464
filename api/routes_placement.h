#pragma once

// GET /v1/placement: the dry run of a placement (docs/api.md "GET
// /v1/placement").

#include <string>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"
#include "common/result.h"
#include "daemon/placement/placement.h"

namespace bplace::api {

// Reads the query of GET /v1/placement into a request for `user` (the
// caller's own placement unless `user=` names another): host (optional),
// user (optional), queue/queues (comma-separated, repeatable, empty pieces
// skipped), slots (the job's bsub -n, 1..`max_slots`; default 1),
// require_ib (true|false; default `require_ib`). Pure. Returns
// kInvalidArgument naming the parameter for host, user, slots or require_ib
// given more than once, a require_ib that is neither true nor false, slots
// that is not an integer in range, an unknown parameter, and an empty user
// or host.
Result<PlacementRequest> ParsePlacementQuery(const RouteParams& params, const std::string& user,
                                             bool require_ib, std::int64_t max_slots);

// GET /v1/placement (the `read` scope): ranks the queues for the request
// from the cached snapshot (Submitter::DryRun; never an LSF command) and
// answers 200 with PlacementJson and ages. 403 when `user=` names someone
// other than the caller (an anonymous caller is the daemon's user) and the
// caller lacks the `admin` scope; 400 as ParsePlacementQuery; DryRun's
// errors as their problems (404 unknown host or queue, 503 without a
// snapshot). A host with unhealthy InfiniBand is a 200 like any other host
// no queue can take: `chosen` null and every queue's reason.
Response GetPlacement(const Services& services, const Caller& caller, const Request& req,
                      const RouteParams& params);

}  // namespace bplace::api
