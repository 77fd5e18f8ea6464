#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/clock.h"

namespace bplace {

// Each queue's backlog share (BacklogShare in daemon/placement/placement.h:
// the share of the queue's capacity that must free up before a job can
// start) as it was at each load refresh, so that a wait learned later (from
// lsb.events or the jobs tier) can be told the backlog its job was
// submitted behind (WaitObservation::backlog_at_submit; docs/design.md
// "Wait prediction"). Without it, live waits teach only the whole-queue
// history, blind to the backlog of the moment.
//
// Bounded: at most max_records_per_queue records per queue, the oldest
// forgotten first; a record is kept only when the share differs from the
// queue's previous one (a queue whose backlog stays the same costs one
// record however long), so the history spans at least max_records_per_queue
// load refreshes. Queues are those the load tier lists: the site's, a
// bounded set. A record is 16 bytes; the default bound is 64 KiB a queue.
//
// Pure: no I/O and no clock (every time is an argument). Not thread-safe:
// one owner calls it (WaitModel, under its mutex).
class BacklogHistory {
 public:
  // The default bound: 4,096 changes, over 17 hours of refreshes every 15 s
  // even when the share changes at each.
  static constexpr std::size_t kDefaultMaxRecordsPerQueue = 4096;

  explicit BacklogHistory(std::size_t max_records_per_queue = kDefaultMaxRecordsPerQueue);

  // Records that `queue`'s backlog share was `share` at `at` (the load
  // refresh's time). A record older than the queue's newest is ignored
  // (the load tier's times only grow); one equal in share to the newest
  // adds nothing.
  void Record(std::string_view queue, SystemTime at, double share);

  // The share of the newest record of `queue` at or before `at`; none when
  // the queue has no record that old (unknown queue, a time before the
  // first refresh or older than the history kept).
  std::optional<double> ShareAt(std::string_view queue, SystemTime at) const;

  // Records kept for `queue` (0 for an unknown queue).
  std::size_t records(std::string_view queue) const;

 private:
  struct Entry {
    SystemTime at;
    double share = 0.0;
  };

  std::size_t max_records_;
  std::unordered_map<std::string, std::deque<Entry>> queues_;
};

}  // namespace bplace
