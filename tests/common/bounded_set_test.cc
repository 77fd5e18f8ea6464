#include "common/bounded_set.h"

#include <gtest/gtest.h>

namespace bplace {
namespace {

TEST(BoundedSetTest, HoldsEachKeyOnceAndForgetsTheOldestBeyondItsCapacity) {
  BoundedSet<int> seen(3);
  EXPECT_TRUE(seen.Insert(1));
  EXPECT_FALSE(seen.Insert(1));
  EXPECT_TRUE(seen.Insert(2));
  EXPECT_TRUE(seen.Insert(3));
  EXPECT_TRUE(seen.Insert(4));  // 1 is forgotten
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_FALSE(seen.Contains(1));
  EXPECT_TRUE(seen.Contains(2));
  EXPECT_TRUE(seen.Contains(4));
  // A key seen again keeps its place: 2 is still the oldest.
  EXPECT_FALSE(seen.Insert(2));
  EXPECT_TRUE(seen.Insert(5));
  EXPECT_FALSE(seen.Contains(2));
  EXPECT_TRUE(seen.Contains(3));
}

TEST(BoundedSetTest, ACapacityOfZeroHoldsOne) {
  // Insert must still say whether a key is new: nothing held would answer
  // "seen before" for every key.
  BoundedSet<int> one(0);
  EXPECT_EQ(one.capacity(), 1u);
  EXPECT_TRUE(one.Insert(7));
  EXPECT_FALSE(one.Insert(7));
  EXPECT_TRUE(one.Insert(8));
  EXPECT_FALSE(one.Contains(7));
}

}  // namespace
}  // namespace bplace
