#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "common/clock.h"
#include "daemon/placement/wait_predictor.h"
#include "lsf_adapter/lsb_events_parser.h"

namespace bplace {

// Counts of what EventWaits did with the records it was fed.
struct EventWaitStats {
  std::uint64_t learned = 0;        // waits produced
  std::uint64_t disturbed = 0;      // starts of jobs switched, moved, forced or held: left out
  std::uint64_t unknown_start = 0;  // JOB_START of a job whose JOB_NEW was not seen
  std::uint64_t restarts = 0;       // a second JOB_START of one job (requeued): left out
};

// Turns the records of lsb.events into the waits LSF gave every user's
// jobs: a JOB_NEW remembers a job's queue, slots and submission (or its
// bsub -b begin time, before which it cannot start); its JOB_START (one per
// array element) completes a WaitObservation. A job bswitch'ed to another
// queue, moved in its queue (btop, bbot), started by brun (JOB_FORCE) or
// held pending (PSUSP) did not wait as its queue makes jobs wait: its start
// is left out. Waits are produced once per job or element; a restart after
// a requeue is not a wait. Jobs are forgotten at JOB_CLEAN, at DONE or EXIT
// of a job that is no array, or by Prune. Pure: no I/O, no clock. Not
// thread-safe: one owner feeds it (the event-log poller).
class EventWaits {
 public:
  // Takes one record; returns the wait it completes, if any. Records of
  // other kinds change nothing.
  std::optional<WaitObservation> Feed(const lsf::LsbEvent& event);

  // Forgets jobs submitted before `cutoff` that never started (their
  // JOB_START, if it ever comes, is then an unknown start). Bounds memory
  // when records are lost.
  void Prune(SystemTime cutoff);

  std::size_t tracked() const { return jobs_.size(); }
  const EventWaitStats& stats() const { return stats_; }

 private:
  struct Job {
    std::string queue;
    std::int64_t slots = 1;
    std::int64_t eligible_at = 0;  // submit time, or the begin time when later
    bool disturbed = false;
    std::set<std::int64_t> started;  // array indexes (0 outside arrays) already started
  };

  std::unordered_map<std::int64_t, Job> jobs_;
  EventWaitStats stats_;
};

}  // namespace bplace
