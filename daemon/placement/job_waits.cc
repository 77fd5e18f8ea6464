#include "daemon/placement/job_waits.h"

#include <algorithm>

#include "daemon/placement/placement.h"

namespace bplace {

namespace {

// LSF prints bjobs times to the minute; such a time stands for its minute.
constexpr std::chrono::seconds kRestOfMinute{59};

// What bplace's prediction for `job`, one of its own, says of the
// submission `wait` is of: nothing for an array element (placement judged
// one element; the rest queue behind it), a job now in another queue than
// the one it was placed in (bswitch), or a wait submitted at another time.
void AddPrediction(const JobView& job, WaitObservation& wait) {
  if (!job.submitted_by_bplace || !job.predicted_start || wait.array_index != 0) return;
  if (wait.queue != job.lsf.queue) return;
  if (job.submitted_at && !SameSubmission(wait.submitted, *job.submitted_at)) return;
  const StartPrediction& prediction = *job.predicted_start;
  wait.could_start_at_submit = prediction.method == WaitMethodName(WaitMethod::kStartsNow);
  if (prediction.backlog) wait.backlog_at_submit = prediction.backlog;
}

bool HasSeconds(SystemTime time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count() % 60 !=
         0;
}

}  // namespace

std::optional<JobTimes> StartTimesOf(const JobView& job) {
  if (!job.start_time || !job.submit_time) return std::nullopt;
  const SystemTime lsf_start = *job.start_time;
  SystemTime latest = HasSeconds(lsf_start) ? lsf_start : lsf_start + kRestOfMinute;
  SystemTime earliest = lsf_start;
  if (job.start_seen_at) latest = std::min(latest, *job.start_seen_at);
  if (job.start_not_before) earliest = std::max(earliest, *job.start_not_before);
  JobTimes times;
  times.started = latest >= earliest ? latest : lsf_start;
  times.submitted =
      job.submitted_by_bplace && job.submitted_at ? *job.submitted_at : *job.submit_time;
  return times;
}

std::optional<std::chrono::seconds> RealisedWait(const JobView& job) {
  const std::optional<JobTimes> times = StartTimesOf(job);
  if (!times || times->started < times->submitted) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(times->started - times->submitted);
}

std::vector<StartedJob> NewlyStarted(const JobTable* before, const JobTable& after) {
  std::vector<StartedJob> started;
  if (before == nullptr) return started;
  for (const auto& [key, view] : after.jobs) {
    const std::optional<JobTimes> times = StartTimesOf(*view);
    if (!times) continue;
    const JobView* earlier = before->Find(key);
    if (earlier != nullptr && earlier->start_time) continue;
    StartedJob job;
    job.key = key;
    job.wait.queue = view->lsf.queue;
    job.wait.slots = std::max<std::int64_t>(1, view->lsf.slots);
    job.wait.submitted = times->submitted;
    job.wait.started = times->started;
    job.wait.job_id = key.job_id;
    job.wait.array_index = key.array_index;
    job.submitted_by_bplace = view->submitted_by_bplace;
    job.prediction = view->predicted_start;
    job.waited = RealisedWait(*view);
    AddPrediction(*view, job.wait);
    started.push_back(std::move(job));
  }
  return started;
}

std::size_t LearnFromPublish(const ClusterSnapshot& before, const ClusterSnapshot& after,
                             bool events_read, WaitModel& model, WaitCoverage& coverage) {
  if (after.load && after.load != before.load) {
    for (const auto& [name, queue] : after.load->queues) {
      model.SetQueueDispatching(name, queue.status.active, after.load_as_of);
    }
    for (const auto& [name, share] : QueueBacklogs(after)) {
      model.RecordBacklog(name, after.load_as_of, share);
    }
  }
  // With the log read, its records teach and judge: the jobs are not
  // walked at all (a table of many thousand jobs, every refresh).
  if (events_read || !after.jobs || after.jobs == before.jobs) return 0;
  const std::vector<StartedJob> started = NewlyStarted(before.jobs.get(), *after.jobs);
  for (const StartedJob& job : started) {
    model.Observe(job.wait);
    if (job.submitted_by_bplace && job.prediction && job.waited) {
      coverage.Record(job.key, job.wait.queue, job.wait.submitted, job.waited->count(),
                      *job.prediction);
    }
  }
  return started.size();
}

std::size_t JudgeEventWaits(const std::vector<WaitObservation>& waits, const JobTable& jobs,
                            WaitCoverage& coverage) {
  std::size_t counted = 0;
  for (const WaitObservation& wait : waits) {
    const JobKey key{wait.job_id, wait.array_index};
    const JobView* job = jobs.Find(key);
    // An element bjobs has not listed yet: the array's row stands for it.
    if (job == nullptr && key.array_index != 0) job = jobs.Find(JobKey{key.job_id, 0});
    if (job == nullptr || !job->submitted_by_bplace || !job->predicted_start) continue;
    if (job->submitted_at && !SameSubmission(wait.submitted, *job->submitted_at)) continue;
    if (wait.started < wait.submitted) continue;
    const auto waited =
        std::chrono::duration_cast<std::chrono::seconds>(wait.started - wait.submitted);
    if (coverage.Record(key, wait.queue, wait.submitted, waited.count(), *job->predicted_start)) {
      ++counted;
    }
  }
  return counted;
}

void AddSubmissionContext(const JobTable& jobs, WaitObservation& wait) {
  const JobView* job = jobs.Find(JobKey{wait.job_id, wait.array_index});
  if (job != nullptr) AddPrediction(*job, wait);
}

StartPrediction ToPrediction(const WaitEstimate& estimate, std::optional<double> backlog) {
  StartPrediction prediction;
  prediction.backlog = backlog;
  prediction.method = WaitMethodName(estimate.method);
  if (estimate.p50) prediction.p50_s = estimate.p50->count();
  if (estimate.bound) prediction.bound_s = estimate.bound->count();
  prediction.quantile = estimate.quantile;
  prediction.confidence = estimate.confidence;
  prediction.samples = static_cast<std::int64_t>(estimate.samples);
  return prediction;
}

std::optional<WaitEstimate> FromPrediction(const StartPrediction& prediction) {
  const std::optional<WaitMethod> method = WaitMethodOfName(prediction.method);
  if (!method) return std::nullopt;
  WaitEstimate estimate;
  estimate.method = *method;
  if (prediction.p50_s) estimate.p50 = std::chrono::seconds(*prediction.p50_s);
  if (prediction.bound_s) estimate.bound = std::chrono::seconds(*prediction.bound_s);
  estimate.quantile = prediction.quantile;
  estimate.confidence = prediction.confidence;
  estimate.samples = static_cast<std::size_t>(std::max<std::int64_t>(0, prediction.samples));
  return estimate;
}

}  // namespace bplace
