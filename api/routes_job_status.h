#pragma once

// The routes that follow jobs (docs/api.md "Jobs: following and
// cancelling"), answered from the jobs tier (ClusterSnapshot::jobs): never one
// bjobs per request. Each returns at once and calls `respond` exactly once, now
// or after the jobs tier's next refresh. Cancelling: api/routes_job_cancel.h.

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// GET /v1/jobs/{id} ("1234" or "1234[7]"; `read`): the job as the last jobs
// refresh saw it, its wait as the coverage judged it (JobJson; an array job
// asked as a whole: ArrayJobJson).
// An id bplace does not follow yet is followed from now on and looked up in
// the next refresh (at most one a second however many ask), then answered:
// 404 when LSF does not know it either. `wait_s=N` (0..60) answers after the
// next refresh instead of at once, for callers that poll (a long poll: it
// starts no LSF query). 400 for a malformed id or wait_s; 503 with
// Retry-After while the jobs tier cannot answer.
void GetJob(const Services& services, const Caller& caller, Request&& req,
            const RequestContext& ctx, const RouteParams& params, Responder respond);

// GET /v1/jobs (`read`): jobs submitted through bplace, newest first:
// user=NAME (default: the caller; another user, or `all`, needs `admin`),
// status=RUN,PEND,... (LSF's states and SUBMITTED), label=KEY=VALUE,
// since=RFC3339 (submitted at or after), limit=1..1000 (100), cursor= (the
// next_cursor of the previous page), wait_s= as GetJob. 400 naming a bad
// parameter.
void ListJobs(const Services& services, const Caller& caller, Request&& req,
              const RequestContext& ctx, const RouteParams& params, Responder respond);

}  // namespace bplace::api
