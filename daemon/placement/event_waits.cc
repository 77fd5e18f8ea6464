#include "daemon/placement/event_waits.h"

#include <algorithm>
#include <variant>

namespace bplace {
namespace {

SystemTime At(std::int64_t seconds) { return SystemTime{} + std::chrono::seconds(seconds); }

}  // namespace

std::optional<WaitObservation> EventWaits::Feed(const lsf::LsbEvent& event) {
  if (const auto* created = std::get_if<lsf::JobNewRecord>(&event.body)) {
    Job& job = jobs_[created->job_id];
    job = Job{};
    job.queue = created->queue;
    job.slots = std::max<std::int64_t>(created->num_processors, 1);
    job.eligible_at = std::max(created->submit_time, created->begin_time);
    return std::nullopt;
  }
  if (const auto* start = std::get_if<lsf::JobStartRecord>(&event.body)) {
    const auto it = jobs_.find(start->job_id);
    if (it == jobs_.end()) {
      ++stats_.unknown_start;
      return std::nullopt;
    }
    Job& job = it->second;
    if (!job.started.insert(start->array_index).second) {
      ++stats_.restarts;
      return std::nullopt;
    }
    if (job.disturbed) {
      ++stats_.disturbed;
      return std::nullopt;
    }
    ++stats_.learned;
    WaitObservation wait;
    wait.queue = job.queue;
    wait.slots = job.slots;
    wait.submitted = At(job.eligible_at);
    wait.started = At(event.event_time);
    wait.job_id = start->job_id;
    wait.array_index = start->array_index;
    return wait;
  }
  if (const auto* switched = std::get_if<lsf::JobSwitchRecord>(&event.body)) {
    if (auto it = jobs_.find(switched->job_id); it != jobs_.end()) {
      it->second.queue = switched->queue;
      it->second.disturbed = true;
    }
    return std::nullopt;
  }
  const std::int64_t* disturbed_id = nullptr;
  if (const auto* moved = std::get_if<lsf::JobMoveRecord>(&event.body))
    disturbed_id = &moved->job_id;
  if (const auto* forced = std::get_if<lsf::JobForceRecord>(&event.body)) {
    disturbed_id = &forced->job_id;
  }
  if (const auto* status = std::get_if<lsf::JobStatusRecord>(&event.body)) {
    const bool ended = status->status & (lsf::job_stat::kDone | lsf::job_stat::kExit);
    if (ended && status->array_index == 0) {
      jobs_.erase(status->job_id);
    } else if (status->status & lsf::job_stat::kPsusp) {
      disturbed_id = &status->job_id;
    }
  }
  if (disturbed_id) {
    if (auto it = jobs_.find(*disturbed_id); it != jobs_.end()) it->second.disturbed = true;
  }
  if (const auto* cleaned = std::get_if<lsf::JobCleanRecord>(&event.body)) {
    jobs_.erase(cleaned->job_id);
  }
  return std::nullopt;
}

void EventWaits::Prune(SystemTime cutoff) {
  std::erase_if(jobs_, [&](const auto& entry) {
    return entry.second.started.empty() && At(entry.second.eligible_at) < cutoff;
  });
}

}  // namespace bplace
