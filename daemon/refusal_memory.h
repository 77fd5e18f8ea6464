#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "daemon/snapshot.h"

namespace bplace {

// What the submission side has learnt from bsub's replies, so that later
// placements do not spend a bsub on a queue LSF already refused (DESIGN
// §3.4), and rank a queue an esub rewrites by where its jobs land:
//  - refusals of a queue for a user (scope "this user x this queue" with a
//    lasting cause: permission, queue closed), kept until the next
//    successful topology refresh, since a queue's USERS may have changed;
//  - esub rewrites of -q (requested -> landed), kept as long.
// Entries are stamped with the topology generation (TierStatus::successes)
// of the snapshot they were learnt under and are ignored once it has moved
// on: nothing needs to be told that a refresh happened.
// Thread-safe: every method may be called from any thread.
class RefusalMemory {
 public:
  // bsub refused `queue` for `user` with `message` while `snapshot` was
  // current.
  void RememberRefusal(const ClusterSnapshot& snapshot, const std::string& user,
                       const std::string& queue, const std::string& message);
  // The queues refused for `user` (queue -> sentence) still valid in `snapshot`.
  std::unordered_map<std::string, std::string> Refusals(const ClusterSnapshot& snapshot,
                                                        const std::string& user) const;

  // bsub asked for `requested` put the job in `landed` (a site esub rewrote -q).
  void RememberRewrite(const ClusterSnapshot& snapshot, const std::string& requested,
                       const std::string& landed);
  // The rewrites (requested -> landed) still valid in `snapshot`.
  std::unordered_map<std::string, std::string> Rewrites(const ClusterSnapshot& snapshot) const;

 private:
  struct Entry {
    std::string text;
    std::uint64_t topology_generation = 0;
  };

  mutable std::mutex mutex_;  // guards both maps
  std::unordered_map<std::string, std::unordered_map<std::string, Entry>> refusals_;  // user, queue
  std::unordered_map<std::string, Entry> rewrites_;  // requested queue -> landed queue
};

}  // namespace bplace
