#include "common/bounded_map.h"

#include <string>

#include <gtest/gtest.h>

namespace bplace {
namespace {

TEST(BoundedMapTest, KeepsTheFirstValueOfAKeyAndForgetsTheOldestBeyondItsCapacity) {
  BoundedMap<int, std::string> seen(2);
  EXPECT_TRUE(seen.Insert(1, "one"));
  EXPECT_FALSE(seen.Insert(1, "uno"));
  ASSERT_NE(seen.Find(1), nullptr);
  EXPECT_EQ(*seen.Find(1), "one");
  EXPECT_TRUE(seen.Insert(2, "two"));
  EXPECT_TRUE(seen.Insert(3, "three"));  // 1 is forgotten
  EXPECT_EQ(seen.Find(1), nullptr);
  EXPECT_FALSE(seen.Contains(1));
  ASSERT_NE(seen.Find(3), nullptr);
  EXPECT_EQ(*seen.Find(3), "three");
  EXPECT_EQ(seen.size(), 2u);
}

TEST(BoundedMapTest, AssignReplacesAValueInItsPlaceOrAddsIt) {
  BoundedMap<int, std::string> seen(2);
  seen.Assign(1, "one");
  seen.Assign(2, "two");
  seen.Assign(1, "uno");  // replaced; 1 stays the oldest
  ASSERT_NE(seen.Find(1), nullptr);
  EXPECT_EQ(*seen.Find(1), "uno");
  seen.Assign(3, "three");
  EXPECT_FALSE(seen.Contains(1));
  EXPECT_TRUE(seen.Contains(2));
  EXPECT_EQ(seen.size(), 2u);
}

}  // namespace
}  // namespace bplace
