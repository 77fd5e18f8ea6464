#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

#include "daemon/cluster/snapshot.h"

namespace bplace {

// Holds the current ClusterSnapshot (docs/design.md "The snapshot"): readers
// take a shared_ptr and never lock or see half an update; writers publish a new
// immutable snapshot with a pointer swap. Thread-safe: Current from any
// thread without blocking; Publish calls are serialised by a writers' mutex.
class SnapshotStore {
 public:
  using Change = std::function<void(ClusterSnapshot&)>;

  SnapshotStore();

  // The latest snapshot; never null (empty before the first refresh).
  std::shared_ptr<const ClusterSnapshot> Current() const { return current_.load(); }

  // Applies `change` to a copy of the current snapshot and publishes the
  // copy. Per-queue host counts are recomputed when the topology, the load
  // or the InfiniBand health changed; the slots in use when the jobs did. Returns the published
  // snapshot. `on_first_complete` (SetOnFirstComplete) runs once, after the publish that first
  // makes the snapshot complete, on the publishing thread.
  std::shared_ptr<const ClusterSnapshot> Publish(const Change& change);

  // The callback for the first complete snapshot (READY=1 to systemd).
  void SetOnFirstComplete(std::function<void()> callback);

  // Called with the snapshot before and after every publish, under the
  // writers' mutex (so in publish order), on the publishing thread: for
  // counting refresh runs (daemon/daemon_metrics.h). Must be quick, must not
  // throw and must not publish. Replaces the previous observer.
  using Observer = std::function<void(const ClusterSnapshot& before, const ClusterSnapshot& after)>;
  void SetObserver(Observer observer);

 private:
  std::atomic<std::shared_ptr<const ClusterSnapshot>> current_;
  std::mutex writers_;  // guards on_first_complete_ and orders publishes
  std::function<void()> on_first_complete_;
  Observer observer_;  // guarded by writers_
};

}  // namespace bplace
