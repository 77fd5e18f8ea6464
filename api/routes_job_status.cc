#include "api/routes_job_status.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include <boost/beast/http/field.hpp>
#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/job_access.h"
#include "api/job_json.h"
#include "api/json_body.h"
#include "api/json_mapping.h"
#include "api/route_access.h"

namespace bplace::api {
namespace {

using nlohmann::json;
namespace http = boost::beast::http;

constexpr int kMaxWaitS = 60;
constexpr int kJobsRetryAfterS = 10;
constexpr std::size_t kDefaultLimit = 100;
constexpr std::size_t kMaxLimit = 1000;

Error Invalid(std::string message) {
  return Error{ErrorCode::kInvalidArgument, std::move(message)};
}

Result<lsf::JobId> JobIdParam(const RouteParams& params) {
  const std::string_view text = params.Path("id");
  auto id = lsf::ParseJobId(text);
  if (!id) {
    return tl::unexpected(Invalid("id: `" + std::string(text) +
                                  "` is not a job id (digits, or 1234[7] for an array element)"));
  }
  return *id;
}

Result<int> WaitParam(const RouteParams& params) {
  const auto text = params.Query("wait_s");
  if (!text) return 0;
  int value = -1;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < 0 ||
      value > kMaxWaitS) {
    return tl::unexpected(
        Invalid("wait_s: expected seconds from 0 to 60, got `" + std::string(*text) + "`"));
  }
  return value;
}

Response Unavailable(std::string detail) {
  Response problem = MakeProblem(Error{ErrorCode::kUnavailable, std::move(detail)});
  problem.set(http::field::retry_after, std::to_string(kJobsRetryAfterS));
  return problem;
}

JobKey KeyOf(const lsf::JobId& id) { return JobKey{std::stoll(id.job_id), id.array_index}; }

std::string IdText(const lsf::JobId& id) {
  return id.array_index == 0 ? id.job_id : id.job_id + "[" + std::to_string(id.array_index) + "]";
}

// True for a caller who did not say who they are (TCP without a token).
// The caller made without an Authenticator is the daemon's user.
bool IsAnonymous(const Caller& caller) {
  return caller.method == AuthMethod::kAnonymous && caller.user.empty();
}

// The user a caller acts as: its own name, or the daemon's user without [auth].
std::string Self(const Services& s, const Caller& caller) {
  return caller.user.empty() ? s.user : caller.user;
}

// Whether identified callers see every job ([auth] job_visibility = "all").
bool EveryoneSeesAll(const Services& s) {
  return s.auth == nullptr || s.auth->policy().job_visibility == JobVisibility::kAll;
}

// Why `caller` may not see the details of jobs owned by `owners`, or
// nullopt when they may (docs/operations.md "Security"): anonymous callers see none;
// the `admin` scope sees all; others see their own, or all with [auth]
// job_visibility = "all". The owner is not named: that too is a detail.
std::optional<Error> VisibilityRefusal(const Services& s, const Caller& caller,
                                       const std::vector<const JobView*>& jobs,
                                       const std::string& id_text) {
  if (IsAnonymous(caller)) {
    return Error{ErrorCode::kUnauthenticated,
                 "anonymous callers never see jobs; send a bearer token, or use the Unix socket"};
  }
  if (caller.is_admin || EveryoneSeesAll(s)) return std::nullopt;
  for (const JobView* job : jobs) {
    if (caller.user.empty() || job->lsf.user != caller.user) {
      return Error{ErrorCode::kPermissionDenied,
                   "job " + id_text + " is not yours; " + DescribeCaller(caller) +
                       " sees only their own jobs ([auth] job_visibility = \"own\", as LSF's "
                       "SECURE_JOB_INFO_LEVEL=4); the `admin` scope sees every job"};
    }
  }
  return std::nullopt;
}

Response NotKnownToLsf(const lsf::JobId& id, SystemTime since) {
  return MakeProblem(Error{
      ErrorCode::kNotFound,
      "job " + IdText(id) + " is not known to LSF (bjobs -a, at " + FormatRfc3339(since) + ")"});
}

// The answer about `id` from `snapshot` for `caller`, or nullopt when
// bplace does not know the job yet (to be looked up).
std::optional<Response> JobAnswer(const Services& s, const Caller& caller,
                                  const ClusterSnapshot& snapshot, const lsf::JobId& id,
                                  SystemTime now) {
  if (!snapshot.jobs) return std::nullopt;
  const JobKey key = KeyOf(id);
  std::vector<const JobView*> jobs;
  if (const JobView* job = snapshot.jobs->Find(key)) {
    if (job->not_found) return NotKnownToLsf(id, job->updated_at);
    if (job->lsf.status.empty()) return std::nullopt;  // asked about, not answered yet
    jobs = {job};
  } else if (key.array_index == 0) {
    jobs = snapshot.jobs->Elements(key.job_id);
  }
  if (jobs.empty()) return std::nullopt;
  if (auto refused = VisibilityRefusal(s, caller, jobs, IdText(id))) {
    return RefusalFor(*refused);
  }
  json body = key.array_index == 0 && !snapshot.jobs->Find(key) ? ArrayJobJson(key.job_id, jobs)
                                                                : JobJson(*jobs.front());
  AddJobsAge(body, snapshot, now);
  return MakeJson(200, body);
}

// True when the table answers for `id` (a job, its elements, or LSF's
// "not known"), so no lookup is needed.
bool Answered(const ClusterSnapshot& snapshot, const lsf::JobId& id) {
  if (!snapshot.jobs) return false;
  const JobKey key = KeyOf(id);
  if (const JobView* job = snapshot.jobs->Find(key)) {
    return job->not_found || !job->lsf.status.empty();
  }
  return key.array_index == 0 && !snapshot.jobs->Elements(key.job_id).empty();
}

// Makes the table know `id` for `caller`, within the caller's lookup
// budget (JobLookups: one bjobs shared by everyone asking at once, a
// negative cache, lookups in flight bounded), then calls `done` with
// nullopt (answer from the table) or the answer to send instead: 404 for an
// id LSF said it does not know, 429 over the budget, 503 when LSF could not
// be asked.
void LookUp(const Services& s, const Caller& caller, const lsf::JobId& id,
            std::function<void(std::optional<Response>)> done) {
  if (Answered(*s.cache->Current(), id)) return done(std::nullopt);
  const std::string who = LookupCallerName(s, caller);
  JobLookups& lookups = s.tracker->lookups();
  const JobLookups::Verdict verdict = lookups.Begin(who, KeyOf(id), s.clock->SystemNow());
  if (verdict.admission == JobLookups::Admission::kNotFound) {
    return done(NotKnownToLsf(id, verdict.since));
  }
  if (verdict.admission == JobLookups::Admission::kTooMany) {
    Response problem = MakeProblem(
        Error{ErrorCode::kRateLimited, DescribeCaller(caller) +
                                           " has too many lookups of jobs bplace does not follow "
                                           "in progress; retry after the next jobs refresh"});
    problem.set(http::field::retry_after, std::to_string(kJobsRetryAfterS));
    return done(std::move(problem));
  }
  s.tracker->Watch({id}, [s = &s, who, id, done = std::move(done)](Result<void> looked) {
    const auto snapshot = s->cache->Current();
    const JobView* job = snapshot->jobs ? snapshot->jobs->Find(KeyOf(id)) : nullptr;
    s->tracker->lookups().Finish(who, KeyOf(id), job != nullptr && job->not_found,
                                 s->clock->SystemNow());
    if (Answered(*snapshot, id)) return done(std::nullopt);
    done(Unavailable("job " + IdText(id) + " could not be looked up in LSF" +
                     (looked ? std::string(" yet") : ": " + looked.error().message)));
  });
}

// Answers about `id`: at once when bplace knows the job, else after it was
// looked up.
void AnswerJob(const Services& s, const Caller& caller, const lsf::JobId& id, Responder respond) {
  LookUp(s, caller, id,
         [s = &s, caller, id, respond = std::move(respond)](std::optional<Response> refused) {
           if (refused) return respond(std::move(*refused));
           auto answer = JobAnswer(*s, caller, *s->cache->Current(), id, s->clock->SystemNow());
           respond(answer ? std::move(*answer)
                          : Unavailable("job " + IdText(id) + " could not be looked up in LSF"));
         });
}

// What GET /v1/jobs asks for.
struct JobFilterQuery {
  std::string user;  // empty: every user
  std::set<std::string> statuses;
  std::optional<std::pair<std::string, std::string>> label;
  std::optional<SystemTime> since;
  std::size_t limit = kDefaultLimit;
  std::optional<std::tuple<std::int64_t, std::int64_t, std::int64_t>> after;  // the cursor
};

std::optional<std::int64_t> Integer(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "2026-12-01T10:00:00Z", with optional fraction and a "+01:00" offset, or
// epoch seconds.
std::optional<SystemTime> ParseTime(std::string_view text) {
  if (auto epoch = Integer(text)) return SystemTime(std::chrono::seconds(*epoch));
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  const auto y = Integer(text.substr(0, 4)), mo = Integer(text.substr(5, 2)),
             d = Integer(text.substr(8, 2)), h = Integer(text.substr(11, 2)),
             mi = Integer(text.substr(14, 2)), sec = Integer(text.substr(17, 2));
  if (!y || !mo || !d || !h || !mi || !sec) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(int(*y)),
                                         std::chrono::month(unsigned(*mo)),
                                         std::chrono::day(unsigned(*d))};
  if (!date.ok() || *h > 23 || *mi > 59 || *sec > 60) return std::nullopt;
  std::string_view rest = text.substr(19);
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest.remove_prefix(1);
  }
  std::chrono::minutes offset{0};
  if (rest == "Z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    const auto oh = Integer(rest.substr(1, 2)), om = Integer(rest.substr(4, 2));
    if (!oh || !om) return std::nullopt;
    offset = std::chrono::minutes(*oh * 60 + *om) * (rest[0] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  return std::chrono::sys_days(date) + std::chrono::hours(*h) + std::chrono::minutes(*mi) +
         std::chrono::seconds(*sec) - offset;
}

bool KnownStatus(std::string_view status) {
  return status == kSubmittedStatus || lsf::JobStatusOf(status) != lsf::JobStatus::kUnrecognized;
}

// The query of GET /v1/jobs for a caller named `self`, who may list other
// users' jobs when `sees_all` (admin, or [auth] job_visibility = "all"). Pure.
Result<JobFilterQuery> ParseJobFilter(const RouteParams& params, const std::string& self,
                                      bool sees_all) {
  JobFilterQuery filter;
  filter.user = self;
  std::set<std::string> seen;
  for (const auto& [key, value] : params.query) {
    if (!seen.insert(key).second) return tl::unexpected(Invalid(key + ": given more than once"));
    if (key == "user") {
      filter.user = value == "all" ? "" : value;
    } else if (key == "status") {
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const std::string status = value.substr(start, comma - start);
        if (!KnownStatus(status)) {
          return tl::unexpected(
              Invalid("status: `" + status + "` is not a job state (PEND, RUN, DONE, EXIT, ...)"));
        }
        filter.statuses.insert(status);
        start = comma + 1;
      }
    } else if (key == "label") {
      const std::size_t equals = value.find('=');
      if (equals == std::string::npos || equals == 0) {
        return tl::unexpected(Invalid("label: expected KEY=VALUE, got `" + value + "`"));
      }
      filter.label = {value.substr(0, equals), value.substr(equals + 1)};
    } else if (key == "since") {
      filter.since = ParseTime(value);
      if (!filter.since) {
        return tl::unexpected(Invalid("since: expected an RFC 3339 time or epoch seconds"));
      }
    } else if (key == "limit") {
      const auto limit = Integer(value);
      if (!limit || *limit < 1 || *limit > std::int64_t(kMaxLimit)) {
        return tl::unexpected(Invalid("limit: expected 1 to 1000, got `" + value + "`"));
      }
      filter.limit = std::size_t(*limit);
    } else if (key == "cursor") {
      std::int64_t a = 0, b = 0, c = 0;
      char dot1 = 0, dot2 = 0;
      std::istringstream in(value);
      if (!(in >> a >> dot1 >> b >> dot2 >> c) || dot1 != '.' || dot2 != '.' || !in.eof()) {
        return tl::unexpected(Invalid("cursor: not a next_cursor of this daemon"));
      }
      filter.after = std::make_tuple(a, b, c);
    } else if (key != "wait_s") {
      return tl::unexpected(Invalid(key +
                                    ": unknown query parameter (use user, status, label, since, "
                                    "limit, cursor, wait_s)"));
    }
  }
  if (filter.user != self && !sees_all) {
    return tl::unexpected(Error{ErrorCode::kPermissionDenied,
                                "user: listing other users' jobs than yours (" + self +
                                    ") needs the `admin` scope ([auth] job_visibility = \"own\")"});
  }
  return filter;
}

std::int64_t Nanos(SystemTime time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

// The page of the table `filter` selects: bplace's jobs, newest first.
json JobPage(const JobTable& table, const JobFilterQuery& filter) {
  using Order = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::vector<std::pair<Order, const JobView*>> selected;
  for (const auto& [key, view] : table.jobs) {
    const JobView& job = *view;
    if (!job.submitted_by_bplace) continue;
    if (!filter.user.empty() && job.lsf.user != filter.user) continue;
    if (!filter.statuses.empty() && !filter.statuses.contains(job.lsf.status)) continue;
    if (filter.label) {
      const auto it = job.labels.find(filter.label->first);
      if (it == job.labels.end() || it->second != filter.label->second) continue;
    }
    const SystemTime at = job.submitted_at.value_or(job.updated_at);
    if (filter.since && at < *filter.since) continue;
    const Order order{Nanos(at), key.job_id, key.array_index};
    if (filter.after && !(order < *filter.after)) continue;
    selected.emplace_back(order, &job);
  }
  std::sort(selected.begin(), selected.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  json jobs = json::array();
  std::string next;
  for (std::size_t i = 0; i < selected.size() && i < filter.limit; ++i) {
    jobs.push_back(JobJson(*selected[i].second));
    if (i + 1 == filter.limit && i + 1 < selected.size()) {
      const auto& [a, b, c] = selected[i].first;
      next = std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
    }
  }
  return {{"jobs", jobs}, {"next_cursor", next}};
}

Response ListAnswer(const Services& s, const JobFilterQuery& filter) {
  const auto snapshot = s.cache->Current();
  json body = JobPage(snapshot->jobs ? *snapshot->jobs : JobTable{}, filter);
  AddJobsAge(body, *snapshot, s.clock->SystemNow());
  return MakeJson(200, body);
}

}  // namespace

void GetJob(const Services& services, const Caller& caller, Request&&, const RequestContext&,
            const RouteParams& params, Responder respond) {
  if (services.tracker == nullptr) return respond(Unavailable("no jobs tier in this daemon"));
  // Before anything is looked up: an anonymous caller learns nothing of a job.
  if (auto refused = VisibilityRefusal(services, caller, {}, "")) {
    return respond(RefusalFor(*refused));
  }
  auto id = JobIdParam(params);
  if (!id) return respond(MakeProblem(id.error()));
  auto wait = WaitParam(params);
  if (!wait) return respond(MakeProblem(wait.error()));
  if (*wait == 0) return AnswerJob(services, caller, *id, std::move(respond));
  services.tracker->WaitForNext(
      [s = &services, caller, id = *id, respond = std::move(respond)](Result<void>) mutable {
        AnswerJob(*s, caller, id, std::move(respond));
      });
}

}  // namespace bplace::api

namespace bplace::api {

void ListJobs(const Services& services, const Caller& caller, Request&&, const RequestContext&,
              const RouteParams& params, Responder respond) {
  if (services.tracker == nullptr) return respond(Unavailable("no jobs tier in this daemon"));
  if (auto refused = VisibilityRefusal(services, caller, {}, "")) {
    return respond(RefusalFor(*refused));
  }
  const std::string self = Self(services, caller);
  auto filter = ParseJobFilter(params, self, caller.is_admin || EveryoneSeesAll(services));
  if (!filter) return respond(MakeProblem(filter.error()));
  auto wait = WaitParam(params);
  if (!wait) return respond(MakeProblem(wait.error()));
  if (*wait == 0) return respond(ListAnswer(services, *filter));
  services.tracker->WaitForNext(
      [s = &services, filter = std::move(*filter), respond = std::move(respond)](Result<void>) {
        respond(ListAnswer(*s, filter));
      });
}

}  // namespace bplace::api

namespace bplace::api {
namespace {

const char* OutcomeName(lsf::BkillOutcome outcome) { return lsf::BkillOutcomeName(outcome); }

// The answer to one bkill result about `job`, run as `killer` (a user name).
Response CancelAnswer(const JobView& job, const CancelResult& result, const std::string& killer) {
  json body{
      {"job", JobJson(job)}, {"outcome", OutcomeName(result.outcome)}, {"message", result.message}};
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
      return Unavailable("bkill: " + result.message);
    case lsf::BkillOutcome::kUnknown:
      break;
  }
  return MakeProblem(Error{ErrorCode::kCommandFailed, "bkill: " + result.message}, body);
}

// DELETE once the job is known: the owner check, then one bkill.
void CancelKnown(const Services& s, const Caller& caller, const JobView& job, const lsf::JobId& id,
                 Responder respond) {
  const std::string self = caller.user.empty() ? s.user : caller.user;
  if (job.lsf.user != self && !caller.is_admin) {
    return respond(MakeProblem(Error{ErrorCode::kPermissionDenied,
                                     "job " + IdText(id) + " belongs to " + job.lsf.user +
                                         ", not " + self + "; cancelling it needs `admin`"}));
  }
  if (job.terminal) {
    return respond(MakeJson(200, {{"job", JobJson(job)}, {"outcome", "already_finished"}}));
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
                        respond(CancelAnswer(job, results->front(), killer_name));
                      });
}

}  // namespace

