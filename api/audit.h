#pragma once

// The audit records of submissions: one per decision on a POST /v1/jobs,
// written with LogAudit (daemon/state/audit_log.h) to the audit file.

#include <string_view>

#include <nlohmann/json.hpp>

#include "api/auth.h"
#include "api/http/message.h"
#include "daemon/state/audit_log.h"
#include "daemon/submit/submitter.h"

namespace bplace::api {

// The record of a submission refused before bsub: event "submit", decision
// "refused", `reason`, request_id and remote of `ctx`, and, when the caller
// was identified (`caller` not null), caller (user name), uid (null when
// unknown) and auth (AuthMethodName). Pure.
nlohmann::json AuditRecord(const Caller* caller, const RequestContext& ctx,
                           std::string_view reason);

// The record of a submission that ran: decision "submitted" with queue,
// requested_queue, bsub_argv and job_id, or "failed" with `reason` (the
// error's message); both with the attempts (AttemptsJson), the ranked
// candidates ({queue, pend, inflight}) when a placement was made, and the
// request and caller members as above. Pure.
nlohmann::json AuditRecord(const Caller& caller, const RequestContext& ctx,
                           const SubmissionResult& result);

}  // namespace bplace::api
