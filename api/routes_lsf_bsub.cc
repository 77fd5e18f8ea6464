// POST /v1/lsf/bsub (api/routes_lsf.h).

#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include <boost/beast/http/field.hpp>
#include <nlohmann/json.hpp>

#include "api/bsub_request.h"
#include "api/http/problem.h"
#include "api/lsf_answer.h"
#include "api/routes_jobs.h"
#include "api/routes_lsf.h"
#include "daemon/placement/placement.h"
#include "lsf_adapter/bsub_command_line.h"

namespace bplace::api {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

// The submitter's context from the request body: "cwd" (absolute),
// "umask", "environment" and "stdin", as the front door read them.
Result<BsubSubmitter> SubmitterOf(const json& body) {
  BsubSubmitter submitter;
  const auto text = [&](const char* key) -> std::optional<std::string> {
    if (!body.contains(key) || !body[key].is_string()) return std::nullopt;
    return body[key].get<std::string>();
  };
  const auto cwd = text("cwd");
  if (!cwd || cwd->empty() || cwd->front() != '/') {
    return Fail(ErrorCode::kInvalidArgument, "cwd: expected the caller's absolute directory");
  }
  submitter.workdir = *cwd;
  submitter.umask = text("umask");
  submitter.script = text("stdin");
  if (body.contains("environment")) submitter.environment = body["environment"];
  return submitter;
}

// `args` with the queue placement chooses for `line` (no -q, or a -q list),
// for the real bsub to run when bplace does not submit the job itself: "-q
// QUEUE" first, or the list of a separate -q word replaced. `args` as they
// are when placement has no answer or the command line names one queue,
// or none (-q '': LSF's to answer).
std::vector<std::string> WithPlacedQueue(const Services& services, const Caller& caller,
                                         const std::vector<std::string>& args,
                                         const lsf::BsubCommandLine& line) {
  PlacementRequest request;
  request.user = caller.user.empty() ? services.user : caller.user;
  request.require_ib = services.ib().require_ib;
  const auto queue = line.Last("-q");
  if (queue) request.queues = SplitQueueList(*queue);
  // One queue is the user's choice; none (-q '') is not "any queue".
  if (queue && request.queues.size() < 2) return args;
  if (const auto host = line.Last("-m")) {
    const std::vector<std::string> hosts = SplitQueueList(*host);
    if (hosts.size() != 1) return args;
    request.host = hosts.front();
  }
  if (const auto slots = line.Last("-n")) {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(slots->data(), slots->data() + slots->size(), n);
    if (ec != std::errc() || end != slots->data() + slots->size()) return args;
    request.slots = n;
  }
  const auto placement = services.submitter.DryRun(request);
  if (!placement || placement->candidates.empty()) return args;
  const std::string& best = placement->candidates.front().queue;
  std::vector<std::string> placed = args;
  if (!queue) {
    placed.insert(placed.begin(), {"-q", best});
    return placed;
  }
  const std::size_t command_at = args.size() - line.command.size();
  for (std::size_t i = 0; i + 1 < command_at; ++i) {
    if (placed[i] == "-q") placed[i + 1] = best;  // a glued "-qa b" stays as it is
  }
  return placed;
}

// The member of a problem answer, or "".
std::string ProblemMember(const json& problem, const char* key) {
  return problem.contains(key) && problem[key].is_string() ? problem[key].get<std::string>() : "";
}

// LSF's words of the last bsub attempt in a problem answer, as bsub prints
// them on stderr.
std::string LastAttemptWords(const json& problem) {
  if (problem.contains("attempts") && problem["attempts"].is_array() &&
      !problem["attempts"].empty()) {
    const json& last = problem["attempts"].back();
    if (last.contains("message") && last["message"].is_string()) {
      return last["message"].get<std::string>();
    }
  }
  return ProblemMember(problem, "detail");
}

// The first queue of a problem answer's `excluded` list left out for a
// reason LSF does not know (IsExclusionLsfAllows: InfiniBand health), as
// "QUEUE: REASON"; none when LSF would refuse the job too.
std::optional<std::string> ExclusionLsfAllows(const json& problem) {
  if (!problem.contains("excluded") || !problem["excluded"].is_array()) return std::nullopt;
  for (const json& item : problem["excluded"]) {
    if (item.is_object() && IsExclusionLsfAllows(item.value("code", ""))) {
      return item.value("queue", "") + ": " + item.value("reason", "");
    }
  }
  return std::nullopt;
}

// POST /v1/jobs's answer in bsub's words:
//  - 201: bsub's line, exit 0;
//  - 422 and 502 (LSF refused the job, or bsub failed without taking it):
//    LSF's words on stderr, exit 255, as bsub;
//  - 409 with Retry-After (the key's first call still runs), 429, 504 and
//    500 (the job may exist), and 503: the answer as it is, for the front
//    door to retry with the same key. A 503 can come before the key is
//    looked up (no snapshot yet after a restart), so only the front door
//    knows whether an earlier call with the key may have submitted;
//  - 409 no queue may take the job, when a queue was left out for a
//    reason LSF does not know (a host's InfiniBand health): bplace's
//    words on stderr, exit 255, as bsub refusing; LSF's bsub would start
//    the job on the sick host;
//  - anything else (400 a value bplace refuses, 403, 409 no queue may take
//    the job for reasons LSF knows too; each the same for every call with
//    the key, or stored with it): the real bsub with the command line as it
//    was, which answers in LSF's words.
Response InBsubWords(Response answer, const std::vector<std::string>& args) {
  const unsigned status = answer.result_int();
  const json body = json::parse(answer.body(), nullptr, false);
  if (status == 201 && body.is_object()) {
    return AnswerAsLsf({"Job <" + ProblemMember(body, "job_id") + "> is submitted to queue <" +
                            ProblemMember(body, "queue") + ">.\n",
                        "", 0});
  }
  if (status == 422 || status == 502) {
    std::string words = LastAttemptWords(body);
    if (!words.empty() && words.back() != '\n') words += '\n';
    return AnswerAsLsf({"", words, 255});
  }
  const bool retry_same_key = (status == 409 && answer.count(http::field::retry_after) > 0) ||
                              status == 429 || status == 500 || status == 503 || status == 504;
  if (retry_same_key) return answer;
  if (status == 409) {
    if (const auto why = ExclusionLsfAllows(body)) {
      return AnswerAsLsf({"",
                          "bplace: " + *why +
                              "\nbplace: no queue may take this job; LSF's own bsub "
                              "(BPLACE_FRONTDOOR=off) does not know the hosts' InfiniBand "
                              "health. Job not submitted.\n",
                          255});
    }
  }
  return RunRealLsf(args, ProblemMember(body, "detail"));
}

// The request PostJobs reads: `body` as JSON, with the caller's
// Idempotency-Key (the front door sends one per bsub it runs).
Request JobsRequest(const Request& from, const json& body) {
  Request jobs(http::verb::post, "/v1/jobs", from.version());
  for (const auto& field : from) {
    if (field.name() == http::field::content_type || field.name() == http::field::content_length) {
      continue;
    }
    jobs.insert(field.name_string(), field.value());
  }
  jobs.set(http::field::content_type, "application/json");
  jobs.body() = body.dump();
  jobs.prepare_payload();
  return jobs;
}

}  // namespace

