#include "daemon/jobs/long_forms.h"

#include <algorithm>
#include <utility>

namespace bplace {

bool LongForms::Current(const Entry& entry, const std::string& status, SystemTime now) const {
  if (!entry.text || entry.status != status) return false;
  return entry.terminal || now - entry.fetched_at <= limits_.max_age_unfinished;
}

std::optional<std::string> LongForms::Find(const JobKey& key, const std::string& status,
                                           SystemTime now) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  it->second.asked_at = now;
  if (!Current(it->second, status, now)) return std::nullopt;
  return it->second.text;
}

void LongForms::Ask(const std::vector<JobKey>& keys, SystemTime now) {
  std::lock_guard lock(mutex_);
  for (const JobKey& key : keys) entries_[key].asked_at = now;
  Trim();
}

std::vector<std::string> LongForms::ToFetch(const JobTable& table, SystemTime now) {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<SystemTime, const JobKey*>> due;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const JobView* job = table.Find(it->first);
    if (job == nullptr) {
      it = entries_.erase(it);
      continue;
    }
    const Entry& entry = it->second;
    // A job the tier has not seen in LSF yet has no block to fetch.
    const bool known = !job->lsf.status.empty() && !job->not_found;
    if (known && now - entry.asked_at <= limits_.interest &&
        !Current(entry, PrintedStatus(*job), now)) {
      due.emplace_back(entry.asked_at, &it->first);
    }
    ++it;
  }
  std::sort(due.begin(), due.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (due.size() > limits_.max_ids_per_fetch) due.resize(limits_.max_ids_per_fetch);
  std::vector<std::string> ids;
  ids.reserve(due.size());
  for (const auto& [asked_at, key] : due) {
    std::string id = std::to_string(key->job_id);
    if (key->array_index != 0) id += "[" + std::to_string(key->array_index) + "]";
    ids.push_back(std::move(id));
  }
  return ids;
}

void LongForms::Store(std::vector<lsf::BjobsLongBlock> blocks, SystemTime fetched_at) {
  std::lock_guard lock(mutex_);
  for (lsf::BjobsLongBlock& block : blocks) {
    const JobKey key{std::stoll(block.job.job_id), block.job.array_index};
    const auto it = entries_.find(key);
    if (it == entries_.end()) continue;  // nobody asked (another job of the same call)
    Entry& entry = it->second;
    entry.text = std::move(block.text);
    entry.status = block.job.status;
    entry.terminal = lsf::IsTerminalJobStatus(block.job.status);
    entry.fetched_at = fetched_at;
  }
}

std::size_t LongForms::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void LongForms::Trim() {
  if (entries_.size() <= limits_.max_copies) return;
  std::vector<std::pair<SystemTime, JobKey>> by_age;
  by_age.reserve(entries_.size());
  for (const auto& [key, entry] : entries_) by_age.emplace_back(entry.asked_at, key);
  const std::size_t excess = entries_.size() - limits_.max_copies;
  std::nth_element(by_age.begin(), by_age.begin() + static_cast<std::ptrdiff_t>(excess - 1),
                   by_age.end());
  for (std::size_t i = 0; i < excess; ++i) entries_.erase(by_age[i].second);
}

}  // namespace bplace
