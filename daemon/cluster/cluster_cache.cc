#include "daemon/cluster/cluster_cache.h"

#include <utility>

#include <spdlog/spdlog.h>

#include "daemon/cluster/snapshot_builders.h"

namespace bplace {

ClusterCache::ClusterCache(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                           const lsf::LsfInvoker& lsf, InflightLedger& ledger, Clock& clock,
                           CacheOptions options)
    : lsf_(lsf),
      ledger_(ledger),
      clock_(clock),
      options_(std::move(options)),
      load_interval_(options_.load_interval),
      topology_interval_(options_.topology_interval),
      permissions_(executor, runner, lsf, clock, options_.topology_interval),
      load_(
          executor, runner, clock, store_,
          {"load", options_.load_interval, options_.retry_interval, &ClusterSnapshot::load_status},
          [this] { return LoadCycle(); }),
      topology_(executor, runner, clock, store_,
                {"topology", options_.topology_interval, options_.retry_interval,
                 &ClusterSnapshot::topology_status},
                [this] { return TopologyCycle(); }) {
  if (options_.ib_from_lsload) {
    ib_ = std::make_unique<RefreshTier>(
        executor, runner, clock, store_,
        RefreshTierOptions{"ib", options_.load_interval, options_.retry_interval,
                           &ClusterSnapshot::ib_status},
        [this] { return IbCycle(); });
  }
}

ClusterCache::~ClusterCache() = default;

CacheOptions ClusterCache::options() const {
  CacheOptions options = options_;
  std::lock_guard<std::mutex> lock(intervals_mutex_);
  options.load_interval = load_interval_;
  options.topology_interval = topology_interval_;
  return options;
}

void ClusterCache::SetIntervals(std::chrono::milliseconds load,
                                std::chrono::milliseconds topology) {
  {
    std::lock_guard<std::mutex> lock(intervals_mutex_);
    load_interval_ = load;
    topology_interval_ = topology;
  }
  permissions_.SetTtl(topology);
  load_.SetInterval(load);
  topology_.SetInterval(topology);
  if (ib_) ib_->SetInterval(load);
}

void ClusterCache::Start(std::function<void()> on_first_complete) {
  store_.SetOnFirstComplete(std::move(on_first_complete));
  running_.store(true, std::memory_order_release);
  topology_.Start();
  load_.Start();
  if (ib_) ib_->Start();
}

void ClusterCache::Stop() {
  running_.store(false, std::memory_order_release);
  topology_.Stop();
  load_.Stop();
  if (ib_) ib_->Stop();
}

void ClusterCache::RefreshLoad(Done done) {
  load_.Refresh(std::move(done));
  // The health index is read with every load refresh, as before the tiers
  // were apart: callers that ask for fresh load mean fresh health too.
  if (ib_) ib_->Refresh();
}

void ClusterCache::RefreshTopology(Done done) { topology_.Refresh(std::move(done)); }

void ClusterCache::AfterSubmission() {
  if (options_.load_after_submit.count() <= 0 || !running_.load(std::memory_order_acquire)) return;
  load_.RefreshSoon(options_.load_after_submit);
}

std::optional<std::chrono::seconds> ClusterCache::RequestRefresh() {
  {
    std::lock_guard lock(manual_mutex_);
    const SteadyTime now = clock_.SteadyNow();
    if (last_manual_ && now - *last_manual_ < options_.min_manual_interval) {
      return std::chrono::ceil<std::chrono::seconds>(options_.min_manual_interval -
                                                     (now - *last_manual_));
    }
    last_manual_ = now;
  }
  RefreshTopology();
  RefreshLoad();
  return std::nullopt;
}

std::shared_ptr<const UserPermissions> ClusterCache::Permissions(const std::string& user) const {
  return permissions_.Get(user);
}

void ClusterCache::FetchPermissions(const std::string& user, PermissionsDone done) {
  permissions_.Fetch(user, std::move(done));
}

TierCycle ClusterCache::LoadCycle() {
  TierCycle cycle;
  cycle.queries = {{"bqueues -w", lsf_.Spec("bqueues", {"-w"})},
                   {"bhosts -w", lsf_.Spec("bhosts", {"-w"})}};
  cycle.build = [](auto& results, const CycleTimes& times) -> Result<SnapshotStore::Change> {
    auto load = BuildLoad(results[0], results[1], times.started);
    if (!load) return tl::unexpected(load.error());
    return [load = std::move(*load), as_of = times.started_wall](ClusterSnapshot& snapshot) {
      snapshot.load = load;
      snapshot.load_as_of = as_of;
    };
  };
  cycle.after = [this](const Result<void>& outcome, const CycleTimes& times) {
    // Submissions that finished before this bqueues started are in PEND now.
    if (outcome) ledger_.OnLoadCounted(times.started);
  };
  return cycle;
}

TierCycle ClusterCache::TopologyCycle() {
  TierCycle cycle;
  cycle.queries = {{"bqueues -l", lsf_.Spec("bqueues", {"-l"})},
                   {"bmgroup -w", lsf_.Spec("bmgroup", {"-w"})},
                   {"bugroup -w", lsf_.Spec("bugroup", {"-w"})},
                   {"lsid", lsf_.Spec("lsid", {})},
                   {"lsclusters -l", lsf_.Spec("lsclusters", {"-l"})}};
  const std::string user = options_.prefetch_user;
  if (!user.empty()) {
    permissions_.BeginPrefetch(user);
    cycle.queries.push_back(
        {"bqueues -u " + user + " -w", lsf_.Spec("bqueues", {"-u", user, "-w"})});
  }
  cycle.build = [](auto& results, const CycleTimes& times) -> Result<SnapshotStore::Change> {
    auto parts = BuildTopology(results[0], results[1], results[2], results[3], results[4]);
    if (!parts) return tl::unexpected(parts.error());
    for (const std::string& warning : parts->topology->warnings()) {
      spdlog::warn("topology: {}", warning);
    }
    return [parts = std::move(*parts), as_of = times.started_wall](ClusterSnapshot& snapshot) {
      snapshot.topology = parts.topology;
      snapshot.topology_as_of = as_of;
      if (!parts.identity.cluster_name.empty()) snapshot.identity = parts.identity;
    };
  };
  if (!user.empty()) {
    // The prefetched permissions are stored whatever the tier's outcome.
    auto inner = std::move(cycle.build);
    cycle.build = [this, user, inner = std::move(inner)](
                      auto& results, const CycleTimes& times) -> Result<SnapshotStore::Change> {
      permissions_.Store(user, BuildPermissions(user, results.back(), times.started_wall));
      return inner(results, times);
    };
  }
  return cycle;
}

TierCycle ClusterCache::IbCycle() {
  TierCycle cycle;
  cycle.queries = {{"lsload -w -I " + std::string(kIbOkIndex),
                    lsf_.Spec("lsload", {"-w", "-I", std::string(kIbOkIndex)})}};
  cycle.build = [max_age = 3 * options().load_interval](
                    auto& results, const CycleTimes& times) -> Result<SnapshotStore::Change> {
    return [lsload = std::move(results[0]), started = times.started_wall,
            max_age](ClusterSnapshot& snapshot) {
      // Built inside the change: it needs the health being replaced.
      snapshot.ib = BuildIbFromLsload(lsload, snapshot.ib.get(), started, max_age);
      if (!snapshot.ib->last_error.empty()) {
        spdlog::warn("InfiniBand health: {}", snapshot.ib->last_error);
      }
    };
  };
  return cycle;
}

}  // namespace bplace
