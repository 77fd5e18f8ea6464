#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <utility>

namespace bplace {

// A map that remembers at most `capacity` keys (at least 1), forgetting
// the oldest inserted first: what was seen of each key of a stream that
// never ends, at a bounded cost. Keys need operator<. Not thread-safe: the
// owner locks.
template <typename Key, typename Value>
class BoundedMap {
 public:
  explicit BoundedMap(std::size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  // Whether `key` is held.
  bool Contains(const Key& key) const { return entries_.contains(key); }

  // The value held for `key`; null when it is not held (never inserted, or
  // forgotten). Valid until the next Insert.
  const Value* Find(const Key& key) const {
    const auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }

  // Adds `key` with `value` unless the key is held (its value is kept then,
  // and its place in the order); returns whether it was added. Beyond
  // capacity the oldest key is forgotten.
  bool Insert(const Key& key, Value value) {
    if (!entries_.try_emplace(key, std::move(value)).second) return false;
    order_.push_back(key);
    if (order_.size() > capacity_) {
      entries_.erase(order_.front());
      order_.pop_front();
    }
    return true;
  }

  // Replaces the value held for `key`, keeping its place in the order; adds
  // it as Insert does when it is not held.
  void Assign(const Key& key, Value value) {
    if (const auto it = entries_.find(key); it != entries_.end()) {
      it->second = std::move(value);
      return;
    }
    Insert(key, std::move(value));
  }

  // The keys held, and the most that are.
  std::size_t size() const { return entries_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::map<Key, Value> entries_;
  std::deque<Key> order_;  // oldest first
};

}  // namespace bplace
