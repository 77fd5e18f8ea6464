#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/clock.h"
#include "daemon/cluster/snapshot.h"
#include "daemon/options.h"
#include "daemon/placement/placement.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace {

// What the submission side has learnt from bsub's replies, so that later
// placements do not spend a bsub on a queue LSF already refused (docs/design.md
// "Placement"), and rank a queue an esub rewrites by where its jobs land. Each
// refusal is kept for a time that fits its cause (lsf::BsubCause):
//  - permission and closed queue (this user x this queue): until the next
//    topology refresh, since the queue's USERS or status may have changed;
//  - host (this host x this queue, any user): until the next topology refresh;
//  - limit (this user x this queue: job limit reached, not enough job
//    slots): until a load refresh shows room, i.e. the queue's NJOBS below
//    what it was when bsub refused; and at most until the topology changes;
//  - esub (this user x this queue): for `esub_memory` ([submit]
//    esub_refusal_memory_s), whatever the refreshes say, since an esub's
//    rules are not visible to bplace.
// Other causes are not remembered (they are about the job, or LSF is down).
// Rewrites of -q (requested -> landed) are kept until the next topology
// refresh. Generations are the tiers' TierStatus::successes; nothing needs
// to be told that a refresh happened.
// Thread-safe: every method may be called from any thread.
class RefusalMemory {
 public:
  explicit RefusalMemory(std::chrono::seconds esub_memory = SubmitterOptions{}.esub_refusal_memory);

  // Whether refusals of `cause` are remembered at all.
  static bool Remembers(lsf::BsubCause cause);

  // bsub refused `queue` for `user` (with cause kHost: for `host`) with
  // LSF's words `message`, while `snapshot` was current, at `now`. Causes
  // Remembers() refuses are ignored.
  void RememberRefusal(const ClusterSnapshot& snapshot, SystemTime now, const std::string& user,
                       const std::string& queue, const std::optional<std::string>& host,
                       lsf::BsubCause cause, const std::string& message);
  // What a Refusals answer depends on besides its arguments: version() when
  // it was read, and the earliest time after `now` at which one of the
  // refusals it returned ends by time alone (an esub refusal's `until`);
  // nullopt when none does. A refusal not returned because it had ended
  // stays ended while time moves forward.
  struct ReadStamp {
    std::uint64_t version = 0;
    std::optional<SystemTime> valid_until;
  };

  // The queues refused for `user` (and for `host`, when the request names
  // one) still valid in `snapshot` at `now`, by queue. When `stamp` is
  // given it receives what the answer depends on (read under the same lock).
  std::unordered_map<std::string, RememberedRefusal> Refusals(
      const ClusterSnapshot& snapshot, SystemTime now, const std::string& user,
      const std::optional<std::string>& host, ReadStamp* stamp = nullptr) const;

  // bsub asked for `requested` put the job in `landed` (a site esub rewrote -q).
  void RememberRewrite(const ClusterSnapshot& snapshot, const std::string& requested,
                       const std::string& landed);
  // The rewrites (requested -> landed) still valid in `snapshot`.
  std::unordered_map<std::string, std::string> Rewrites(const ClusterSnapshot& snapshot) const;

  // A number that grows with every refusal or rewrite remembered: with the
  // same snapshot (whose generations decide the other expiries) and before
  // ReadStamp::valid_until, equal versions mean equal Refusals and Rewrites
  // answers. Never blocks.
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }

 private:
  struct Entry {
    RememberedRefusal refusal;
    lsf::BsubCause cause = lsf::BsubCause::kUnknown;
    std::uint64_t topology_generation = 0;
    std::uint64_t load_generation = 0;
    std::int64_t queue_njobs = 0;  // kLimit: the queue's NJOBS when bsub refused
  };
  using ByQueue = std::unordered_map<std::string, Entry>;

  bool Valid(const Entry& entry, const std::string& queue, const ClusterSnapshot& snapshot,
             SystemTime now) const;
  // Drops every entry no longer valid (called on each insert).
  void Sweep(const ClusterSnapshot& snapshot, SystemTime now);

  const std::chrono::seconds esub_memory_;
  mutable std::mutex mutex_;                          // guards the maps
  std::unordered_map<std::string, ByQueue> by_user_;  // user -> queue -> refusal
  std::unordered_map<std::string, ByQueue> by_host_;  // host -> queue -> refusal (kHost)
  struct Rewrite {
    std::string landed;
    std::uint64_t topology_generation = 0;
  };
  std::unordered_map<std::string, Rewrite> rewrites_;  // requested queue -> landed queue
  // Bumped under mutex_ after each change of the maps; read without it.
  std::atomic<std::uint64_t> version_{0};
};

}  // namespace bplace
