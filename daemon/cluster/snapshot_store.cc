#include "daemon/cluster/snapshot_store.h"

#include <utility>

namespace bplace {

SnapshotStore::SnapshotStore() : current_(std::make_shared<const ClusterSnapshot>()) {}

std::shared_ptr<const ClusterSnapshot> SnapshotStore::Publish(const Change& change) {
  std::function<void()> first_complete;
  std::shared_ptr<const ClusterSnapshot> published;
  {
    std::lock_guard lock(writers_);
    const std::shared_ptr<const ClusterSnapshot> old = current_.load();
    auto next = std::make_shared<ClusterSnapshot>(*old);
    change(*next);
    next->generation = old->generation + 1;
    const bool counts_stale =
        next->topology != old->topology || next->load != old->load || next->ib != old->ib;
    if (next->complete() && counts_stale) {
      next->host_counts =
          CountQueueHosts(*next->topology, *next->load, next->ib.get(), &next->queues_admitting);
    }
    if (next->jobs != old->jobs) {
      next->slot_usage =
          next->jobs ? std::make_shared<const SlotUsage>(CountSlotsInUse(*next->jobs)) : nullptr;
    }
    if (next->complete() && !old->complete()) first_complete = std::move(on_first_complete_);
    published = next;
    current_.store(std::move(next));
    if (observer_) observer_(*old, *published);
  }
  // Outside the lock: the callback may read the store.
  if (first_complete) first_complete();
  return published;
}

void SnapshotStore::SetObserver(Observer observer) {
  std::lock_guard lock(writers_);
  observer_ = std::move(observer);
}

void SnapshotStore::SetOnFirstComplete(std::function<void()> callback) {
  std::lock_guard lock(writers_);
  on_first_complete_ = std::move(callback);
}

}  // namespace bplace
