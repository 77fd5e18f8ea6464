#include "tests/lsfsim/scheduler.h"

#include <algorithm>
#include <map>
#include <utility>

#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/resolver.h"
#include "tests/lsfsim/util.h"
#include "tests/lsfsim/view.h"

namespace bplace::lsfsim {
namespace {

// Slots held by dispatched jobs, by every key a limit is counted on. Kept up
// to date as the turn dispatches.
class SlotUsage {
 public:
  SlotUsage(const ClusterDef& cluster, const ClusterView& view, const JobTable& jobs)
      : cluster_(cluster), queue_(cluster.queues.size()), host_(cluster.hosts.size()) {
    for (size_t q = 0; q < queue_.size(); ++q) {
      const Background& bg = cluster.queues[q].background;
      queue_[q] = bg.run + bg.ssusp + bg.ususp;
    }
    for (size_t h = 0; h < host_.size(); ++h) host_[h] = view.HostUsedSlots(h);
    for (const Job& job : jobs.jobs) {
      if (HoldsSlots(job)) Count(job, false);
    }
  }

  // Adds a job's slots under every key; `new_dispatch` also adds them to
  // the host total (already counted from the view for existing jobs).
  void Count(const Job& job, bool new_dispatch) {
    std::optional<size_t> q = cluster_.FindQueue(job.queue);
    std::optional<size_t> h = cluster_.FindHost(job.exec_host);
    if (q) {
      queue_[*q] += job.slots;
      queue_user_[{*q, job.user}] += job.slots;
    }
    if (h) {
      if (new_dispatch) host_[*h] += job.slots;
      host_user_[{*h, job.user}] += job.slots;
      if (q) host_queue_[{*h, *q}] += job.slots;
    }
    if (job.index != 0) ++array_[job.id];
  }

  int Queue(size_t q) const { return queue_[q]; }
  int Host(size_t h) const { return host_[h]; }
  int QueueUser(size_t q, const std::string& user) const { return Get(queue_user_, {q, user}); }
  int HostUser(size_t h, const std::string& user) const { return Get(host_user_, {h, user}); }
  int HostQueue(size_t h, size_t q) const { return Get(host_queue_, {h, q}); }
  int Array(long long id) const { return Get(array_, id); }

 private:
  template <typename Map>
  static int Get(const Map& map, const typename Map::key_type& key) {
    auto it = map.find(key);
    return it == map.end() ? 0 : it->second;
  }

