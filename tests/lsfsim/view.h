#pragma once

#include <string>
#include <vector>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// Slot counters of one queue, as bqueues prints them (job table plus the
// queue's background load).
struct QueueCounters {
  int njobs = 0;
  int pend = 0;
  int run = 0;
  int ssusp = 0;
  int ususp = 0;
  int rsv = 0;
  int susp() const { return ssusp + ususp; }
};

// Slot counters of one host, as bhosts prints them.
struct HostCounters {
  int njobs = 0;
  int run = 0;
  int ssusp = 0;
  int ususp = 0;
};

// The cluster as the LSF commands see it at one moment: the definition with
// the control overrides applied and the job table folded into counters.
// Built under the state lock and used read-only; thread-compatible.
class ClusterView {
 public:
  // All three must outlive the view.
  ClusterView(const ClusterDef& cluster, const Overrides& overrides, const JobTable& jobs);

  const ClusterDef& cluster() const { return cluster_; }

  // Queue state after `set-queue` overrides.
  bool QueueOpen(size_t queue) const;
  QueueActivity Activity(size_t queue) const;

  // STATUS as plain bqueues prints it: Open:Active, Open:Inact,
  // Closed:Active, Closed:Inact.
  std::string QueueShortStatus(size_t queue) const;

  // STATUS as bqueues -l prints it: Open:Active, Open:Inact_Adm,
  // Open:Inact_Win, Closed:... (LSF cuts it to 14 characters when printing).
  std::string QueueLongStatus(size_t queue) const;

  // Slot counters of a queue: unfinished jobs of the table plus background.
  // PEND counts PEND and PSUSP jobs, RUN counts RUN and UNKWN (ZOMBI jobs
  // hold nothing).
  QueueCounters Counters(size_t queue) const;

  // Host status as defined or set with `set-host`.
  std::string ConfiguredHostStatus(size_t host) const;

  // Host status as bhosts -w prints it: a configured `ok` host whose slots
  // are all used shows `closed_Full`.
  std::string HostStatus(size_t host) const;

  // Slots in use on a host: its `busy` slots plus the slots of the jobs
  // dispatched to it that hold them (RUN, USUSP, SSUSP, UNKWN).
  int HostUsedSlots(size_t host) const;

  // Slot counters of a host as bhosts prints them: NJOBS is
  // HostUsedSlots, RUN counts `busy` and RUN/UNKWN jobs.
  HostCounters HostCountersOf(size_t host) const;

  // Returns true when a new job of `slots` slots may start on the host now:
  // status ok and enough free slots.
  bool HostCanStart(size_t host, int slots) const;

  // The host's `ib_ok` load index after `set-ib` overrides.
  int HostIbOk(size_t host) const;

 private:
  void AddJob(const Job& job);

  const ClusterDef& cluster_;
  const Overrides& overrides_;
  std::vector<QueueCounters> queue_counters_;
  std::vector<HostCounters> host_counters_;  // job table only, `busy` excluded
};

}  // namespace bplace::lsfsim
