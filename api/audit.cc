#include "api/audit.h"

#include <string_view>

#include <spdlog/spdlog.h>

#include "api/json_mapping.h"

namespace bplace::api {
namespace {

using nlohmann::json;

// `details` with the members every record has.
json Record(json details, const Caller* caller, const RequestContext& ctx,
            std::string_view decision) {
  details["event"] = "submit";
  details["decision"] = decision;
  details["request_id"] = ctx.request_id;
  details["remote"] = ctx.remote;
  if (caller != nullptr) {
    details["caller"] = caller->user;
    details["uid"] = caller->uid ? json(*caller->uid) : json();
    details["auth"] = AuthMethodName(caller->method);
  }
  return details;
}

}  // namespace

json AuditRecord(const Caller* caller, const RequestContext& ctx, std::string_view reason) {
  return Record({{"reason", reason}}, caller, ctx, "refused");
}

json AuditRecord(const Caller& caller, const RequestContext& ctx, const SubmissionResult& result) {
  json details;
  if (result.placement) {
    json candidates = json::array();
    for (const Candidate& candidate : result.placement->candidates) {
      candidates.push_back(
          {{"queue", candidate.queue}, {"pend", candidate.pend}, {"inflight", candidate.inflight}});
    }
    details["candidates"] = candidates;
  }
  details["attempts"] = AttemptsJson(result.attempts);
  if (result.error) {
    details["reason"] = result.error->message;
    return Record(std::move(details), &caller, ctx, "failed");
  }
  details["queue"] = result.queue;
  details["requested_queue"] = result.requested_queue;
  details["bsub_argv"] = result.bsub_argv;
  details["job_id"] = result.job_id;
  return Record(std::move(details), &caller, ctx, "submitted");
}

}  // namespace bplace::api
