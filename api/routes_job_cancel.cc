#include "api/routes_job_cancel.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <boost/beast/http/field.hpp>
#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/job_access.h"
#include "api/job_json.h"
#include "api/job_lookup.h"
#include "api/json_body.h"

namespace bplace::api {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

const char* OutcomeName(lsf::BkillOutcome outcome) { return lsf::BkillOutcomeName(outcome); }

// The answer to one bkill result about `job`, run as `killer` (a user name).
Response CancelAnswer(const Services& s, const JobView& job, const CancelResult& result,
                      const std::string& killer) {
  json body{{"job", JobJson(job, s.wait_coverage)},
            {"outcome", OutcomeName(result.outcome)},
            {"message", result.message}};
  switch (result.outcome) {
    case lsf::BkillOutcome::kTerminating:
      return MakeJson(202, body);
    case lsf::BkillOutcome::kAlreadyFinished:
      return MakeJson(200, body);
    case lsf::BkillOutcome::kNotFound:
      return MakeProblem(Error{ErrorCode::kNotFound, "bkill: " + result.message}, body);
    case lsf::BkillOutcome::kPermissionDenied:
      return MakeProblem(
          Error{ErrorCode::kPermissionDenied, "bkill as " + killer + ": " + result.message}, body);
    case lsf::BkillOutcome::kUnavailable:
      return JobsUnavailable("bkill: " + result.message);
    case lsf::BkillOutcome::kUnknown:
      break;
  }
  return MakeProblem(Error{ErrorCode::kCommandFailed, "bkill: " + result.message}, body);
}

// DELETE once the job is known: the owner check, then one bkill.
void CancelKnown(const Services& s, const Caller& caller, const JobView& job, const lsf::JobId& id,
                 Responder respond) {
  const std::string self = CallerSelf(s, caller);
  if (job.lsf.user != self && !caller.is_admin) {
    return respond(MakeProblem(Error{ErrorCode::kPermissionDenied,
                                     "job " + lsf::JobIdText(id) + " belongs to " + job.lsf.user +
                                         ", not " + self + "; cancelling it needs `admin`"}));
  }
  if (job.terminal) {
    return respond(
        MakeJson(200, {{"job", JobJson(job, s.wait_coverage)}, {"outcome", "already_finished"}}));
  }
  auto killer = KillerIdentity(s, caller);
  if (!killer) return respond(MakeProblem(killer.error()));
  // Who bkill runs as: the caller in multi-user mode, else the daemon's user.
  std::string killer_name = *killer ? (*killer)->name : s.user;
  s.canceller->Cancel({id}, *killer,
                      [s = &s, job, killer_name = std::move(killer_name),
                       respond = std::move(respond)](Result<std::vector<CancelResult>> results) {
                        if (!results) {
                          Response problem = MakeProblem(results.error());
                          if (results.error().code == ErrorCode::kUnavailable) {
                            problem.set(http::field::retry_after, std::to_string(kJobsRetryAfterS));
                          }
                          return respond(std::move(problem));
                        }
                        s->tracker->RefreshSoon();
                        respond(CancelAnswer(*s, job, results->front(), killer_name));
                      });
}

constexpr std::size_t kMaxCancelIds = 1000;

// The jobs a cancel body names: {"ids": [...]} or {"labels": {...}}.
struct CancelSelection {
  std::vector<lsf::JobId> ids;                // from "ids"
  std::map<std::string, std::string> labels;  // from "labels"
};

Result<CancelSelection> ParseCancelBody(std::string_view body) {
  const json parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return Fail(ErrorCode::kInvalidArgument, "body: expected a JSON object with `ids` or `labels`");
  }
  const bool has_ids = parsed.contains("ids");
  const bool has_labels = parsed.contains("labels");
  if (has_ids == has_labels || parsed.size() != 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "body: give exactly one of `ids` (an array) or `labels`");
  }
  CancelSelection selection;
  if (has_ids) {
    const json& ids = parsed["ids"];
    if (!ids.is_array() || ids.empty() || ids.size() > kMaxCancelIds) {
      return Fail(ErrorCode::kInvalidArgument, "ids: expected an array of 1 to 1000 job ids");
    }
    for (const json& item : ids) {
      const auto id = item.is_string() ? lsf::ParseJobId(item.get<std::string>()) : std::nullopt;
      if (!id) {
        return Fail(ErrorCode::kInvalidArgument,
                    "ids: `" + item.dump() + "` is not a job id (" +
                        (item.is_string() ? std::string(kJobIdForm)
                                          : "a string: \"1234\", or \"1234[7]\" for an array "
                                            "element") +
                        ")");
      }
      selection.ids.push_back(*id);
    }
    return selection;
  }
  const json& labels = parsed["labels"];
  if (!labels.is_object() || labels.empty()) {
    return Fail(ErrorCode::kInvalidArgument, "labels: expected an object of one or more labels");
  }
  for (const auto& item : labels.items()) {
    if (!item.value().is_string())
      return Fail(ErrorCode::kInvalidArgument, "labels: values are strings");
    selection.labels[item.key()] = item.value().get<std::string>();
  }
  return selection;
}

