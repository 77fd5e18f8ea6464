#pragma once

// Finding the job a job route names (GET and DELETE /v1/jobs/{id}; docs/api.md
// "Jobs: following and cancelling"): the id and wait_s parameters, the lookup
// of an id bplace does not follow yet, and the answers those routes give
// while the jobs tier cannot say.

#include <functional>
#include <optional>
#include <string>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"
#include "common/clock.h"
#include "common/result.h"
#include "lsf_adapter/job_record.h"

namespace bplace::api {

// Seconds a 503 of the job routes asks callers to wait (Retry-After): about
// the jobs tier's interval.
inline constexpr int kJobsRetryAfterS = 10;

// The longest wait_s a job route takes, in seconds.
inline constexpr int kMaxWaitS = 60;
// What a job id is, for the messages that refuse one.
inline constexpr char kJobIdForm[] = "digits, or 1234[7] for an array element";

// The 503 problem with `detail` and Retry-After: kJobsRetryAfterS.
Response JobsUnavailable(std::string detail);

// The {id} path parameter: "1234" or "1234[7]" (lsf::ParseJobId). Errors:
// kInvalidArgument naming the text.
Result<lsf::JobId> JobIdParam(const RouteParams& params);

// The wait_s query parameter in seconds, 0 when absent. Errors:
// kInvalidArgument unless it is an integer from 0 to kMaxWaitS.
Result<int> WaitParam(const RouteParams& params);

// The 404 problem for `id`, which LSF's bjobs -a did not know at `since`.
Response NotKnownToLsf(const lsf::JobId& id, SystemTime since);

// Makes the jobs tier know `id` for `caller`, within the caller's lookup
// budget (JobLookups: one bjobs shared by everyone asking at once, a
// negative cache, lookups in flight bounded), then calls `done` once with
// nullopt (answer from the tier's table) or the answer to send instead: 404
// for an id LSF said it does not know, 429 over the budget, 503 when LSF
// could not be asked. Needs services.tracker; `services` must outlive the
// call of `done`.
void LookUpJob(const Services& services, const Caller& caller, const lsf::JobId& id,
               std::function<void(std::optional<Response>)> done);

}  // namespace bplace::api
