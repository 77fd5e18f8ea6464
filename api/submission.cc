#include "api/submission.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include <boost/beast/http/field.hpp>

#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/job_request_decoder.h"
#include "api/json_body.h"
#include "api/json_mapping.h"
#include "api/read_answers.h"

namespace bplace::api {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

// A refusal whose audit reason is the problem's detail.
SubmitRefusal Refuse(const Error& error) { return {MakeProblem(error), error.message}; }

// The same with Retry-After: `seconds`.
SubmitRefusal RefuseForNow(const Error& error, std::string reason, std::int64_t seconds) {
  Response response = MakeProblem(error);
  response.set(http::field::retry_after, std::to_string(seconds));
  return {std::move(response), std::move(reason)};
}

std::optional<SubmitRefusal> CheckCaller(const Caller& caller) {
  if (caller.can_submit) return std::nullopt;
  const Error error{caller.submit_refusal_code, caller.submit_refusal};
  if (error.code == ErrorCode::kUnavailable) {
    return RefuseForNow(error, error.message, kSubmitRetryAfterS);
  }
  return Refuse(error);
}

// The job in the body, or the 415/400 refusal.
tl::expected<JobRequest, SubmitRefusal> DecodeBody(const Services& services, const Request& req) {
  if (std::optional<Response> refused = JsonBodyRefusal(req)) {
    return tl::unexpected(SubmitRefusal{std::move(*refused), "Content-Type is not JSON"});
  }
  auto job = DecodeJobRequest(req.body(), services.options.request);
  if (!job) return tl::unexpected(Refuse(job.error()));
  if (!job->require_ib) job->require_ib = services.ib().require_ib;
  return std::move(*job);
}

// Who the job is submitted for, and (multi-user mode) as whom bsub runs.
tl::expected<SubmitContext, SubmitRefusal> ContextFor(const Services& services,
                                                      const Caller& caller,
                                                      const RequestContext& ctx) {
  SubmitContext context;
  context.user = caller.user;
  context.request_id = ctx.request_id;
  if (!services.multi_user()) return context;
  auto identity = services.auth->SubmitterIdentity(caller);
  if (!identity) return tl::unexpected(Refuse(identity.error()));
  context.run_as = std::move(*identity);
  return context;
}

std::optional<SubmitRefusal> CheckSnapshot(const Services& services) {
  const auto snapshot = services.cache.Current();
  if (!snapshot->complete()) return SubmitRefusal{NoSnapshotYet(*snapshot), "no LSF snapshot yet"};
  const auto stale =
      StaleReason(*snapshot, services.options.max_staleness,
                  services.cache.options().topology_interval, services.clock.SystemNow());
  const bool failing = snapshot->load_status.consecutive_failures > 0 ||
                       snapshot->topology_status.consecutive_failures > 0;
  // LSF unreachable and the snapshot too old to place on: say so at once
  // rather than make the caller wait for bsub's timeout.
  if (!stale || !failing) return std::nullopt;
  const std::string detail =
      "LSF is not answering and the cached data is stale (" + *stale + "); not submitting on it";
  return RefuseForNow(Error{ErrorCode::kUnavailable, detail}, "LSF down and the snapshot stale",
                      kSubmitRetryAfterS);
}

}  // namespace

tl::expected<Admission, SubmitRefusal> AdmitSubmission(const Services& services,
                                                       const Caller& caller, const Request& req,
                                                       const RequestContext& ctx) {
  if (auto refusal = CheckCaller(caller)) return tl::unexpected(std::move(*refusal));
  auto job = DecodeBody(services, req);
  if (!job) return tl::unexpected(std::move(job.error()));
  auto context = ContextFor(services, caller, ctx);
  if (!context) return tl::unexpected(std::move(context.error()));
  if (auto refusal = CheckSnapshot(services)) return tl::unexpected(std::move(*refusal));
  return Admission{std::move(*job), std::move(*context)};
}

Response SubmissionResponse(const SubmissionResult& result, const SubmissionCall& call) {
  json body;
  body["request_id"] = call.context.request_id;
  body["user"] = call.context.user;
  body["attempts"] = AttemptsJson(result.attempts);
  if (result.placement) body["excluded"] = ExclusionsJson(result.placement->excluded);
  if (result.error) {
    if (result.error->code == ErrorCode::kTimeout) {
      body["job_description"] = DescriptionTag(call.context.tag);
      body["retry"] = call.idempotency_key
                          ? "retry with the same Idempotency-Key: it answers 409 until bplace has "
                            "found the job in LSF, then the job"
                          : "send an Idempotency-Key next time, so that a retry is safe";
    }
    Response problem = MakeProblem(*result.error, body);
    if (result.error->code == ErrorCode::kUnavailable) {
      problem.set(http::field::retry_after, std::to_string(kSubmitRetryAfterS));
    }
    if (result.error->code == ErrorCode::kRateLimited) {
      const std::int64_t seconds = std::max<std::int64_t>(1, result.retry_after.count());
      problem.set(http::field::retry_after, std::to_string(seconds));
    }
    return problem;
  }
  body["job_id"] = result.job_id;
  body["queue"] = result.queue;
  body["requested_queue"] = result.requested_queue;
  body["host"] = result.host ? json(*result.host) : json();
  body["bsub_argv"] = result.bsub_argv;
  body["job_url"] = "/v1/jobs/" + result.job_id;
  body["job_description"] = DescriptionTag(call.context.tag);
  body["idempotency_key"] = call.idempotency_key ? json(*call.idempotency_key) : json();
  body["labels"] = call.labels;
  return MakeJson(201, body);
}

}  // namespace bplace::api
