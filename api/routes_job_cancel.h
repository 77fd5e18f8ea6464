#pragma once

// The routes that cancel jobs (docs/api.md "Jobs: following and
// cancelling"): one bkill per request, as the caller in multi-user mode,
// for jobs the jobs tier knows. Each returns at once and calls `respond`
// exactly once, when bkill has answered.

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// DELETE /v1/jobs/{id}: bkill as the caller (multi-user mode: a child that
// dropped to them), for the job's owner or an `admin` caller who may submit.
// Idempotent: a finished job answers 200 with its state; a job LSF took the
// kill of 202 with the job. 403 for another user's job; 404 for an id LSF
// does not know; 503 when LSF is down.
void DeleteJob(const Services& services, const Caller& caller, Request&& req,
               const RequestContext& ctx, const RouteParams& params, Responder respond);

// POST /v1/jobs:cancel {"ids": [...]} or {"labels": {"k": "v", ...}}: the
// caller's unfinished jobs among `ids`, or those with every label, with one
// bkill for the batch; 200 with a result per job (outcome: terminating,
// already_finished, not_found, permission_denied, unknown, not_followed).
void CancelJobs(const Services& services, const Caller& caller, Request&& req,
                const RequestContext& ctx, const RouteParams& params, Responder respond);

}  // namespace bplace::api
