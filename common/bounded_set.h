#pragma once

#include <cstddef>
#include <deque>
#include <set>

namespace bplace {

// A set that remembers at most `capacity` keys (at least 1), forgetting
// the oldest inserted first: "have I seen this already" for a stream that
// never ends, at a bounded cost. Keys need operator<. Not thread-safe: the
// owner locks.
template <typename Key>
class BoundedSet {
 public:
  explicit BoundedSet(std::size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  bool Contains(const Key& key) const { return keys_.contains(key); }

  // Adds `key` unless it is held; returns whether it was added. Beyond
  // capacity the oldest key is forgotten.
  bool Insert(const Key& key) {
    if (!keys_.insert(key).second) return false;
    order_.push_back(key);
    if (order_.size() > capacity_) {
      keys_.erase(order_.front());
      order_.pop_front();
    }
    return true;
  }

  std::size_t size() const { return keys_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::set<Key> keys_;
  std::deque<Key> order_;  // oldest first
};

}  // namespace bplace
