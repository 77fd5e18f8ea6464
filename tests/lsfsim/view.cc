#include "tests/lsfsim/view.h"

#include "tests/lsfsim/job_state.h"

namespace bplace::lsfsim {

ClusterView::ClusterView(const ClusterDef& cluster, const Overrides& overrides,
                         const JobTable& jobs)
    : cluster_(cluster),
      overrides_(overrides),
      queue_counters_(cluster.queues.size()),
      host_counters_(cluster.hosts.size()) {
  for (size_t i = 0; i < cluster.queues.size(); ++i) {
    const Background& bg = cluster.queues[i].background;
    queue_counters_[i] = QueueCounters{
        .pend = bg.pend, .run = bg.run, .ssusp = bg.ssusp, .ususp = bg.ususp, .rsv = bg.rsv};
  }
  for (const Job& job : jobs.jobs) AddJob(job);
  // NJOBS counts slots in every unfinished state, reserved ones excluded.
  for (QueueCounters& c : queue_counters_) c.njobs = c.pend + c.run + c.ssusp + c.ususp;
}

void ClusterView::AddJob(const Job& job) {
  std::optional<size_t> queue = cluster_.FindQueue(job.queue);
  std::optional<size_t> host = HoldsSlots(job) ? cluster_.FindHost(job.exec_host) : std::nullopt;
  QueueCounters none;
  QueueCounters& q = queue ? queue_counters_[*queue] : none;
  HostCounters no_host;
  HostCounters& h = host ? host_counters_[*host] : no_host;
  if (HoldsSlots(job)) h.njobs += job.slots;
  if (IsPending(job)) {
    q.pend += job.slots;
  } else if (job.status == "RUN" || job.status == "UNKWN") {
    q.run += job.slots;
    h.run += job.slots;
  } else if (job.status == "SSUSP") {
    q.ssusp += job.slots;
    h.ssusp += job.slots;
  } else if (job.status == "USUSP") {
    q.ususp += job.slots;
    h.ususp += job.slots;
  }
}

bool ClusterView::QueueOpen(size_t queue) const {
  auto it = overrides_.queue_open.find(cluster_.queues[queue].name);
  return it == overrides_.queue_open.end() ? cluster_.queues[queue].open : it->second;
}

QueueActivity ClusterView::Activity(size_t queue) const {
  auto it = overrides_.queue_activity.find(cluster_.queues[queue].name);
  return it == overrides_.queue_activity.end() ? cluster_.queues[queue].activity : it->second;
}

std::string ClusterView::QueueShortStatus(size_t queue) const {
  std::string status = QueueOpen(queue) ? "Open:" : "Closed:";
  status += Activity(queue) == QueueActivity::kActive ? "Active" : "Inact";
  return status;
}

std::string ClusterView::QueueLongStatus(size_t queue) const {
  std::string status = QueueOpen(queue) ? "Open:" : "Closed:";
  switch (Activity(queue)) {
    case QueueActivity::kActive:
      status += "Active";
      break;
    case QueueActivity::kInactAdm:
      status += "Inact_Adm";
      break;
    case QueueActivity::kInactWin:
      status += "Inact_Win";
      break;
  }
  return status;
}

QueueCounters ClusterView::Counters(size_t queue) const { return queue_counters_[queue]; }

std::string ClusterView::ConfiguredHostStatus(size_t host) const {
  auto it = overrides_.host_status.find(cluster_.hosts[host].name);
  return it == overrides_.host_status.end() ? cluster_.hosts[host].status : it->second;
}

std::string ClusterView::HostStatus(size_t host) const {
  std::string status = ConfiguredHostStatus(host);
  const HostDef& def = cluster_.hosts[host];
  if (status == "ok" && def.max_slots && HostUsedSlots(host) >= *def.max_slots) {
    return "closed_Full";
  }
  return status;
}

int ClusterView::HostUsedSlots(size_t host) const {
  return cluster_.hosts[host].busy + host_counters_[host].njobs;
}

HostCounters ClusterView::HostCountersOf(size_t host) const {
  HostCounters c = host_counters_[host];
  c.njobs += cluster_.hosts[host].busy;
  c.run += cluster_.hosts[host].busy;
  return c;
}

bool ClusterView::HostCanStart(size_t host, int slots) const {
  if (ConfiguredHostStatus(host) != "ok") return false;
  const HostDef& def = cluster_.hosts[host];
  return !def.max_slots || HostUsedSlots(host) + slots <= *def.max_slots;
}

int ClusterView::HostIbOk(size_t host) const {
  auto it = overrides_.ib_ok.find(cluster_.hosts[host].name);
  return it == overrides_.ib_ok.end() ? cluster_.hosts[host].ib_ok : it->second;
}

}  // namespace bplace::lsfsim
