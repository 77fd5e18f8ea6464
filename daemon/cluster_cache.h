#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "common/result.h"
#include "daemon/inflight_ledger.h"
#include "lsf_adapter/lsf_invoker.h"
#include "daemon/snapshot.h"
#include "lsf_adapter/command_runner.h"

namespace bplace {

// The queues one user may submit to, as LSF answered `bqueues -u USER -w`.
struct UserPermissions {
  std::string user;
  std::unordered_set<std::string> queues;
  SystemTime as_of{};
};

// How often the cache asks LSF, and for whom.
struct CacheOptions {
  std::chrono::milliseconds load_interval{15000};
  std::chrono::milliseconds topology_interval{300000};
  // Earliest a manual refresh (POST /v1/cache/refresh) may follow the last one.
  std::chrono::milliseconds min_manual_interval{5000};
  // After a failed refresh, retry after min(interval, this).
  std::chrono::milliseconds retry_interval{5000};
  // The user whose permissions are fetched with every topology refresh (the
  // daemon's own user in service-account mode).
  std::string prefetch_user;
  // Read hosts' InfiniBand health from the `ib_ok` load index with every load
  // refresh (`lsload -w -I ib_ok`; [ib] source = "lsload"), published on its
  // own. Its failure does not fail the load tier: the previous health stays,
  // with the error, and verdicts older than 3 load intervals become unknown.
  bool ib_from_lsload = false;
};

// Caches what LSF knows, in two refresh tiers (DESIGN §3.1):
//  - load: `bqueues -w` and `bhosts -w` (and `lsload -w -I ib_ok` when
//    ib_from_lsload), every load_interval;
//  - topology: `bqueues -l` (all queues in one call), `bmgroup -w`,
//    `bugroup -w`, `lsid` and `bqueues -u <prefetch_user> -w`, at start and
//    every topology_interval.
// Each tier is single-flight: however many callers ask, one run at a time,
// and callers that ask during a run get its result. A run parses into a new
// immutable ClusterSnapshot published atomically; a failed run keeps the last
// good data and records the error in the tier's status. Reads (Current,
// Permissions) never run an LSF command.
// Thread-safe: every method may be called from any thread.
class ClusterCache {
 public:
  using Done = std::function<void(Result<void>)>;
  using PermissionsDone = std::function<void(Result<std::shared_ptr<const UserPermissions>>)>;

  ClusterCache(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
               const lsf::LsfInvoker& lsf, InflightLedger& ledger, CacheOptions options);
  ~ClusterCache();

  ClusterCache(const ClusterCache&) = delete;
  ClusterCache& operator=(const ClusterCache&) = delete;

  // Runs both tiers now and keeps them on their timers until Stop.
  // `on_first_complete` is called once, when both tiers have succeeded.
  void Start(std::function<void()> on_first_complete = {});
  // Cancels the timers; runs in progress finish and publish.
  void Stop();

  // The latest snapshot; never null (empty before the first refresh).
  std::shared_ptr<const ClusterSnapshot> Current() const;

  // Runs one tier now (or joins the run in progress); `done` gets its result.
  void RefreshLoad(Done done = {});
  void RefreshTopology(Done done = {});

  // A manual refresh of both tiers. Returns nullopt when started (or joined),
  // or how long to wait when the last one was less than min_manual_interval ago.
  std::optional<std::chrono::seconds> RequestRefresh();

  // LSF's answer for `user` if fetched within the topology interval, else null.
  std::shared_ptr<const UserPermissions> Permissions(const std::string& user) const;
  // Asks LSF (`bqueues -u USER -w`) unless a fresh answer is cached; one
  // fetch per user at a time. Errors as the refresh tiers'.
  void FetchPermissions(const std::string& user, PermissionsDone done);

  // bsub refused `queue` for `user` with `message`: keep that until the next
  // topology refresh so placement skips the queue for this user.
  void RememberRejection(const std::string& user, const std::string& queue,
                         const std::string& message);
  std::unordered_map<std::string, std::string> Rejections(const std::string& user) const;

  // bsub asked for `requested` put the job in `landed` (a site esub rewrote
  // -q): keep that until the next topology refresh so placement ranks
  // `requested` by the queue its jobs really land in.
  void RememberRewrite(const std::string& requested, const std::string& landed);
  std::unordered_map<std::string, std::string> Rewrites() const;

  // Publishes `host`'s InfiniBand health as found by a local rdma_probe run
  // ([ib] source = "local"); replaces the previous verdict.
  void SetLocalIbHealth(const std::string& host, HostIbHealth health);

 private:
  struct Flight {
    bool running = false;
    std::vector<Done> waiters;
  };
  struct PermissionEntry {
    std::shared_ptr<const UserPermissions> value;
    std::chrono::steady_clock::time_point fetched_at{};
    bool fetching = false;
    std::vector<PermissionsDone> waiters;
  };

  void StartLoad();
  void StartTopology();
  void FinishTier(Flight& flight, Result<void> result);
  void Publish(std::function<void(ClusterSnapshot&)> change);
  std::shared_ptr<const IbHealthState> IbFromLsload(const Result<std::string>& out,
                                                    SystemTime started_wall) const;
  void ScheduleLoad(bool failed);
  void ScheduleTopology(bool failed);
  void FinishPermissions(const std::string& user,
                         Result<std::shared_ptr<const UserPermissions>> result);
  // Runs one LSF command and hands its stdout to `done`, or an error naming
  // the command (timeout, non-zero exit with stderr, failure to start).
  void RunQuery(std::string command, std::vector<std::string> args,
                std::function<void(Result<std::string>)> done);

  boost::asio::any_io_executor executor_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  lsf::CommandRunner& runner_;
  const lsf::LsfInvoker& lsf_;
  InflightLedger& ledger_;
  CacheOptions options_;

  std::atomic<std::shared_ptr<const ClusterSnapshot>> current_;
  // Everything below is touched only on strand_.
  Flight load_flight_;
  Flight topology_flight_;
  boost::asio::steady_timer load_timer_;
  boost::asio::steady_timer topology_timer_;
  bool stopped_ = false;
  std::function<void()> on_first_complete_;

  mutable std::mutex users_mutex_;  // guards the four members below
  std::chrono::steady_clock::time_point last_manual_{};
  std::unordered_map<std::string, PermissionEntry> permissions_;
  std::unordered_map<std::string, std::unordered_map<std::string, std::string>> rejections_;
  std::unordered_map<std::string, std::string> rewrites_;
};

}  // namespace bplace
