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
  EXPECT_FALSE(seen.contains(1));
  EXPECT_TRUE(seen.contains(2));
  EXPECT_TRUE(seen.contains(4));
  // A key seen again keeps its place: 2 is still the oldest.
  EXPECT_FALSE(seen.Insert(2));
  EXPECT_TRUE(seen.Insert(5));
  EXPECT_FALSE(seen.contains(2));
  EXPECT_TRUE(seen.contains(3));
}

TEST(BoundedSetTest, ACapacityOfZeroHoldsNothing) {
  BoundedSet<int> none(0);
  EXPECT_FALSE(none.Insert(7));
  EXPECT_FALSE(none.contains(7));
  EXPECT_EQ(none.size(), 0u);
}

}  // namespace
}  // namespace bplace