void DeleteJob(const Services& services, const Caller& caller, Request&&, const RequestContext&,
               const RouteParams& params, Responder respond) {
  if (services.tracker == nullptr) return respond(Unavailable("no jobs tier in this daemon"));
  if (auto refused = CancelRefusal(caller)) return respond(std::move(*refused));
  auto id = JobIdParam(params);
  if (!id) return respond(MakeProblem(id.error()));
  LookUp(services, caller, *id,
         [s = &services, caller, id = *id,
          respond = std::move(respond)](std::optional<Response> refused) mutable {
           if (refused) return respond(std::move(*refused));
           const auto snapshot = s->cache->Current();
           const JobView* job = snapshot->jobs ? snapshot->jobs->Find(KeyOf(id)) : nullptr;
           if (job == nullptr || job->not_found || job->lsf.status.empty()) {
             return respond(MakeProblem(Error{
                 ErrorCode::kNotFound, "job " + IdText(id) + " is not known to LSF (bjobs -a)"}));
           }
           CancelKnown(*s, caller, *job, id, std::move(respond));
         });
}

}  // namespace bplace::api

namespace bplace::api {
namespace {

constexpr std::size_t kMaxCancelIds = 1000;

// The jobs a cancel body names: {"ids": [...]} or {"labels": {...}}.
struct CancelSelection {
  std::vector<lsf::JobId> ids;                // from "ids"
  std::map<std::string, std::string> labels;  // from "labels"
};

Result<CancelSelection> ParseCancelBody(std::string_view body) {
  const json parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return tl::unexpected(Invalid("body: expected a JSON object with `ids` or `labels`"));
  }
  const bool has_ids = parsed.contains("ids");
  const bool has_labels = parsed.contains("labels");
  if (has_ids == has_labels || parsed.size() != 1) {
    return tl::unexpected(Invalid("body: give exactly one of `ids` (an array) or `labels`"));
  }
  CancelSelection selection;
  if (has_ids) {
    const json& ids = parsed["ids"];
    if (!ids.is_array() || ids.empty() || ids.size() > kMaxCancelIds) {
      return tl::unexpected(Invalid("ids: expected an array of 1 to 1000 job ids"));
    }
    for (const json& item : ids) {
      const auto id = item.is_string() ? lsf::ParseJobId(item.get<std::string>()) : std::nullopt;
      if (!id) return tl::unexpected(Invalid("ids: `" + item.dump() + "` is not a job id"));
      selection.ids.push_back(*id);
    }
    return selection;
  }
  const json& labels = parsed["labels"];
  if (!labels.is_object() || labels.empty()) {
    return tl::unexpected(Invalid("labels: expected an object of one or more labels"));
  }
  for (const auto& item : labels.items()) {
    if (!item.value().is_string()) return tl::unexpected(Invalid("labels: values are strings"));
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

void CancelJobs(const Services& services, const Caller& caller, Request&& req,
                const RequestContext&, const RouteParams&, Responder respond) {
  if (services.tracker == nullptr) return respond(Unavailable("no jobs tier in this daemon"));
  if (auto refused = CancelRefusal(caller)) return respond(std::move(*refused));
  if (auto refused = JsonBodyRefusal(req)) return respond(std::move(*refused));
  auto selection = ParseCancelBody(req.body());
  if (!selection) return respond(MakeProblem(selection.error()));
  const std::string self = caller.user.empty() ? services.user : caller.user;
  const auto snapshot = services.cache->Current();
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
      results.push_back(OutcomeJson(IdText(id), "not_followed", "bplace does not follow this job"));
    } else if (job->lsf.user != self && !caller.is_admin) {
      results.push_back(OutcomeJson(IdText(id), "permission_denied", "job of " + job->lsf.user));
    } else if (job->terminal) {
      results.push_back(OutcomeJson(IdText(id), "already_finished", job->lsf.status));
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
          results.push_back(OutcomeJson(IdText(one.id), OutcomeName(one.outcome), one.message));
        }
        s->tracker->RefreshSoon();
        respond(MakeJson(200, {{"results", results}}));
      });
}

}  // namespace bplace::api
