#include "daemon/placement/backlog_history.h"

#include <algorithm>

namespace bplace {

BacklogHistory::BacklogHistory(std::size_t max_records_per_queue)
    : max_records_(std::max<std::size_t>(1, max_records_per_queue)) {}

void BacklogHistory::Record(std::string_view queue, SystemTime at, double share) {
  auto it = queues_.find(std::string(queue));
  if (it == queues_.end()) it = queues_.emplace(std::string(queue), std::deque<Entry>{}).first;
  std::deque<Entry>& entries = it->second;
  if (!entries.empty()) {
    // Times only grow, which keeps the records sorted for ShareAt.
    if (at < entries.back().at) return;
    // The newest record already says this share from its time on.
    if (entries.back().share == share) return;
  }
  entries.push_back({at, share});
  if (entries.size() > max_records_) entries.pop_front();
}

std::optional<double> BacklogHistory::ShareAt(std::string_view queue, SystemTime at) const {
  const auto it = queues_.find(std::string(queue));
  if (it == queues_.end()) return std::nullopt;
  const std::deque<Entry>& entries = it->second;
  // The first record after `at`; the one before it is the newest at or before.
  const auto after = std::upper_bound(entries.begin(), entries.end(), at,
                                      [](SystemTime t, const Entry& e) { return t < e.at; });
  if (after == entries.begin()) return std::nullopt;
  return std::prev(after)->share;
}

std::size_t BacklogHistory::records(std::string_view queue) const {
  const auto it = queues_.find(std::string(queue));
  return it == queues_.end() ? 0 : it->second.size();
}

}  // namespace bplace
