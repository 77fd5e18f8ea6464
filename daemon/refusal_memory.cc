#include "daemon/refusal_memory.h"

#include <iterator>

namespace bplace {
namespace {

std::uint64_t Generation(const ClusterSnapshot& snapshot) {
  return snapshot.topology_status.successes;
}

}  // namespace

void RefusalMemory::RememberRefusal(const ClusterSnapshot& snapshot, const std::string& user,
                                    const std::string& queue, const std::string& message) {
  const std::uint64_t generation = Generation(snapshot);
  std::lock_guard lock(mutex_);
  // Drop what a topology refresh made stale, so the memory stays as small
  // as what is still true.
  for (auto user_it = refusals_.begin(); user_it != refusals_.end();) {
    std::erase_if(user_it->second, [generation](const auto& item) {
      return item.second.topology_generation != generation;
    });
    user_it = user_it->second.empty() ? refusals_.erase(user_it) : std::next(user_it);
  }
  refusals_[user][queue] = Entry{message, generation};
}

std::unordered_map<std::string, std::string> RefusalMemory::Refusals(
    const ClusterSnapshot& snapshot, const std::string& user) const {
  std::unordered_map<std::string, std::string> valid;
  std::lock_guard lock(mutex_);
  const auto it = refusals_.find(user);
  if (it == refusals_.end()) return valid;
  for (const auto& [queue, entry] : it->second) {
    if (entry.topology_generation == Generation(snapshot)) valid.emplace(queue, entry.text);
  }
  return valid;
}

void RefusalMemory::RememberRewrite(const ClusterSnapshot& snapshot, const std::string& requested,
                                    const std::string& landed) {
  const std::uint64_t generation = Generation(snapshot);
  std::lock_guard lock(mutex_);
  std::erase_if(rewrites_, [generation](const auto& item) {
    return item.second.topology_generation != generation;
  });
  rewrites_[requested] = Entry{landed, generation};
}

std::unordered_map<std::string, std::string> RefusalMemory::Rewrites(
    const ClusterSnapshot& snapshot) const {
  std::unordered_map<std::string, std::string> valid;
  std::lock_guard lock(mutex_);
  for (const auto& [requested, entry] : rewrites_) {
    if (entry.topology_generation == Generation(snapshot)) valid.emplace(requested, entry.text);
  }
  return valid;
}

}  // namespace bplace
