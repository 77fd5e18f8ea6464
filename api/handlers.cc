#include "api/handlers.h"

#include <algorithm>
#include <set>

#include <boost/beast/core/string.hpp>

#include <nlohmann/json.hpp>

#include "api/job_request_decoder.h"
#include "api/json_mapping.h"
#include "api/problem.h"

#include <spdlog/spdlog.h>

namespace bplace::api {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

// 503 when no complete snapshot exists; reads of LSF state need one.
std::optional<Response> NeedSnapshot(const ClusterSnapshot& snapshot) {
  if (snapshot.complete()) return std::nullopt;
  std::string detail = "no LSF snapshot yet";
  if (!snapshot.topology_status.last_error.empty()) {
    detail += "; topology refresh: " + snapshot.topology_status.last_error;
  }
  if (!snapshot.load_status.last_error.empty()) {
    detail += "; load refresh: " + snapshot.load_status.last_error;
  }
  Response response = MakeProblem(Error{ErrorCode::kUnavailable, detail});
  response.set(http::field::retry_after, "5");
  return response;
}

template <typename Body>
void Reply(const Responder& respond, const Request& req, Body body) {
  body.keep_alive(req.keep_alive());
  body.version(req.version());
  respond(std::move(body));
}

// The caller of `req`, or nullopt after replying 401/403 when it may not do
// `what` ("read" or "admin").
std::optional<Caller> Authorize(const Services* s, const Request& req, const RequestContext& ctx,
                                const Responder& respond, std::string_view what) {
  if (s->auth == nullptr) {
    Caller caller;
    caller.user = s->user;
    caller.can_read = caller.can_submit = caller.is_admin = true;
    return caller;
  }
  auto caller = s->auth->Identify(req, ctx);
  if (!caller) {
    Response problem = MakeProblem(caller.error());
    problem.set(http::field::www_authenticate, "Bearer realm=\"bplace\"");
    Reply(respond, req, std::move(problem));
    return std::nullopt;
  }
  const bool allowed = what == "admin" ? caller->is_admin : caller->can_read;
  if (!allowed) {
    Reply(respond, req,
          MakeProblem(Error{
              ErrorCode::kPermissionDenied,
              "the token of " + caller->user + " lacks the `" + std::string(what) + "` scope"}));
    return std::nullopt;
  }
  return std::move(*caller);
}

// Wraps a read route: the caller must be allowed to read.
RouteHandler Guarded(const Services* s, std::string_view what, RouteHandler inner) {
  return [s, what, inner = std::move(inner)](Request&& req, const RequestContext& ctx,
                                             const RouteParams& params, Responder respond) {
    if (!Authorize(s, req, ctx, respond, what)) return;
    inner(std::move(req), ctx, params, std::move(respond));
  };
}

// One `audit` log line per submission decision, JSON after the word so that
// `journalctl -u bplaced | grep ' audit '` finds them and jq reads them.
void Audit(const Caller* caller, const RequestContext& ctx, std::string_view decision,
           const json& details) {
  json line = details;
  line["event"] = "submit";
  line["decision"] = decision;
  line["request_id"] = ctx.request_id;
  line["remote"] = ctx.remote;
  if (caller) {
    line["caller"] = caller->user;
    line["uid"] = caller->uid ? json(*caller->uid) : json();
    line["auth"] = AuthMethodName(caller->method);
  }
  // LSF's replies are arbitrary bytes: replace invalid UTF-8 instead of
  // throwing on a runner thread.
  spdlog::info("audit {}", line.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace

void RegisterRoutes(Router& router, const Services& services) {
  const Services* s = &services;

  router.Add(http::verb::get, "/healthz",
             [](Request&& req, const RequestContext&, const RouteParams&, Responder respond) {
               Reply(respond, req, MakeJson(200, {{"status", "ok"}}));
             });

  router.Add(http::verb::get, "/readyz",
             [s](Request&& req, const RequestContext&, const RouteParams&, Responder respond) {
               const auto snapshot = s->cache->Current();
               if (auto problem = NeedSnapshot(*snapshot)) return Reply(respond, req, *problem);
               if (auto stale =
                       StaleReason(*snapshot, s->options.max_staleness,
                                   s->cache->options().topology_interval, s->clock->SystemNow())) {
                 json extra;
                 AddAge(extra, *snapshot, s->clock->SystemNow());
                 return Reply(
                     respond, req,
                     MakeProblem(Error{ErrorCode::kUnavailable, "stale: " + *stale}, extra));
               }
               json body{{"status", "ready"}};
               AddAge(body, *snapshot, s->clock->SystemNow());
               Reply(respond, req, MakeJson(200, body));
             });

  router.Add(
      http::verb::get, "/v1/cluster",
      Guarded(s, "read",
              [s](Request&& req, const RequestContext&, const RouteParams&, Responder respond) {
                const auto snapshot = s->cache->Current();
                json body;
                body["cluster_name"] = snapshot->identity.cluster_name;
                body["master_name"] = snapshot->identity.master_name;
                body["lsf_version"] = snapshot->identity.version;
                body["bplace_version"] = s->version;
                body["user"] = s->user;
                if (snapshot->complete()) {
                  AddAge(body, *snapshot, s->clock->SystemNow());
                } else {
                  body["as_of"] = nullptr;
                  body["age_s"] = nullptr;
                }
                body["ready"] = snapshot->complete();
                body["load"] =
                    TierJson(snapshot->load_status, snapshot->load_as_of, s->clock->SystemNow());
                body["topology"] = TierJson(snapshot->topology_status, snapshot->topology_as_of,
                                            s->clock->SystemNow());
                json counts;
                counts["queues"] = snapshot->topology ? snapshot->topology->queues().size() : 0;
                counts["hosts"] = snapshot->load ? snapshot->load->hosts.size() : 0;
                counts["host_groups"] =
                    snapshot->topology ? snapshot->topology->host_groups().Names().size() : 0;
                counts["user_groups"] =
                    snapshot->topology ? snapshot->topology->user_groups().Names().size() : 0;
                body["counts"] = counts;
                body["warnings"] = snapshot->topology ? snapshot->topology->warnings()
                                                      : std::vector<std::string>{};
                json inflight = json::object();
                for (const auto& [queue, slots] : s->ledger->Counts()) inflight[queue] = slots;
                body["inflight_slots"] = inflight;
                Reply(respond, req, MakeJson(200, body));
              }));

  router.Add(
      http::verb::get, "/v1/queues",
      Guarded(s, "read",
              [s](Request&& req, const RequestContext&, const RouteParams&, Responder respond) {
                const auto snapshot = s->cache->Current();
                if (auto problem = NeedSnapshot(*snapshot)) return Reply(respond, req, *problem);
                const auto inflight = s->ledger->Counts();
                json queues = json::array();
                for (const QueueTopology& queue : snapshot->topology->queues()) {
                  queues.push_back(QueueJson(*snapshot, queue, inflight));
                }
                json body{{"queues", queues}};
                AddAge(body, *snapshot, s->clock->SystemNow());
                Reply(respond, req, MakeJson(200, body));
              }));

  router.Add(
      http::verb::get, "/v1/queues/{name}",
      Guarded(
          s, "read",
          [s](Request&& req, const RequestContext&, const RouteParams& params, Responder respond) {
            const auto snapshot = s->cache->Current();
            if (auto problem = NeedSnapshot(*snapshot)) return Reply(respond, req, *problem);
            const std::string name(params.Path("name"));
            const QueueTopology* queue = snapshot->topology->FindQueue(name);
            if (queue == nullptr) {
              return Reply(respond, req,
                           MakeProblem(Error{ErrorCode::kNotFound,
                                             "queue " + name + " does not exist (bqueues -l)"}));
            }
            json body = QueueJson(*snapshot, *queue, s->ledger->Counts());
            AddAge(body, *snapshot, s->clock->SystemNow());
            Reply(respond, req, MakeJson(200, body));
          }));

  router.Add(
      http::verb::get, "/v1/hosts/{host}",
      Guarded(
          s, "read",
          [s](Request&& req, const RequestContext&, const RouteParams& params, Responder respond) {
            const auto snapshot = s->cache->Current();
            if (auto problem = NeedSnapshot(*snapshot)) return Reply(respond, req, *problem);
            const std::string host(params.Path("host"));
            const lsf::HostStatus* status = snapshot->load->FindHost(host);
            const Topology& topology = *snapshot->topology;
            if (status == nullptr && !topology.NamesHost(host)) {
              return Reply(respond, req,
                           MakeProblem(Error{ErrorCode::kNotFound,
                                             "host " + host +
                                                 " is not known to LSF (not in bhosts -w, no host "
                                                 "group or HOSTS line names it)"}));
            }
            json body;
            body["host"] = host;
            body["in_bhosts"] = status != nullptr;
            body["status"] = status ? json(status->status) : json();
            body["takes_new_work"] = status != nullptr && HostTakesNewWork(status->status);
            body["max"] = status ? Limit(status->max) : json();
            body["njobs"] = status ? json(status->njobs) : json();
            body["run"] = status ? json(status->run) : json();
            json queues = json::array();
            json excluded = json::array();
            for (const QueueTopology& queue : topology.queues()) {
              const HostAdmission admission = topology.AdmitHost(queue, host);
              if (admission.admitted()) {
                json entry = AdmissionJson(admission);
                entry["queue"] = queue.definition.name;
                queues.push_back(std::move(entry));
              } else if (admission.via == HostAdmission::Via::kExcluded) {
                excluded.push_back({{"queue", queue.definition.name},
                                    {"token", admission.token},
                                    {"reason", DescribeAdmission(admission)}});
              }
            }
            body["queues"] = queues;
            body["excluded_by"] = excluded;
            {
              const HostIbHealth* ib = snapshot->ib ? snapshot->ib->Find(host) : nullptr;
              body["ib"] =
                  HostIbJson(ib ? *ib : HostIbHealth{}, snapshot->ib.get(), s->clock->SystemNow());
            }
            AddAge(body, *snapshot, s->clock->SystemNow());
            Reply(respond, req, MakeJson(200, body));
          }));

  router.Add(
      http::verb::get, "/v1/hostgroups/{name}",
      Guarded(
          s, "read",
          [s](Request&& req, const RequestContext&, const RouteParams& params, Responder respond) {
            const auto snapshot = s->cache->Current();
            if (auto problem = NeedSnapshot(*snapshot)) return Reply(respond, req, *problem);
            const std::string name(params.Path("name"));
            const GroupIndex& groups = snapshot->topology->host_groups();
            const lsf::Group* group = groups.Find(name);
            if (group == nullptr) {
              return Reply(
                  respond, req,
                  MakeProblem(Error{ErrorCode::kNotFound,
                                    "host group " + name + " does not exist (bmgroup -w)"}));
            }
            json body;
            body["name"] = name;
            body["members"] = group->members;
            body["all"] = groups.IsAll(name);
            body["hosts"] = groups.Expand(name);
            AddAge(body, *snapshot, s->clock->SystemNow());
            Reply(respond, req, MakeJson(200, body));
          }));

  router.Add(
      http::verb::get, "/v1/placement",
      Guarded(
          s, "read",
          [s](Request&& req, const RequestContext& ctx, const RouteParams& params,
              Responder respond) {
            PlacementRequest request;
            // Without `user`, the caller's own placement (the daemon's user for
            // anonymous callers and without authentication).
            std::string caller_user = s->user;
            bool is_admin = s->auth == nullptr;
            if (s->auth) {
              // Guarded identified the caller already; this repeats only the
              // cached lookup, to learn the name and the admin scope.
              if (auto caller = s->auth->Identify(req, ctx)) {
                if (!caller->user.empty()) caller_user = caller->user;
                is_admin = caller->is_admin;
              }
            }
            request.user = std::string(params.Query("user").value_or(caller_user));
            if (request.user != caller_user && !is_admin) {
              // Another user's permissions and bsub refusals are theirs.
              return Reply(respond, req,
                           MakeProblem(Error{ErrorCode::kPermissionDenied,
                                             "user: placing for another user than yourself (" +
                                                 caller_user + ") needs the `admin` scope"}));
            }
            request.require_ib = s->ib().require_ib;
            if (auto host = params.Query("host")) request.host = std::string(*host);
            std::set<std::string> seen;
            for (const auto& [key, value] : params.query) {
              if ((key == "user" || key == "host" || key == "require_ib") &&
                  !seen.insert(key).second) {
                return Reply(respond, req,
                             MakeProblem(Error{ErrorCode::kInvalidArgument,
                                               key + ": given more than once"}));
              }
              if (key == "queue" || key == "queues") {
                std::size_t start = 0;
                while (start <= value.size()) {
                  const std::size_t comma = std::min(value.find(',', start), value.size());
                  if (comma > start) request.queues.push_back(value.substr(start, comma - start));
                  start = comma + 1;
                }
              } else if (key == "require_ib") {
                if (value != "true" && value != "false") {
                  return Reply(respond, req,
                               MakeProblem(Error{
                                   ErrorCode::kInvalidArgument,
                                   "require_ib: expected true or false, got `" + value + "`"}));
                }
                request.require_ib = value == "true";
              } else if (key != "user" && key != "host") {
                return Reply(respond, req,
                             MakeProblem(Error{ErrorCode::kInvalidArgument,
                                               key + ": unknown query parameter (use host, user, "
                                                     "queue, require_ib)"}));
              }
            }
            if (request.user.empty() || (request.host && request.host->empty())) {
              return Reply(respond, req,
                           MakeProblem(Error{ErrorCode::kInvalidArgument,
                                             request.user.empty() ? "user: must not be empty"
                                                                  : "host: must not be empty"}));
            }
            auto placement = s->submitter->DryRun(request);
            if (!placement) return Reply(respond, req, MakeProblem(placement.error()));
            const auto snapshot = s->cache->Current();
            json candidates = json::array();
            for (const Candidate& candidate : placement->candidates) {
              candidates.push_back(CandidateJson(candidate));
            }
            json body;
            body["user"] = request.user;
            body["host"] = request.host ? json(*request.host) : json();
            body["permission_source"] = placement->permission_source;
            body["require_ib"] = request.require_ib;
            if (placement->host_ib) {
              body["host_ib"] =
                  HostIbJson(*placement->host_ib, snapshot->ib.get(), s->clock->SystemNow());
            }
            body["candidates"] = candidates;
            body["chosen"] =
                placement->candidates.empty() ? json() : json(placement->candidates[0].queue);
            body["excluded"] = ExclusionsJson(placement->excluded);
            AddAge(body, *snapshot, s->clock->SystemNow());
            Reply(respond, req, MakeJson(200, body));
          }));

  router.Add(
      http::verb::get, "/v1/ib",
      Guarded(s, "read",
              [s](Request&& req, const RequestContext&, const RouteParams&, Responder respond) {
                const auto snapshot = s->cache->Current();
                if (auto problem = NeedSnapshot(*snapshot)) return Reply(respond, req, *problem);
                const IbHealthState* ib = snapshot->ib.get();
                json healthy = json::array();
                json unhealthy = json::array();
                json unknown = json::array();
                // Every bhosts host, so that hosts no source mentions show as
                // unknown, then hosts only the source knows (the login node
                // the local probe runs on may be an LSF client, not in bhosts).
                std::vector<std::string> names;
                for (const lsf::HostStatus& host : snapshot->load->hosts)
                  names.push_back(host.name);
                if (ib) {
                  std::vector<std::string> extra;
                  for (const auto& [name, health] : ib->hosts) {
                    if (!snapshot->load->FindHost(name)) extra.push_back(name);
                  }
                  std::sort(extra.begin(), extra.end());
                  names.insert(names.end(), extra.begin(), extra.end());
                }
                for (const std::string& name : names) {
                  const HostIbHealth* entry = ib ? ib->Find(name) : nullptr;
                  const HostIbHealth health = entry ? *entry : HostIbHealth{};
                  json item = HostIbJson(health, ib, s->clock->SystemNow());
                  item.erase("health");
                  item.erase("source");
                  item["host"] = name;
                  switch (health.health) {
                    case IbHealth::kHealthy:
                      healthy.push_back(std::move(item));
                      break;
                    case IbHealth::kUnhealthy:
                      unhealthy.push_back(std::move(item));
                      break;
                    case IbHealth::kUnknown:
                      unknown.push_back(std::move(item));
                      break;
                  }
                }
                json body;
                body["source"] = IbSourceName(s->ib().source);
                body["require_ib"] = s->ib().require_ib;
                body["source_as_of"] =
                    ib && ib->as_of != SystemTime{} ? json(FormatRfc3339(ib->as_of)) : json();
                body["source_error"] =
                    ib && !ib->last_error.empty() ? json(ib->last_error) : json();
                body["healthy"] = healthy;
                body["unhealthy"] = unhealthy;
                body["unknown"] = unknown;
                AddAge(body, *snapshot, s->clock->SystemNow());
                Reply(respond, req, MakeJson(200, body));
              }));

  router.Add(
      http::verb::post, "/v1/jobs",
      [s](Request&& req, const RequestContext& ctx, const RouteParams&, Responder respond) {
        std::optional<Caller> caller;
        if (s->auth) {
          auto identified = s->auth->Identify(req, ctx);
          if (!identified) {
            Audit(nullptr, ctx, "refused", {{"reason", identified.error().message}});
            Response problem = MakeProblem(identified.error());
            problem.set(http::field::www_authenticate, "Bearer realm=\"bplace\"");
            return Reply(respond, req, std::move(problem));
          }
          caller = std::move(*identified);
        } else {
          caller.emplace();
          caller->user = s->user;
          caller->can_submit = true;
        }
        if (!caller->can_submit) {
          Audit(&*caller, ctx, "refused", {{"reason", caller->submit_refusal}});
          Response problem =
              MakeProblem(Error{caller->submit_refusal_code, caller->submit_refusal});
          if (caller->submit_refusal_code == ErrorCode::kUnavailable) {
            problem.set(http::field::retry_after, "15");
          }
          return Reply(respond, req, std::move(problem));
        }
        if (s->limiter) {
          const RateLimiter::Decision decision =
              s->limiter->AdmitSubmission(caller->user, s->clock->SteadyNow());
          if (!decision.allowed) {
            const std::string reason = "more than [limits] submit_burst submissions by " +
                                       caller->user + " in a short time; retry after " +
                                       std::to_string(decision.retry_after.count()) + " s";
            Audit(&*caller, ctx, "refused", {{"reason", reason}});
            Response problem = MakeProblem(Error{ErrorCode::kRateLimited, reason});
            problem.set(http::field::retry_after, std::to_string(decision.retry_after.count()));
            return Reply(respond, req, std::move(problem));
          }
        }
        // A missing Content-Type is taken as JSON; media types are
        // case-insensitive (RFC 9110).
        const auto content_type = req[http::field::content_type];
        const boost::beast::string_view kJson = "application/json";
        if (!content_type.empty() &&
            !boost::beast::iequals(content_type.substr(0, kJson.size()), kJson)) {
          Audit(&*caller, ctx, "refused", {{"reason", "Content-Type is not application/json"}});
          return Reply(
              respond, req,
              MakeProblem(415, "Unsupported Media Type", "Content-Type must be application/json"));
        }
        auto job = DecodeJobRequest(req.body(), s->options.request);
        if (!job) {
          Audit(&*caller, ctx, "refused", {{"reason", job.error().message}});
          return Reply(respond, req, MakeProblem(job.error()));
        }
        if (!job->require_ib) job->require_ib = s->ib().require_ib;
        SubmitContext context{caller->user, ctx.request_id, std::nullopt};
        if (s->multi_user()) {
          auto identity = s->auth->SubmitterIdentity(*caller);
          if (!identity) {
            Audit(&*caller, ctx, "refused", {{"reason", identity.error().message}});
            return Reply(respond, req, MakeProblem(identity.error()));
          }
          context.run_as = std::move(*identity);
        }
        const auto snapshot = s->cache->Current();
        if (auto problem = NeedSnapshot(*snapshot)) {
          Audit(&*caller, ctx, "refused", {{"reason", "no LSF snapshot yet"}});
          return Reply(respond, req, *problem);
        }
        // LSF unreachable and the snapshot too old to place on: say so at once
        // rather than make the caller wait for bsub's timeout.
        const auto stale =
            StaleReason(*snapshot, s->options.max_staleness, s->cache->options().topology_interval,
                        s->clock->SystemNow());
        if (stale && (snapshot->load_status.consecutive_failures > 0 ||
                      snapshot->topology_status.consecutive_failures > 0)) {
          Response problem = MakeProblem(
              Error{ErrorCode::kUnavailable, "LSF is not answering and the cached data is stale (" +
                                                 *stale + "); not submitting on it"});
          problem.set(http::field::retry_after, "15");
          Audit(&*caller, ctx, "refused", {{"reason", "LSF down and the snapshot stale"}});
          return Reply(respond, req, std::move(problem));
        }
        const unsigned version = req.version();
        const bool keep_alive = req.keep_alive();
        const std::string request_id = ctx.request_id;
        const std::string user = caller->user;
        s->submitter->Submit(
            std::move(*job), std::move(context),
            [respond, version, keep_alive, request_id, user, caller = *caller,
             ctx = RequestContext(ctx)](SubmissionResult result) {
              json body;
              body["request_id"] = request_id;
              body["user"] = user;
              body["attempts"] = AttemptsJson(result.attempts);
              if (result.placement) body["excluded"] = ExclusionsJson(result.placement->excluded);
              json audit;
              if (result.placement) {
                json candidates = json::array();
                for (const Candidate& candidate : result.placement->candidates) {
                  candidates.push_back({{"queue", candidate.queue},
                                        {"pend", candidate.pend},
                                        {"inflight", candidate.inflight}});
                }
                audit["candidates"] = candidates;
              }
              audit["attempts"] = body["attempts"];
              if (result.error) {
                audit["reason"] = result.error->message;
                Audit(&caller, ctx, "failed", audit);
                Response problem = MakeProblem(*result.error, body, version, keep_alive);
                if (result.error->code == ErrorCode::kUnavailable) {
                  problem.set(http::field::retry_after, "15");
                }
                if (result.error->code == ErrorCode::kRateLimited) {
                  problem.set(http::field::retry_after, std::to_string(std::max<std::int64_t>(
                                                            1, result.retry_after.count())));
                }
                respond(std::move(problem));
                return;
              }
              body["job_id"] = result.job_id;
              body["queue"] = result.queue;
              body["requested_queue"] = result.requested_queue;
              body["host"] = result.host ? json(*result.host) : json();
              body["bsub_argv"] = result.bsub_argv;
              body["job_description"] = "bplace:" + request_id;
              audit["queue"] = result.queue;
              audit["requested_queue"] = result.requested_queue;
              audit["bsub_argv"] = result.bsub_argv;
              audit["job_id"] = result.job_id;
              Audit(&caller, ctx, "submitted", audit);
              respond(MakeJson(201, body, version, keep_alive));
            });
      });

  router.Add(
      http::verb::post, "/v1/cache/refresh",
      Guarded(s, "admin",
              [s](Request&& req, const RequestContext&, const RouteParams&, Responder respond) {
                if (auto wait = s->cache->RequestRefresh()) {
                  Response problem =
                      MakeProblem(429, "Too Many Requests",
                                  "a refresh ran less than the minimum interval ago; retry after " +
                                      std::to_string(wait->count()) + " s");
                  problem.set(http::field::retry_after, std::to_string(wait->count()));
                  return Reply(respond, req, std::move(problem));
                }
                Reply(respond, req, MakeJson(202, {{"status", "refresh started"}}));
              }));
}

}  // namespace bplace::api