  const ClusterDef& cluster_;
  std::vector<int> queue_;
  std::vector<int> host_;
  std::map<std::pair<size_t, std::string>, int> queue_user_;
  std::map<std::pair<size_t, std::string>, int> host_user_;
  std::map<std::pair<size_t, size_t>, int> host_queue_;
  std::map<long long, int> array_;
};

// Why a host cannot take the job now (lsb.reason.c host reasons); empty
// when it can.
std::string HostReason(const ClusterDef& cluster, const ClusterView& view, const SlotUsage& usage,
                       const Job& job, size_t q, size_t h) {
  const HostDef& host = cluster.hosts[h];
  const QueueDef& queue = cluster.queues[q];
  std::string status = view.ConfiguredHostStatus(h);
  if (status == "closed_Lock") return "Host is locked by LSF administrator";
  if (status == "closed_Wind") return "Dispatch windows closed";
  if (status == "unavail") return "Load information unavailable";
  if (status == "unreach") return "LIM is unreachable now";
  if (status != "ok" && status != "closed_Full") return "Closed by LSF administrator";
  if (host.max_slots && usage.Host(h) + job.slots > *host.max_slots)
    return "Job slot limit reached";
  if (host.jl_u && usage.HostUser(h, job.user) + job.slots > *host.jl_u) {
    return "Host's per-user job slot limit reached";
  }
  if (queue.jl_h && usage.HostQueue(h, q) + job.slots > *queue.jl_h) {
    return "Queue's per-host job slot limit reached";
  }
  return "";
}

// Why the queue, the user's share of it or the array keeps the job
// pending; empty when none does.
std::string QueueReason(const ClusterDef& cluster, const ClusterView& view, const SlotUsage& usage,
                        const Job& job, size_t q) {
  const QueueDef& queue = cluster.queues[q];
  bool parallel = job.slots > 1;
  switch (view.Activity(q)) {
    case QueueActivity::kInactAdm:
      return "The queue is inactivated by the administrator";
    case QueueActivity::kInactWin:
      return "The queue is inactivated by its time windows";
    case QueueActivity::kActive:
      break;
  }
  if (job.array_limit > 0 && usage.Array(job.id) >= job.array_limit) {
    return "The job array has reached its running element limit";
  }
  if (queue.max_slots && usage.Queue(q) + job.slots > *queue.max_slots) {
    return parallel ? "The queue has not enough job slots for the parallel job"
                    : "The queue has reached its job slot limit";
  }
  if (queue.jl_u && usage.QueueUser(q, job.user) + job.slots > *queue.jl_u) {
    return parallel ? "Not enough per-user job slots of the queue for the parallel job"
                    : "User has reached the per-user job slot limit of the queue";
  }
  return "";
}

// The hosts the job may go to, in the order the turn tries them: -m order
// first (the user's preference), else definition order.
std::vector<size_t> CandidateHosts(Resolver& resolver, const Job& job, size_t q) {
  const HostSet& queue_hosts = resolver.QueueHosts(q);
  std::vector<size_t> order;
  if (job.asked_hosts.empty()) {
    for (size_t h = 0; h < queue_hosts.size(); ++h) {
      if (queue_hosts[h]) order.push_back(h);
    }
    return order;
  }
  for (const std::string& token : job.asked_hosts) {
    std::optional<HostSet> hosts = resolver.HostsOfName(token);
    if (!hosts) continue;
    for (size_t h = 0; h < hosts->size(); ++h) {
      if ((*hosts)[h] && queue_hosts[h]) order.push_back(h);
    }
  }
  return order;
}

// "Job slot limit reached: 2 hosts; Closed by LSF administrator: 1 host;",
// the way bjobs -p counts host reasons, in order of first appearance.
std::string SummarizeHostReasons(const std::vector<std::string>& reasons) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& reason : reasons) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == reason; });
    if (it == counts.end()) {
      counts.emplace_back(reason, 1);
    } else {
      ++it->second;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts) {
    parts.push_back(StrPrintf("%s: %d host%s;", reason.c_str(), n, n == 1 ? "" : "s"));
  }
  return Join(parts, " ");
}

std::vector<Job*> PendingInDispatchOrder(const ClusterDef& cluster, JobTable* jobs) {
  std::vector<Job*> pending;
  for (Job& job : jobs->jobs) {
    if (job.status == "PEND") pending.push_back(&job);
  }
  auto prio = [&](const Job* job) {
    std::optional<size_t> q = cluster.FindQueue(job->queue);
    return q ? cluster.queues[*q].priority : 0;
  };
  std::stable_sort(pending.begin(), pending.end(), [&](const Job* a, const Job* b) {
    if (prio(a) != prio(b)) return prio(a) > prio(b);
    if (a->id != b->id) return a->id < b->id;
    return a->index < b->index;
  });
  return pending;
}

}  // namespace

int DispatchPendingJobs(const ClusterDef& cluster, const Overrides& overrides, JobTable* jobs,
                        long long now) {
  ClusterView view(cluster, overrides, *jobs);
  Resolver resolver(cluster);
  SlotUsage usage(cluster, view, *jobs);
  int dispatched = 0;
  for (Job* job : PendingInDispatchOrder(cluster, jobs)) {
    std::optional<size_t> q = cluster.FindQueue(job->queue);
    if (!q) continue;
    if (std::string reason = QueueReason(cluster, view, usage, *job, *q); !reason.empty()) {
      job->pend_reason = reason;
      continue;
    }
    std::vector<std::string> host_reasons;
    for (size_t h : CandidateHosts(resolver, *job, *q)) {
      std::string reason = HostReason(cluster, view, usage, *job, *q, h);
      if (!reason.empty()) {
        host_reasons.push_back(reason);
        continue;
      }
      job->status = "RUN";
      job->exec_host = cluster.hosts[h].name;
      job->start_time = now;
      job->pend_reason.clear();
      usage.Count(*job, true);
      ++dispatched;
      break;
    }
    if (job->status == "PEND" && !host_reasons.empty()) {
      job->pend_reason = SummarizeHostReasons(host_reasons);
    }
  }
  return dispatched;
}

}  // namespace bplace::lsfsim
