#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/cluster/inflight_ledger.h"
#include "daemon/cluster/permission_cache.h"
#include "daemon/cluster/refresh_tier.h"
#include "daemon/cluster/snapshot.h"
#include "daemon/cluster/snapshot_store.h"
#include "daemon/options.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

// What LSF knows, cached (docs/design.md "Refresh"): the snapshot store and the
// refresh tiers that fill it, all on one RefreshTier engine:
//  - load: `bqueues -w` and `bhosts -w`, every load_interval;
//  - topology: `bqueues -l` (all queues in one call), `bmgroup -w`,
//    `bugroup -w`, `lsid` and `bqueues -u <prefetch_user> -w`, at start and
//    every topology_interval;
//  - ib (with ib_from_lsload): `lsload -w -I ib_ok`, every load_interval;
// and LSF's per-user permission answers (PermissionCache). Reads (Current,
// Permissions) never run an LSF command.
// Thread-safe: every method may be called from any thread.
class ClusterCache {
 public:
  using Done = RefreshTier::Done;
  using PermissionsDone = PermissionCache::Done;

  // All references must outlive the cache.
  ClusterCache(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
               const lsf::LsfInvoker& lsf, InflightLedger& ledger, Clock& clock,
               CacheOptions options);
  ~ClusterCache();

  ClusterCache(const ClusterCache&) = delete;
  ClusterCache& operator=(const ClusterCache&) = delete;

  // Runs every tier now and keeps them on their timers until Stop.
  // `on_first_complete` is called once, when load and topology have both
  // succeeded.
  void Start(std::function<void()> on_first_complete = {});
  // Cancels the timers; runs in progress finish and publish.
  void Stop();

  // The latest snapshot; never null (empty before the first refresh).
  std::shared_ptr<const ClusterSnapshot> Current() const { return store_.Current(); }

  // Runs one tier now (or joins the run in progress); `done` gets its result.
  void RefreshLoad(Done done = {});
  void RefreshTopology(Done done = {});

  // A job was just submitted (or may have been): while the cache runs, asks
  // for a load refresh no sooner than options().load_after_submit after the
  // last one began (RefreshTier::RefreshSoon), so that a burst of
  // submissions costs at most one `bqueues -w` and `bhosts -w` per that
  // gap, and PEND counts (this node's and every other login node's new
  // jobs) are at most that old while submissions arrive. Does nothing when
  // the gap is zero or the cache is stopped. Never blocks.
  void AfterSubmission();

  // A manual refresh of every tier. Returns nullopt when started (or
  // joined), or how long to wait when the last one was less than
  // min_manual_interval ago.
  std::optional<std::chrono::seconds> RequestRefresh();

  // LSF's answer for `user` (PermissionCache::Get).
  std::shared_ptr<const UserPermissions> Permissions(const std::string& user) const;
  // Asks LSF unless a fresh answer is cached (PermissionCache::Fetch).
  void FetchPermissions(const std::string& user, PermissionsDone done);

  // The options in force (a copy: SetIntervals may change the intervals).
  CacheOptions options() const;

  // Sets the load and topology intervals (SIGHUP reloads lsf.load_refresh_s
  // and topology_refresh_s): the tiers' timers (RefreshTier::SetInterval),
  // the permission answers' TTL and the age at which lsload IB verdicts turn
  // unknown all follow. Thread-safe; the caller keeps topology >= load, as
  // the config loader checks.
  void SetIntervals(std::chrono::milliseconds load, std::chrono::milliseconds topology);

  // The store the tiers publish to (other publishers: LocalIbProbe).
  SnapshotStore& store() { return store_; }

 private:
  TierCycle LoadCycle();
  TierCycle TopologyCycle();
  TierCycle IbCycle();

  const lsf::LsfInvoker& lsf_;
  InflightLedger& ledger_;
  Clock& clock_;
  const CacheOptions options_;  // its intervals as at start-up; the current ones below
  // The current intervals, set together by SetIntervals (a reader never
  // sees a new load interval with the old topology one).
  mutable std::mutex intervals_mutex_;
  std::chrono::milliseconds load_interval_;      // guarded by intervals_mutex_
  std::chrono::milliseconds topology_interval_;  // guarded by intervals_mutex_
  SnapshotStore store_;
  PermissionCache permissions_;
  RefreshTier load_;
  RefreshTier topology_;
  std::unique_ptr<RefreshTier> ib_;  // only with ib_from_lsload

  std::atomic<bool> running_{false};  // between Start and Stop

  std::mutex manual_mutex_;  // guards last_manual_
  std::optional<SteadyTime> last_manual_;
};

}  // namespace bplace
