#include "api/routes_job_status.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/job_access.h"
#include "api/job_filter.h"
#include "api/job_json.h"
#include "api/job_lookup.h"
#include "api/json_mapping.h"
#include "api/route_access.h"

namespace bplace::api {
namespace {

using nlohmann::json;

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
  if (auto refused = VisibilityRefusal(s, caller, jobs, lsf::JobIdText(id))) {
    return RefusalFor(*refused);
  }
  json body = key.array_index == 0 && !snapshot.jobs->Find(key)
                  ? ArrayJobJson(key.job_id, jobs, s.wait_coverage)
                  : JobJson(*jobs.front(), s.wait_coverage);
  AddJobsAge(body, snapshot, now);
  return MakeJson(200, body);
}

// Answers about `id`: at once when bplace knows the job, else after it was
// looked up.
void AnswerJob(const Services& s, const Caller& caller, const lsf::JobId& id, Responder respond) {
  LookUpJob(s, caller, id,
            [s = &s, caller, id, respond = std::move(respond)](std::optional<Response> refused) {
              if (refused) return respond(std::move(*refused));
              auto answer = JobAnswer(*s, caller, *s->cache.Current(), id, s->clock.SystemNow());
              respond(answer ? std::move(*answer)
                             : JobsUnavailable("job " + lsf::JobIdText(id) +
                                               " could not be looked up in LSF"));
            });
}

Response ListAnswer(const Services& s, const JobFilterQuery& filter) {
  const auto snapshot = s.cache.Current();
  json body = JobPage(snapshot->jobs ? *snapshot->jobs : JobTable{}, filter, s.wait_coverage);
  AddJobsAge(body, *snapshot, s.clock.SystemNow());
  return MakeJson(200, body);
}

}  // namespace

void GetJob(const Services& services, const Caller& caller, Request&&, const RequestContext&,
            const RouteParams& params, Responder respond) {
  if (services.tracker == nullptr) return respond(JobsUnavailable("no jobs tier in this daemon"));
  // Before anything is looked up: an anonymous caller learns nothing of a job.
  if (auto refused = VisibilityRefusal(services, caller, {}, "")) {
    return respond(RefusalFor(*refused));
  }
  auto id = JobIdParam(params);
  if (!id) return respond(MakeProblem(id.error()));
  if (auto known = params.OnlyQuery({"wait_s"}); !known) {
    return respond(MakeProblem(known.error()));
  }
  auto wait = WaitParam(params);
  if (!wait) return respond(MakeProblem(wait.error()));
  if (*wait == 0) return AnswerJob(services, caller, *id, std::move(respond));
  services.tracker->WaitForNext(
      [s = &services, caller, id = *id, respond = std::move(respond)](Result<void>) mutable {
        AnswerJob(*s, caller, id, std::move(respond));
      });
}

void ListJobs(const Services& services, const Caller& caller, Request&&, const RequestContext&,
              const RouteParams& params, Responder respond) {
  if (services.tracker == nullptr) return respond(JobsUnavailable("no jobs tier in this daemon"));
  if (auto refused = VisibilityRefusal(services, caller, {}, "")) {
    return respond(RefusalFor(*refused));
  }
  const std::string self = CallerSelf(services, caller);
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