bool HasLabels(const JobView& job, const std::map<std::string, std::string>& labels) {
  for (const auto& [key, value] : labels) {
    const auto it = job.labels.find(key);
    if (it == job.labels.end() || it->second != value) return false;
  }
  return true;
}

json OutcomeJson(const std::string& id, std::string_view outcome, std::string_view message) {
  return {{"id", id}, {"outcome", outcome}, {"message", message}};
}

}  // namespace

void DeleteJob(const Services& services, const Caller& caller, Request&&, const RequestContext&,
               const RouteParams& params, Responder respond) {
  if (services.tracker == nullptr) return respond(JobsUnavailable("no jobs tier in this daemon"));
  if (auto refused = CancelRefusal(caller)) return respond(std::move(*refused));
  auto id = JobIdParam(params);
  if (!id) return respond(MakeProblem(id.error()));
  LookUpJob(services, caller, *id,
            [s = &services, caller, id = *id,
             respond = std::move(respond)](std::optional<Response> refused) mutable {
              if (refused) return respond(std::move(*refused));
              const auto snapshot = s->cache.Current();
              const JobView* job = snapshot->jobs ? snapshot->jobs->Find(KeyOf(id)) : nullptr;
              if (job == nullptr || job->not_found || job->lsf.status.empty()) {
                return respond(MakeProblem(
                    Error{ErrorCode::kNotFound,
                          "job " + lsf::JobIdText(id) + " is not known to LSF (bjobs -a)"}));
              }
              CancelKnown(*s, caller, *job, id, std::move(respond));
            });
}

void CancelJobs(const Services& services, const Caller& caller, Request&& req,
                const RequestContext&, const RouteParams&, Responder respond) {
  if (services.tracker == nullptr) return respond(JobsUnavailable("no jobs tier in this daemon"));
  if (auto refused = CancelRefusal(caller)) return respond(std::move(*refused));
  if (auto refused = JsonBodyRefusal(req)) return respond(std::move(*refused));
  auto selection = ParseCancelBody(req.body());
  if (!selection) return respond(MakeProblem(selection.error()));
  const std::string self = CallerSelf(services, caller);
  const auto snapshot = services.cache.Current();
  const JobTable empty;
  const JobTable& table = snapshot->jobs ? *snapshot->jobs : empty;
  std::vector<std::pair<lsf::JobId, const JobView*>> chosen;
  json results = json::array();
  if (!selection->ids.empty()) {
    for (const lsf::JobId& id : selection->ids) chosen.emplace_back(id, table.Find(KeyOf(id)));
  } else {
    for (const auto& [key, view] : table.jobs) {
      if (!view->submitted_by_bplace || !HasLabels(*view, selection->labels)) continue;
      if (view->lsf.user != self && !caller.is_admin) continue;
      chosen.emplace_back(*lsf::ParseJobId(view->lsf.IdText()), view.get());
    }
  }
  std::vector<lsf::JobId> to_kill;
  for (const auto& [id, job] : chosen) {
    if (job == nullptr || job->lsf.status.empty()) {
      results.push_back(
          OutcomeJson(lsf::JobIdText(id), "not_followed", "bplace does not follow this job"));
    } else if (job->lsf.user != self && !caller.is_admin) {
      results.push_back(
          OutcomeJson(lsf::JobIdText(id), "permission_denied", "job of " + job->lsf.user));
    } else if (job->terminal) {
      results.push_back(OutcomeJson(lsf::JobIdText(id), "already_finished", job->lsf.status));
    } else {
      to_kill.push_back(id);
    }
  }
  if (to_kill.empty()) return respond(MakeJson(200, {{"results", results}}));
  auto killer = KillerIdentity(services, caller);
  if (!killer) return respond(MakeProblem(killer.error()));
  services.canceller->Cancel(
      to_kill, *killer,
      [s = &services, results = std::move(results),
       respond = std::move(respond)](Result<std::vector<CancelResult>> killed) mutable {
        if (!killed) return respond(MakeProblem(killed.error()));
        for (const CancelResult& one : *killed) {
          results.push_back(
              OutcomeJson(lsf::JobIdText(one.id), OutcomeName(one.outcome), one.message));
        }
        s->tracker->RefreshSoon();
        respond(MakeJson(200, {{"results", results}}));
      });
}

}  // namespace bplace::api
