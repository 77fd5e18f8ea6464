#include "daemon/jobs/job_lookups.h"

#include <algorithm>

namespace bplace {

JobLookups::Verdict JobLookups::Begin(const std::string& caller, const JobKey& key,
                                      SystemTime now) {
  std::lock_guard lock(mutex_);
  auto it = callers_.find(caller);
  if (it == callers_.end()) {
    if (!MakeRoomForCaller()) return {Admission::kTooMany};
    it = callers_.emplace(caller, CallerLookups{}).first;
  }
  CallerLookups& lookups = it->second;
  lookups.last_used = now;
  Expire(lookups, now);
  if (const auto known = lookups.not_found.find(key); known != lookups.not_found.end()) {
    return {Admission::kNotFound, known->second};
  }
  if (lookups.in_flight >= options_.max_in_flight_per_caller) return {Admission::kTooMany};
  ++lookups.in_flight;
  return {Admission::kLookUp};
}

void JobLookups::Finish(const std::string& caller, const JobKey& key, bool not_found,
                        SystemTime now) {
  std::lock_guard lock(mutex_);
  const auto it = callers_.find(caller);
  if (it == callers_.end()) return;
  CallerLookups& lookups = it->second;
  if (lookups.in_flight > 0) --lookups.in_flight;
  if (!not_found || options_.max_not_found_per_caller == 0) return;
  if (!lookups.not_found.insert_or_assign(key, now).second) {
    std::erase(lookups.order, key);  // asked again after it expired: it moves to the end
  }
  lookups.order.push_back(key);
  while (lookups.order.size() > options_.max_not_found_per_caller) {
    lookups.not_found.erase(lookups.order.front());
    lookups.order.pop_front();
  }
}

std::size_t JobLookups::Callers() const {
  std::lock_guard lock(mutex_);
  return callers_.size();
}

std::size_t JobLookups::NotFoundEntries() const {
  std::lock_guard lock(mutex_);
  std::size_t entries = 0;
  for (const auto& [caller, lookups] : callers_) entries += lookups.not_found.size();
  return entries;
}

void JobLookups::Expire(CallerLookups& lookups, SystemTime now) const {
  while (!lookups.order.empty()) {
    const auto it = lookups.not_found.find(lookups.order.front());
    if (it != lookups.not_found.end() && now - it->second < options_.not_found_ttl) break;
    if (it != lookups.not_found.end()) lookups.not_found.erase(it);
    lookups.order.pop_front();
  }
}

bool JobLookups::MakeRoomForCaller() {
  if (callers_.size() < options_.max_callers) return true;
  // The caller idle longest goes, with what it remembered; one with
  // lookups in flight stays (its Finish must find it).
  auto oldest = callers_.end();
  for (auto it = callers_.begin(); it != callers_.end(); ++it) {
    if (it->second.in_flight > 0) continue;
    if (oldest == callers_.end() || it->second.last_used < oldest->second.last_used) oldest = it;
  }
  if (oldest == callers_.end()) return false;
  callers_.erase(oldest);
  return true;
}

}  // namespace bplace
