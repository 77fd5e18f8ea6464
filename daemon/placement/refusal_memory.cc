#include "daemon/placement/refusal_memory.h"

#include <algorithm>
#include <iterator>

namespace bplace {
namespace {

std::uint64_t TopologyGeneration(const ClusterSnapshot& snapshot) {
  return snapshot.topology_status.successes;
}

std::uint64_t LoadGeneration(const ClusterSnapshot& snapshot) {
  return snapshot.load_status.successes;
}

// The queue's NJOBS in the snapshot's load, or nullopt.
std::optional<std::int64_t> QueueNjobs(const ClusterSnapshot& snapshot, const std::string& queue) {
  if (!snapshot.load) return std::nullopt;
  const auto it = snapshot.load->queues.find(queue);
  if (it == snapshot.load->queues.end()) return std::nullopt;
  return it->second.njobs;
}

// Drops the entries `keep` refuses from a user -> queue -> entry map.
template <typename Map, typename Keep>
void EraseUnless(Map& map, const Keep& keep) {
  for (auto outer = map.begin(); outer != map.end();) {
    std::erase_if(outer->second, [&](const auto& item) { return !keep(item.second, item.first); });
    outer = outer->second.empty() ? map.erase(outer) : std::next(outer);
  }
}

}  // namespace

RefusalMemory::RefusalMemory(std::chrono::seconds esub_memory) : esub_memory_(esub_memory) {}

bool RefusalMemory::Remembers(lsf::BsubCause cause) {
  switch (cause) {
    case lsf::BsubCause::kPermission:
    case lsf::BsubCause::kQueueClosed:
    case lsf::BsubCause::kHost:
    case lsf::BsubCause::kLimit:
    case lsf::BsubCause::kEsub:
      return true;
    default:
      return false;
  }
}

bool RefusalMemory::Valid(const Entry& entry, const std::string& queue,
                          const ClusterSnapshot& snapshot, SystemTime now) const {
  if (entry.cause == lsf::BsubCause::kEsub) return now < *entry.refusal.until;
  if (entry.topology_generation != TopologyGeneration(snapshot)) return false;
  if (entry.cause != lsf::BsubCause::kLimit) return true;
  if (entry.load_generation == LoadGeneration(snapshot)) return true;
  // A later load refresh: room again once fewer jobs are in the queue.
  const std::optional<std::int64_t> njobs = QueueNjobs(snapshot, queue);
  return njobs && *njobs >= entry.queue_njobs;
}

void RefusalMemory::Sweep(const ClusterSnapshot& snapshot, SystemTime now) {
  const auto keep = [&](const Entry& entry, const std::string& queue) {
    return Valid(entry, queue, snapshot, now);
  };
  EraseUnless(by_user_, keep);
  EraseUnless(by_host_, keep);
}

void RefusalMemory::RememberRefusal(const ClusterSnapshot& snapshot, SystemTime now,
                                    const std::string& user, const std::string& queue,
                                    const std::optional<std::string>& host, lsf::BsubCause cause,
                                    const std::string& message) {
  if (!Remembers(cause)) return;
  if (cause == lsf::BsubCause::kHost && !host) return;  // nothing to key it by
  Entry entry;
  entry.cause = cause;
  entry.topology_generation = TopologyGeneration(snapshot);
  entry.load_generation = LoadGeneration(snapshot);
  entry.queue_njobs = QueueNjobs(snapshot, queue).value_or(0);
  entry.refusal.cause = lsf::BsubCauseName(cause);
  std::string lasts;
  if (cause == lsf::BsubCause::kEsub) {
    entry.refusal.until = now + esub_memory_;
    lasts = "for " + std::to_string(esub_memory_.count()) + " s ([submit] esub_refusal_memory_s)";
  } else if (cause == lsf::BsubCause::kLimit) {
    entry.refusal.until_refresh = "load";
    lasts = "until a load refresh shows room in the queue";
  } else {
    entry.refusal.until_refresh = "topology";
    lasts = "until the next topology refresh";
  }
  entry.refusal.reason = "bsub refused it " +
                         (cause == lsf::BsubCause::kHost ? "on host " + *host : "for " + user) +
                         ": " + message + " (remembered " + lasts + ")";
  std::lock_guard lock(mutex_);
  // Drop what is no longer true, so the memory stays as small as that.
  Sweep(snapshot, now);
  if (cause == lsf::BsubCause::kHost) {
    by_host_[*host][queue] = std::move(entry);
  } else {
    by_user_[user][queue] = std::move(entry);
  }
  version_.fetch_add(1, std::memory_order_release);
}

std::unordered_map<std::string, RememberedRefusal> RefusalMemory::Refusals(
    const ClusterSnapshot& snapshot, SystemTime now, const std::string& user,
    const std::optional<std::string>& host, ReadStamp* stamp) const {
  std::unordered_map<std::string, RememberedRefusal> valid;
  std::optional<SystemTime> valid_until;
  std::lock_guard lock(mutex_);
  const auto collect = [&](const std::unordered_map<std::string, ByQueue>& map,
                           const std::string& key) {
    const auto it = map.find(key);
    if (it == map.end()) return;
    for (const auto& [queue, entry] : it->second) {
      if (!Valid(entry, queue, snapshot, now)) continue;
      valid.emplace(queue, entry.refusal);
      // Only esub refusals end by time alone; the others end with a
      // snapshot generation, which the caller's snapshot fixes.
      if (entry.cause == lsf::BsubCause::kEsub) {
        valid_until = std::min(valid_until.value_or(*entry.refusal.until), *entry.refusal.until);
      }
    }
  };
  collect(by_user_, user);
  if (host) collect(by_host_, *host);
  if (stamp != nullptr) {
    stamp->version = version_.load(std::memory_order_relaxed);
    stamp->valid_until = valid_until;
  }
  return valid;
}

void RefusalMemory::RememberRewrite(const ClusterSnapshot& snapshot, const std::string& requested,
                                    const std::string& landed) {
  const std::uint64_t generation = TopologyGeneration(snapshot);
  std::lock_guard lock(mutex_);
  std::erase_if(rewrites_, [generation](const auto& item) {
    return item.second.topology_generation != generation;
  });
  rewrites_[requested] = Rewrite{landed, generation};
  version_.fetch_add(1, std::memory_order_release);
}

std::unordered_map<std::string, std::string> RefusalMemory::Rewrites(
    const ClusterSnapshot& snapshot) const {
  std::unordered_map<std::string, std::string> valid;
  std::lock_guard lock(mutex_);
  for (const auto& [requested, rewrite] : rewrites_) {
    if (rewrite.topology_generation == TopologyGeneration(snapshot)) {
      valid.emplace(requested, rewrite.landed);
    }
  }
  return valid;
}

}  // namespace bplace