void PostLsfBsub(const Services& services, const Caller& caller, Request&& req,
                 const RequestContext& ctx, const RouteParams& params, Responder respond) {
  const json body = json::parse(req.body(), nullptr, false);
  auto argv = ArgvOf(body);
  if (!argv) return respond(MakeProblem(argv.error()));
  auto submitter = SubmitterOf(body);
  if (!submitter) return respond(MakeProblem(submitter.error()));
  auto line = lsf::ParseBsubCommandLine(*argv);
  if (!line) return respond(RunRealLsf(*argv, line.error().message));
  if (line->Has(lsf::BsubOptionUse::kBlocking)) {
    return respond(RunRealLsf(WithPlacedQueue(services, caller, *argv, *line),
                              "an interactive or blocking bsub runs as you, on the queue placed"));
  }
  if (!caller.can_submit) {
    return respond(RunRealLsf(WithPlacedQueue(services, caller, *argv, *line),
                              "bplaced does not submit for you here: " + caller.submit_refusal));
  }
  auto job = JobBodyFromBsub(*line, *submitter);
  if (!job) return respond(RunRealLsf(*argv, job.error().message));
  PostJobs(services, caller, JobsRequest(req, *job), ctx, params,
           [args = *argv, respond = std::move(respond)](Response answer) {
             respond(InBsubWords(std::move(answer), args));
           });
}

}  // namespace bplace::api
