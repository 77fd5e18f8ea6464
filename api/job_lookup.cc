#include "api/job_lookup.h"

#include <charconv>
#include <utility>

#include <boost/beast/http/field.hpp>

#include "api/http/problem.h"
#include "api/job_access.h"
#include "api/json_mapping.h"
#include "api/route_access.h"

namespace bplace::api {
namespace {

namespace http = boost::beast::http;

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

}  // namespace

Result<lsf::JobId> JobIdParam(const RouteParams& params) {
  const std::string_view text = params.Path("id");
  auto id = lsf::ParseJobId(text);
  if (!id) {
    return Fail(ErrorCode::kInvalidArgument,
                "id: `" + std::string(text) + "` is not a job id (" + kJobIdForm + ")");
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
    return Fail(ErrorCode::kInvalidArgument, "wait_s: expected seconds from 0 to " +
                                                 std::to_string(kMaxWaitS) + ", got `" +
                                                 std::string(*text) + "`");
  }
  return value;
}

Response JobsUnavailable(std::string detail) {
  Response problem = MakeProblem(Error{ErrorCode::kUnavailable, std::move(detail)});
  problem.set(http::field::retry_after, std::to_string(kJobsRetryAfterS));
  return problem;
}

Response NotKnownToLsf(const lsf::JobId& id, SystemTime since) {
  return MakeProblem(Error{ErrorCode::kNotFound, "job " + lsf::JobIdText(id) +
                                                     " is not known to LSF (bjobs -a, at " +
                                                     FormatRfc3339(since) + ")"});
}

void LookUpJob(const Services& s, const Caller& caller, const lsf::JobId& id,
               std::function<void(std::optional<Response>)> done) {
  if (Answered(*s.cache.Current(), id)) return done(std::nullopt);
  const std::string who = LookupCallerName(s, caller);
  JobLookups& lookups = s.tracker->lookups();
  const JobLookups::Verdict verdict = lookups.Begin(who, KeyOf(id), s.clock.SystemNow());
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
    const auto snapshot = s->cache.Current();
    const JobView* job = snapshot->jobs ? snapshot->jobs->Find(KeyOf(id)) : nullptr;
    s->tracker->lookups().Finish(who, KeyOf(id), job != nullptr && job->not_found,
                                 s->clock.SystemNow());
    if (Answered(*snapshot, id)) return done(std::nullopt);
    done(JobsUnavailable("job " + lsf::JobIdText(id) + " could not be looked up in LSF" +
                         (looked ? std::string(" yet") : ": " + looked.error().message)));
  });
}

}  // namespace bplace::api
