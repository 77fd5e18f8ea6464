#pragma once

#include <cstddef>

#include "common/bounded_map.h"

namespace bplace {

// A set that remembers at most `capacity` keys (at least 1), forgetting
// the oldest inserted first: "have I seen this already" for a stream that
// never ends (BoundedMap without values). Not thread-safe: the owner locks.
template <typename Key>
class BoundedSet {
 public:
  explicit BoundedSet(std::size_t capacity) : keys_(capacity) {}

  // Whether `key` is held.
  bool Contains(const Key& key) const { return keys_.Contains(key); }

  // Adds `key` unless it is held; returns whether it was added. Beyond
  // capacity the oldest key is forgotten.
  bool Insert(const Key& key) { return keys_.Insert(key, Seen{}); }

  // The keys held, and the most that are.
  std::size_t size() const { return keys_.size(); }
  std::size_t capacity() const { return keys_.capacity(); }

 private:
  struct Seen {};
  BoundedMap<Key, Seen> keys_;
};

}  // namespace bplace
