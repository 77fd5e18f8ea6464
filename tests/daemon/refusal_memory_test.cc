#include "daemon/refusal_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

ClusterSnapshot AtTopologyGeneration(std::uint64_t generation) {
  ClusterSnapshot snapshot;
  snapshot.topology_status.successes = generation;
  return snapshot;
}

TEST(RefusalMemoryTest, RefusalsArePerUserAndLastUntilTheTopologyChanges) {
  RefusalMemory memory;
  const ClusterSnapshot first = AtTopologyGeneration(1);
  memory.RememberRefusal(first, "alice", "q1", "User cannot use the queue");
  EXPECT_THAT(memory.Refusals(first, "alice"),
              UnorderedElementsAre(Pair("q1", "User cannot use the queue")));
  EXPECT_THAT(memory.Refusals(first, "bob"), IsEmpty());
  EXPECT_THAT(memory.Refusals(AtTopologyGeneration(2), "alice"), IsEmpty());
}

TEST(RefusalMemoryTest, RewritesLastUntilTheTopologyChanges) {
  RefusalMemory memory;
  memory.RememberRewrite(AtTopologyGeneration(4), "express", "short");
  EXPECT_THAT(memory.Rewrites(AtTopologyGeneration(4)),
              UnorderedElementsAre(Pair("express", "short")));
  EXPECT_THAT(memory.Rewrites(AtTopologyGeneration(5)), IsEmpty());
}

TEST(RefusalMemoryTest, StaleEntriesAreDroppedWhenNewOnesAreLearnt) {
  RefusalMemory memory;
  memory.RememberRefusal(AtTopologyGeneration(1), "alice", "q1", "old");
  memory.RememberRefusal(AtTopologyGeneration(2), "bob", "q2", "new");
  // Even if the generation counter came back (it cannot), the old entry is gone.
  EXPECT_THAT(memory.Refusals(AtTopologyGeneration(1), "alice"), IsEmpty());
}

}  // namespace
}  // namespace bplace
