#pragma once

// The JSON of followed jobs (docs/api.md "Jobs: following and cancelling"): GET
// /v1/jobs/{id}, GET /v1/jobs, the job in DELETE answers. Pure functions.

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "daemon/cluster/job_table.h"
#include "daemon/cluster/snapshot.h"

namespace bplace {
class WaitCoverage;
}  // namespace bplace

namespace bplace::api {

// One job: id ("1234" or "1234[7]"), job_id, array_index, user, status
// (LSF's STAT when LSF 10.1 documents it, SUBMITTED, else UNKNOWN),
// lsf_status (LSF's STAT as printed; null for SUBMITTED), terminal,
// exit_code (0 for DONE; null while not known), exit_reason, pend_reason,
// queue (its current one), requested_queue, submit_time / start_time /
// finish_time (RFC 3339, null when not known), finish_time_estimated,
// exec_hosts ([{host, slots}]), slots, job_name, job_description,
// from_host, project, and bplace's: submitted_by_bplace, request_id,
// idempotency_key, labels, submitted_at, last_seen_in_lsf (when bjobs last
// listed it: the state is LSF's as of then), missing_since (bjobs has left
// it out since), left_lsf and left_lsf_at (LSF confirmed it no longer
// knows the job; the state is its last), updated_at; and the wait
// (docs/api.md "Expected start"): expected_start (ExpectedStartJson of
// the prediction its placement gave; null for a job bplace did not place),
// wait_s and within_bound: as `coverage` judged the job while it
// remembers it (WaitCoverage::Judged: the wait of the first source to see
// the start, LSF's event log's to the second when the log is read), so that
// a job and the coverage counters agree; else RealisedWait and WithinBound
// of it. wait_s is null until the job starts, within_bound unless it
// started with a prediction that had a bound. `coverage` null:
// RealisedWait only.
nlohmann::json JobJson(const JobView& job, const WaitCoverage* coverage);

// An array job asked for as a whole: the elements' JSON (JobJson) in
// `elements`, and a status count per state in `statuses`.
nlohmann::json ArrayJobJson(std::int64_t job_id, const std::vector<const JobView*>& elements,
                            const WaitCoverage* coverage);

// as_of / age_s of the jobs tier (its last successful refresh at `now`),
// and its last error when it is failing.
void AddJobsAge(nlohmann::json& body, const ClusterSnapshot& snapshot, SystemTime now);

}  // namespace bplace::api
