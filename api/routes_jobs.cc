#include "api/routes_jobs.h"

#include <utility>

#include "api/audit.h"
#include "api/submission.h"

namespace bplace::api {

void PostJobs(const Services& services, const Caller& caller, Request&& req,
              const RequestContext& ctx, Responder respond) {
  auto admitted = Admit(services, caller, req, ctx);
  if (!admitted) {
    LogAudit(AuditRecord(&caller, ctx, admitted.error().reason));
    return respond(std::move(admitted.error().response));
  }
  services.submitter->Submit(
      std::move(admitted->job), std::move(admitted->context),
      [respond = std::move(respond), caller, ctx = RequestContext(ctx)](SubmissionResult result) {
        LogAudit(AuditRecord(caller, ctx, result));
        respond(SubmissionResponse(result, ctx.request_id, caller.user));
      });
}

void AuditAccessRefusal(const Caller* caller, const RequestContext& ctx, std::string_view reason) {
  LogAudit(AuditRecord(caller, ctx, reason));
}

}  // namespace bplace::api
