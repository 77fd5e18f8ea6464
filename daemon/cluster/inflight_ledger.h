#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace bplace {

// Slots this daemon has put into queues that LSF's counters (`bqueues -w`)
// cannot show yet. Placement adds them to PEND so that a burst of
// submissions spreads across queues instead of piling into the one that was
// least busy at the last refresh. Thread-safe.
class InflightLedger {
 public:
  using Ticket = std::uint64_t;
  using Clock = std::chrono::steady_clock;

  // Counts `slots` against `queue` from now on (a bsub is about to run).
  Ticket Reserve(const std::string& queue, std::int64_t slots);

  // The bsub for `ticket` finished at `when`. When `keep` (the job was
  // submitted, or the outcome is unknown after a timeout) the slots stay
  // counted until a load refresh that started after `when`; otherwise
  // (LSF refused the job) they are dropped at once. A non-empty
  // `landed_in` moves the slots to that queue: LSF reported another queue
  // than the one asked for (a site esub rewrote -q), and its PEND is the one
  // that will grow.
  void Finish(Ticket ticket, bool keep, Clock::time_point when, const std::string& landed_in = "");

  // A load refresh whose `bqueues -w` started at `counted_at` was published:
  // drops every entry that finished before it, since LSF counted those.
  void OnLoadCounted(Clock::time_point counted_at);

  // Slots per queue still to be added to PEND. When `version` is given it
  // receives version() as of these counts (read under the same lock).
  std::unordered_map<std::string, std::int64_t> Counts(std::uint64_t* version = nullptr) const;

  // A number that grows with every change of what Counts returns (Reserve,
  // Finish of a known ticket, OnLoadCounted that dropped an entry): equal
  // versions mean equal counts. Never blocks.
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }

 private:
  struct Entry {
    std::string queue;
    std::int64_t slots = 0;
    bool finished = false;
    Clock::time_point finished_at{};
  };

  mutable std::mutex mutex_;
  Ticket next_ticket_ = 1;
  std::unordered_map<Ticket, Entry> entries_;
  // Bumped under mutex_ after each change of entries_; read without it.
  std::atomic<std::uint64_t> version_{0};
};

}  // namespace bplace
