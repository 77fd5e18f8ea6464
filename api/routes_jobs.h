#pragma once

// The job routes: POST /v1/jobs (place and submit). The routes that follow
// tracked jobs (GET /v1/jobs, GET and DELETE /v1/jobs/{id}) belong here too.

#include <string_view>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// POST /v1/jobs (any identified caller; the submit rules are AdmitSubmission's):
// refuses with AdmitSubmission's response, or hands the admitted job to
// `services.submissions` (required: SubmissionService, which runs bsub on the
// runner) and answers with SubmissionResponse once the answer is stored; when
// bsub did not run now, with the stored answer again, 409 while the key's
// first call runs, 422 for a key reused with another body, or 503 when the
// state store or the cross-node key check fails. Logs one audit line per
// decision (AuditRecord). Returns without waiting; `respond` is called once,
// at once for a refusal, else on a runner thread or the journal's worker.
// Blocks only as AdmitSubmission does.
void PostJobs(const Services& services, const Caller& caller, Request&& req,
              const RequestContext& ctx, const RouteParams& params, Responder respond);

// Logs the audit line of a submission the access check refused (a RefusalHook
// for PostJobs: 401 for missing or bad credentials).
void AuditAccessRefusal(const Caller* caller, const RequestContext& ctx, std::string_view reason);

}  // namespace bplace::api
