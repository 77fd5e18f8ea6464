#include "daemon/cluster/permission_cache.h"

#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

namespace bplace {

PermissionCache::PermissionCache(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                                 const lsf::LsfInvoker& lsf, Clock& clock,
                                 std::chrono::milliseconds ttl)
    : executor_(executor), runner_(runner), lsf_(lsf), clock_(clock), ttl_(ttl) {}

std::shared_ptr<const UserPermissions> PermissionCache::Get(const std::string& user) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(user);
  if (it == entries_.end() || !it->second.value) return nullptr;
  if (clock_.SteadyNow() - it->second.fetched_at > 2 * ttl_.load()) return nullptr;
  return it->second.value;
}

void PermissionCache::Fetch(const std::string& user, Done done) {
  {
    std::lock_guard lock(mutex_);
    Entry& entry = entries_[user];
    if (entry.value && clock_.SteadyNow() - entry.fetched_at <= ttl_.load()) {
      boost::asio::post(executor_, [done = std::move(done), value = entry.value] { done(value); });
      return;
    }
    entry.waiters.push_back(std::move(done));
    if (entry.fetching) return;
    entry.fetching = true;
  }
  const SystemTime started = clock_.SystemNow();
  runner_.Run(lsf_.Spec("bqueues", {"-u", user, "-w"}),
              [this, user, started](Result<lsf::CommandResult> result) {
                Store(user, BuildPermissions(user, result, started));
              });
}

void PermissionCache::BeginPrefetch(const std::string& user) {
  std::lock_guard lock(mutex_);
  entries_[user].fetching = true;
}

void PermissionCache::Store(const std::string& user,
                            Result<std::shared_ptr<const UserPermissions>> result) {
  std::vector<Done> waiters;
  {
    std::lock_guard lock(mutex_);
    Entry& entry = entries_[user];
    entry.fetching = false;
    if (result) {
      entry.value = *result;
      entry.fetched_at = clock_.SteadyNow();
    }
    waiters = std::move(entry.waiters);
    entry.waiters.clear();
  }
  if (!result) spdlog::warn("permissions of {}: {}", user, result.error().message);
  for (auto& waiter : waiters) waiter(result);
}

}  // namespace bplace
