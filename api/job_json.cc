#include "api/job_json.h"

#include <map>

#include "api/json_mapping.h"
#include "daemon/placement/job_waits.h"
#include "daemon/placement/wait_coverage.h"

namespace bplace::api {
namespace {

using nlohmann::json;

json Time(const std::optional<SystemTime>& time) {
  return time ? json(FormatRfc3339(*time)) : json();
}

// `text` as a JSON string, or null when it is empty (LSF printed nothing).
json StringOrNull(const std::string& text) { return text.empty() ? json() : json(text); }

// The status a client can switch on: one of LSF 10.1's words, SUBMITTED,
// or UNKNOWN for a word LSF 10.1 does not document (a newer LSF's state)
// and for a job not answered yet; lsf_status keeps LSF's own word.
std::string StatusOf(const std::string& status) {
  if (status == kSubmittedStatus) return status;
  if (lsf::JobStatusOf(status) == lsf::JobStatus::kUnrecognized) return "UNKNOWN";
  return status;
}

// What bplace's placement said of the job's start and how it fared: its
// expected_start as the placement answered it (null for a job bplace did
// not place, or a record it cannot read), the wait LSF gave it, and whether
// that wait was within the bound: as `coverage` judged them when it did.
void AddPrediction(json& body, const JobView& job, const WaitCoverage* coverage) {
  std::optional<WaitEstimate> estimate;
  if (job.predicted_start) estimate = FromPrediction(*job.predicted_start);
  std::optional<JudgedWait> judged;
  const std::optional<JobKey> key = KeyOf(job.lsf);
  const std::optional<SystemTime> submitted = job.submitted_at ? job.submitted_at : job.submit_time;
  if (estimate && coverage && key && submitted) judged = coverage->Judged(*key, *submitted);
  std::optional<std::int64_t> wait_s;
  std::optional<bool> within;
  if (judged) {
    wait_s = judged->wait_s;
    within = judged->within_bound;
  } else if (const std::optional<std::chrono::seconds> waited = RealisedWait(job)) {
    wait_s = waited->count();
    if (estimate) within = WithinBound(*wait_s, *job.predicted_start);
  }
  body["expected_start"] = estimate ? ExpectedStartJson(*estimate) : json();
  body["wait_s"] = wait_s ? json(*wait_s) : json();
  body["within_bound"] = within ? json(*within) : json();
}

}  // namespace

json JobJson(const JobView& job, const WaitCoverage* coverage) {
  const lsf::JobRecord& r = job.lsf;
  json hosts = json::array();
  for (const lsf::ExecHost& host : r.exec_hosts) {
    hosts.push_back({{"host", host.name}, {"slots", host.slots}});
  }
  std::optional<int> exit_code = r.exit_code;
  if (!exit_code && r.status == "DONE") exit_code = 0;
  json body = {
      {"id", r.IdText()},
      {"job_id", r.job_id},
      {"array_index", r.array_index},
      {"user", StringOrNull(r.user)},
      {"status", StatusOf(r.status)},
      {"lsf_status", StringOrNull(r.status == kSubmittedStatus ? std::string() : r.status)},
      {"terminal", job.terminal},
      {"exit_code", exit_code ? json(*exit_code) : json()},
      {"exit_reason", StringOrNull(r.exit_reason)},
      {"pend_reason", StringOrNull(r.pend_reason)},
      {"queue", StringOrNull(r.queue)},
      {"requested_queue", StringOrNull(job.requested_queue)},
      {"submit_time", Time(job.submit_time)},
      {"start_time", Time(job.start_time)},
      {"finish_time", Time(job.finish_time)},
      {"finish_time_estimated", r.finish_time_estimated},
      {"exec_hosts", hosts},
      {"slots", r.slots},
      {"job_name", StringOrNull(r.job_name)},
      {"job_description", StringOrNull(r.job_description)},
      {"from_host", StringOrNull(r.from_host)},
      {"project", StringOrNull(r.project)},
      {"submitted_by_bplace", job.submitted_by_bplace},
      {"request_id", StringOrNull(job.request_id)},
      {"idempotency_key", StringOrNull(job.idempotency_key)},
      {"labels", job.labels},
      {"submitted_at", Time(job.submitted_at)},
      {"last_seen_in_lsf", Time(job.last_seen_in_lsf)},
      {"missing_since", Time(job.missing_since)},
      {"left_lsf", job.left_lsf},
      {"left_lsf_at", Time(job.left_lsf_at)},
      {"updated_at", FormatRfc3339(job.updated_at)}};
  AddPrediction(body, job, coverage);
  return body;
}

json ArrayJobJson(std::int64_t job_id, const std::vector<const JobView*>& elements,
                  const WaitCoverage* coverage) {
  json list = json::array();
  std::map<std::string, int> statuses;
  bool terminal = true;
  for (const JobView* element : elements) {
    list.push_back(JobJson(*element, coverage));
    ++statuses[StatusOf(element->lsf.status)];
    terminal = terminal && element->terminal;
  }
  return {{"id", std::to_string(job_id)},
          {"job_id", std::to_string(job_id)},
          {"array", true},
          {"terminal", terminal},
          {"statuses", statuses},
          {"elements", list}};
}

void AddJobsAge(json& body, const ClusterSnapshot& snapshot, SystemTime now) {
  const auto& status = snapshot.jobs_status;
  if (status.last_success) {
    AddAge(body, *status.last_success, now);
  } else {
    body["as_of"] = nullptr;
    body["age_s"] = nullptr;
  }
  body["jobs_error"] = StringOrNull(status.last_error);
}

}  // namespace bplace::api
