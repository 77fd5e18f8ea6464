#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/cluster/snapshot_builders.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

// LSF's own answer to "which queues may USER submit to" (`bqueues -u USER
// -w`), fetched lazily per user and kept for the topology interval
// (docs/design.md "Refresh"). One fetch per user at a time: callers that ask
// while it runs get its answer. Reads never run an LSF command. Thread-safe:
// every method may be called from any thread.
class PermissionCache {
 public:
  using Done = std::function<void(Result<std::shared_ptr<const UserPermissions>>)>;

  // `ttl`: how long an answer is fresh (the topology interval).
  PermissionCache(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                  const lsf::LsfInvoker& lsf, Clock& clock, std::chrono::milliseconds ttl);

  // LSF's answer for `user` if fetched within twice the TTL (one interval
  // of slack, so the user prefetched with every topology refresh never
  // expires just before it), else null. Never blocks on LSF.
  std::shared_ptr<const UserPermissions> Get(const std::string& user) const;

  // Sets the TTL (the topology interval, which SIGHUP may change); answers
  // already cached are judged by it from now on.
  void SetTtl(std::chrono::milliseconds ttl) { ttl_.store(ttl); }

  // Gives `done` the answer for `user`: the cached one when fetched within
  // the TTL (posted, never called inline), else from a new `bqueues -u
  // USER -w`, or the run in progress. Errors as BuildPermissions; every
  // waiter gets the same result. `done` runs on a runner or executor thread.
  void Fetch(const std::string& user, Done done);

  // Marks a fetch for `user` as running (the topology tier runs it with its
  // own queries); Store ends it.
  void BeginPrefetch(const std::string& user);
  // Records the answer of a fetch (a prefetch, or Fetch's own) and hands it
  // to every waiter; a failure keeps the previous answer.
  void Store(const std::string& user, Result<std::shared_ptr<const UserPermissions>> result);

 private:
  struct Entry {
    std::shared_ptr<const UserPermissions> value;
    SteadyTime fetched_at{};
    bool fetching = false;
    std::vector<Done> waiters;
  };

  boost::asio::any_io_executor executor_;
  lsf::CommandRunner& runner_;
  const lsf::LsfInvoker& lsf_;
  Clock& clock_;
  std::atomic<std::chrono::milliseconds> ttl_;
  mutable std::mutex mutex_;  // guards entries_
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace bplace
