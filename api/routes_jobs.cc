#include "api/routes_jobs.h"

#include <utility>

#include <boost/beast/http/field.hpp>

#include "api/audit.h"
#include "api/http/problem.h"
#include "api/idempotency.h"
#include "api/submission.h"

namespace bplace::api {
namespace {

namespace http = boost::beast::http;

// Retry-After of a 409 for a key whose first call is still running.
constexpr int kInProgressRetryAfterS = 5;

// The call the admitted job makes: its key, body hash, tag and labels.
Result<SubmissionCall> CallFor(Admission admitted, const Caller& caller, const Request& req,
                               const RequestContext& ctx) {
  auto key = IdempotencyKeyOf(req, ctx);
  if (!key) return tl::unexpected(key.error());
  SubmissionCall call;
  call.labels = admitted.job.labels;
  call.job = std::move(admitted.job);
  call.context = std::move(admitted.context);
  call.idempotency_key = std::move(*key);
  call.body_sha256 = CanonicalBodyHash(req.body());
  call.context.tag = TagFor(caller.user, call.idempotency_key, ctx.request_id);
  return call;
}

// Why a call did not run bsub now, for the audit line.
const char* NotRunReason(SubmissionAnswer::Kind kind) {
  switch (kind) {
    case SubmissionAnswer::Kind::kReplay:
      return "Idempotency-Key already answered: the stored answer is sent again";
    case SubmissionAnswer::Kind::kInProgress:
      return "Idempotency-Key: the first request with this key is still running";
    case SubmissionAnswer::Kind::kKeyReused:
      return "Idempotency-Key reused with another body";
    default:
      return "the state store failed";
  }
}

// The answer to a call that did not run bsub now.
Response NotRun(const SubmissionAnswer& answer) {
  switch (answer.kind) {
    case SubmissionAnswer::Kind::kReplay: {
      Response response(static_cast<http::status>(answer.http_status), 11);
      response.set(http::field::content_type,
                   answer.http_status >= 400 ? "application/problem+json" : "application/json");
      response.set("Idempotency-Replayed", "true");
      response.body() = answer.body;
      response.prepare_payload();
      return response;
    }
    case SubmissionAnswer::Kind::kInProgress: {
      Response problem = MakeProblem(
          Error{ErrorCode::kConflict,
                "Idempotency-Key: the first request with this key has not been answered yet "
                "(bsub is running, or bplace is finding the job in LSF after a restart); retry"});
      problem.set(http::field::retry_after, std::to_string(kInProgressRetryAfterS));
      return problem;
    }
    case SubmissionAnswer::Kind::kKeyReused:
      return MakeProblem(422, "Unprocessable Content",
                         "Idempotency-Key: already used with another request body; a new "
                         "submission needs a new key");
    default: {
      Response problem = MakeProblem(answer.error.value_or(
          Error{ErrorCode::kUnavailable, "the state store failed; nothing was submitted"}));
      problem.set(http::field::retry_after, std::to_string(kSubmitRetryAfterS));
      return problem;
    }
  }
}

}  // namespace

void PostJobs(const Services& services, const Caller& caller, Request&& req,
              const RequestContext& ctx, const RouteParams&, Responder respond) {
  auto admitted = AdmitSubmission(services, caller, req, ctx);
  if (!admitted) {
    LogAudit(AuditRecord(&caller, ctx, admitted.error().reason));
    return respond(std::move(admitted.error().response));
  }
  auto call = CallFor(std::move(*admitted), caller, req, ctx);
  if (!call) {
    LogAudit(AuditRecord(&caller, ctx, call.error().message));
    return respond(MakeProblem(call.error()));
  }
  const Services* s = &services;
  s->submissions.Submit(*call, [s, call = *call, respond = std::move(respond), caller,
                                ctx = RequestContext(ctx)](SubmissionAnswer answer) {
    if (answer.kind != SubmissionAnswer::Kind::kSubmitted) {
      LogAudit(AuditRecord(&caller, ctx, NotRunReason(answer.kind)));
      return respond(NotRun(answer));
    }
    LogAudit(AuditRecord(caller, ctx, answer.result));
    Response response = SubmissionResponse(answer.result, call);
    // Stored before it is sent: a retry after this answer gets it again.
    s->submissions.Record(call, answer.result, response.result_int(), response.body(),
                          [respond, response]() mutable { respond(std::move(response)); });
  });
}

void AuditAccessRefusal(const Caller* caller, const RequestContext& ctx, std::string_view reason) {
  LogAudit(AuditRecord(caller, ctx, reason));
}

}  // namespace bplace::api
