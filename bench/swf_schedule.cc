#include "bench/swf_schedule.h"

#include <algorithm>
#include <limits>

namespace bplace::bench {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

struct Running {
  std::int64_t end_s;
  std::int64_t estimated_end_s;
  std::int64_t procs;
};

// One simulation over `jobs`; Run fills their waits.
class EasyScheduler {
 public:
  EasyScheduler(std::vector<SwfJob>& jobs, const ScheduleOptions& options)
      : jobs_(jobs), options_(options) {
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      SwfJob& job = jobs_[i];
      job.wait_s = -1;
      if (job.submit_s < 0 || job.run_s < 0) continue;
      job.procs = std::min(job.Slots(), options_.machine_procs);
      arrivals_.push_back(i);
    }
    std::stable_sort(arrivals_.begin(), arrivals_.end(), [&](std::size_t a, std::size_t b) {
      return jobs_[a].submit_s < jobs_[b].submit_s;
    });
  }

  void Run() {
    const std::int64_t session = std::max<std::int64_t>(options_.session_s, 1);
    while (next_arrival_ < arrivals_.size() || !running_.empty()) {
      const std::int64_t event = std::min(NextArrival(), NextEnd());
      const std::int64_t now = (event + session - 1) / session * session;
      Release(now);
      Admit(now);
      Session(now);
    }
  }

 private:
  std::int64_t NextArrival() const {
    return next_arrival_ < arrivals_.size() ? jobs_[arrivals_[next_arrival_]].submit_s : kNever;
  }
  std::int64_t NextEnd() const {
    std::int64_t end = kNever;
    for (const Running& r : running_) end = std::min(end, r.end_s);
    return end;
  }
  int Priority(std::size_t i) const {
    const auto it = options_.queue_priority.find(jobs_[i].queue);
    return it == options_.queue_priority.end() ? 0 : it->second;
  }
  // The order pending jobs are considered in: queue priority, then FCFS.
  bool Before(std::size_t a, std::size_t b) const {
    if (Priority(a) != Priority(b)) return Priority(a) > Priority(b);
    return jobs_[a].submit_s != jobs_[b].submit_s ? jobs_[a].submit_s < jobs_[b].submit_s : a < b;
  }
  // The run time EASY plans with: the user's estimate, never below the run.
  std::int64_t Estimate(std::size_t i) const {
    return std::max(jobs_[i].requested_time_s, jobs_[i].run_s);
  }

  void Release(std::int64_t now) {
    std::erase_if(running_, [&](const Running& r) {
      if (r.end_s > now) return false;
      used_ -= r.procs;
      return true;
    });
  }

  void Admit(std::int64_t now) {
    for (; next_arrival_ < arrivals_.size() && NextArrival() <= now; ++next_arrival_) {
      const std::size_t i = arrivals_[next_arrival_];
      pending_.insert(std::upper_bound(pending_.begin(), pending_.end(), i,
                                       [&](std::size_t a, std::size_t b) { return Before(a, b); }),
                      i);
    }
  }

  void Start(std::size_t i, std::int64_t now) {
    jobs_[i].wait_s = now - jobs_[i].submit_s;
    running_.push_back(Running{now + jobs_[i].run_s, now + Estimate(i), jobs_[i].procs});
    used_ += jobs_[i].procs;
  }

  void Session(std::int64_t now) {
    while (!pending_.empty()) {
      const std::size_t head = pending_.front();
      if (jobs_[head].procs <= options_.machine_procs - used_) {
        Start(head, now);
        pending_.erase(pending_.begin());
        continue;
      }
      Backfill(now, head);
      return;
    }
  }

  // EASY: the head job gets a reservation at the earliest time enough
  // processors free up (by the estimates); a later job may start now if it
  // fits and either ends before that time or uses only processors the head
  // will not need.
  void Backfill(std::int64_t now, std::size_t head) {
    std::vector<Running> by_end = running_;
    std::sort(by_end.begin(), by_end.end(), [](const Running& a, const Running& b) {
      return a.estimated_end_s < b.estimated_end_s;
    });
    std::int64_t free = options_.machine_procs - used_;
    std::int64_t available = free, shadow = kNever, extra = 0;
    for (const Running& r : by_end) {
      available += r.procs;
      if (available >= jobs_[head].procs) {
        shadow = r.estimated_end_s;
        extra = available - jobs_[head].procs;
        break;
      }
    }
    for (std::size_t k = 1; k < pending_.size() && k <= options_.backfill_depth && free > 0;) {
      const std::size_t i = pending_[k];
      const bool ends_in_time = now + Estimate(i) <= shadow;
      if (jobs_[i].procs <= free && (ends_in_time || jobs_[i].procs <= extra)) {
        Start(i, now);
        free -= jobs_[i].procs;
        if (!ends_in_time) extra -= jobs_[i].procs;
        pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
  }

  std::vector<SwfJob>& jobs_;
  const ScheduleOptions& options_;
  std::vector<std::size_t> arrivals_;  // by submit time
  std::size_t next_arrival_ = 0;
  std::vector<std::size_t> pending_;  // in Before order
  std::vector<Running> running_;
  std::int64_t used_ = 0;
};

}  // namespace

void ScheduleEasy(std::vector<SwfJob>& jobs, const ScheduleOptions& options) {
  if (options.machine_procs <= 0) return;
  EasyScheduler(jobs, options).Run();
}

}  // namespace bplace::bench
