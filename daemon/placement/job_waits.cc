#include "daemon/placement/job_waits.h"

#include <algorithm>

#include "daemon/placement/placement.h"

namespace bplace {

std::optional<std::chrono::seconds> RealisedWait(const JobView& job) {
  if (!job.start_time || !job.submit_time || *job.start_time < *job.submit_time) {
    return std::nullopt;
  }
  return std::chrono::duration_cast<std::chrono::seconds>(*job.start_time - *job.submit_time);
}

std::vector<StartedJob> NewlyStarted(const JobTable* before, const JobTable& after) {
  std::vector<StartedJob> started;
  for (const auto& [key, view] : after.jobs) {
    if (!view->start_time || !view->submit_time) continue;
    if (before != nullptr) {
      const JobView* earlier = before->Find(key);
      if (earlier != nullptr && earlier->start_time) continue;
    }
    StartedJob job;
    job.key = key;
    job.wait.queue = view->lsf.queue;
    job.wait.slots = std::max<std::int64_t>(1, view->lsf.slots);
    job.wait.submitted = *view->submit_time;
    job.wait.started = *view->start_time;
    job.submitted_by_bplace = view->submitted_by_bplace;
    job.prediction = view->predicted_start;
    job.waited = RealisedWait(*view);
    job.wait.could_start_at_submit =
        view->predicted_start && view->predicted_start->method == "starts_now";
    started.push_back(std::move(job));
  }
  return started;
}

std::size_t LearnFromPublish(const ClusterSnapshot& before, const ClusterSnapshot& after,
                             bool jobs_teach, WaitModel& model, WaitCoverage& coverage) {
  if (after.load && after.load != before.load) {
    for (const auto& [name, queue] : after.load->queues) {
      model.SetQueueDispatching(name, queue.status.active, after.load_as_of);
    }
    for (const auto& [name, share] : QueueBacklogs(after)) {
      model.RecordBacklog(name, after.load_as_of, share);
    }
  }
  if (!after.jobs || after.jobs == before.jobs) return 0;
  const std::vector<StartedJob> started = NewlyStarted(before.jobs.get(), *after.jobs);
  for (const StartedJob& job : started) {
    if (jobs_teach) model.Observe(job.wait);
    if (job.submitted_by_bplace && job.prediction && job.waited) {
      coverage.Record(job.wait.queue, job.waited->count(), *job.prediction);
    }
  }
  return started.size();
}

StartPrediction ToPrediction(const WaitEstimate& estimate) {
  StartPrediction prediction;
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
