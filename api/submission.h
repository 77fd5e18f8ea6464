#pragma once

// The parts of POST /v1/jobs around the bsub run (docs/api.md "POST /v1/jobs"):
// the checks before it (AdmitSubmission) and the answer after it (SubmissionResponse).
// The route that joins them is PostJobs in api/routes_jobs.h.

#include <string>
#include <string_view>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/services.h"
#include "common/result.h"
#include "daemon/submit/submission_service.h"
#include "daemon/submit/submitter.h"

namespace bplace::api {

// How long a client should wait before retrying a submission that LSF, or
// the passwd database, could not take now (Retry-After of those 503s).
inline constexpr int kSubmitRetryAfterS = 15;

// A job that passed every check before bsub, ready for Submitter::Submit.
struct Admission {
  JobRequest job;         // require_ib filled in from [ib] when the body had none
  SubmitContext context;  // the caller's user, the request id and (multi-user) run_as
};

// A job refused before bsub: the response to send, and the reason for the
// audit line (shorter than the response's detail at times).
struct SubmitRefusal {
  Response response;
  std::string reason;
};

// Runs the checks before bsub, in this order, and returns the first refusal:
//  1. the caller may not submit (Caller::can_submit): 403 with the
//     authenticator's reason, or 503 with Retry-After when the passwd
//     database could not be asked;
//  2. a Content-Type that does not start with application/json (compared
//     case-insensitively, so parameters may follow; none is taken as
//     JSON): 415;
//  3. the body does not decode (DecodeJobRequest): 400 naming the field;
//  4. multi-user mode: the caller has no usable passwd entry
//     (Authenticator::SubmitterIdentity): 403, or 503 when NSS is down;
//  5. no complete snapshot: 503 with Retry-After (NoSnapshotYet);
//  6. a refresh tier is failing and the snapshot is stale (StaleReason at
//     the services' clock): 503 with Retry-After, so that the caller is not
//     kept waiting for bsub's timeout.
// Otherwise returns the job and its context. Takes no token from the
// caller's submission bucket: the submitter does, right before the first
// bsub (Submitter). Blocks only on NSS in multi-user mode (cached five
// minutes). Runs no LSF command.
tl::expected<Admission, SubmitRefusal> AdmitSubmission(const Services& services,
                                                       const Caller& caller, const Request& req,
                                                       const RequestContext& ctx);

// The answer to a submission that ran (Submitter::Submit's result) for
// `call`: 201 with job_id, job_url ("/v1/jobs/<id>"), queue,
// requested_queue, host, bsub_argv, job_description ("bplace:<tag>"),
// idempotency_key and labels, or the problem of the error (409, 422, 503,
// 504, ...) with the request's members as extras; both carry request_id,
// user, attempts and (when placed) excluded. A 504 also names the
// job_description and says that a retry with the same key gets the job once
// bplace has found it in LSF. A 503
// has Retry-After: 15; a 429 (the user's bucket, the LSF-call budget, LSF's
// pending-job threshold) the result's retry_after, at least 1. Pure.
Response SubmissionResponse(const SubmissionResult& result, const SubmissionCall& call);

}  // namespace bplace::api
