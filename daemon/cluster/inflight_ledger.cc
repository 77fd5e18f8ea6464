#include "daemon/cluster/inflight_ledger.h"

#include <iterator>

namespace bplace {

InflightLedger::Ticket InflightLedger::Reserve(const std::string& queue, std::int64_t slots) {
  std::lock_guard lock(mutex_);
  const Ticket ticket = next_ticket_++;
  entries_.emplace(ticket, Entry{queue, slots, false, {}});
  version_.fetch_add(1, std::memory_order_release);
  return ticket;
}

void InflightLedger::Finish(Ticket ticket, bool keep, Clock::time_point when,
                            const std::string& landed_in) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(ticket);
  if (it == entries_.end()) return;
  version_.fetch_add(1, std::memory_order_release);
  if (!keep) {
    entries_.erase(it);
    return;
  }
  it->second.finished = true;
  it->second.finished_at = when;
  if (!landed_in.empty()) it->second.queue = landed_in;
}

void InflightLedger::OnLoadCounted(Clock::time_point counted_at) {
  std::lock_guard lock(mutex_);
  bool dropped = false;
  for (auto it = entries_.begin(); it != entries_.end();) {
    // An entry still running may or may not be in the counters: keep it, so a
    // burst never undercounts; it goes at the first refresh after it ends.
    if (it->second.finished && it->second.finished_at < counted_at) {
      it = entries_.erase(it);
      dropped = true;
    } else {
      ++it;
    }
  }
  if (dropped) version_.fetch_add(1, std::memory_order_release);
}

std::unordered_map<std::string, std::int64_t> InflightLedger::Counts(std::uint64_t* version) const {
  std::lock_guard lock(mutex_);
  if (version != nullptr) *version = version_.load(std::memory_order_relaxed);
  std::unordered_map<std::string, std::int64_t> counts;
  for (const auto& [ticket, entry] : entries_) counts[entry.queue] += entry.slots;
  return counts;
}

}  // namespace bplace
