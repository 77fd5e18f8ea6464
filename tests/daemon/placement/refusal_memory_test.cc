// RefusalMemory (daemon/placement/refusal_memory.h): how long each cause of a bsub
// refusal keeps a queue out, keyed by the tiers' generations and the
// caller's clock (never a sleep).

#include "daemon/placement/refusal_memory.h"

#include <chrono>
#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

using namespace std::chrono_literals;
using lsf::BsubCause;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Key;
using ::testing::UnorderedElementsAre;

const SystemTime kT0 = SystemTime{} + std::chrono::hours(24 * 365 * 56);

// A snapshot at topology generation `topology` and load generation `load`,
// whose queue "q1" has `njobs` jobs (bqueues -w NJOBS).
ClusterSnapshot At(std::uint64_t topology, std::uint64_t load = 1, std::int64_t njobs = 10) {
  ClusterSnapshot snapshot;
  snapshot.topology_status.successes = topology;
  snapshot.load_status.successes = load;
  auto state = std::make_shared<LoadState>();
  lsf::QueueLoad q1;
  q1.name = "q1";
  q1.njobs = njobs;
  state->queues.emplace("q1", q1);
  snapshot.load = state;
  return snapshot;
}

TEST(RefusalMemoryTest, PermissionRefusalsArePerUserAndLastUntilTheTopologyChanges) {
  RefusalMemory memory;
  memory.RememberRefusal(At(1), kT0, "alice", "q1", std::nullopt, BsubCause::kPermission,
                         "User cannot use the queue");
  const auto refusals = memory.Refusals(At(1, 7), kT0 + 24h, "alice", std::nullopt);
  ASSERT_THAT(refusals, ElementsAre(Key("q1")));
  const RememberedRefusal& refusal = refusals.at("q1");
  EXPECT_EQ(refusal.cause, "permission");
  EXPECT_EQ(refusal.until_refresh, "topology");
  EXPECT_FALSE(refusal.until);
  EXPECT_EQ(refusal.reason,
            "bsub refused it for alice: User cannot use the queue (remembered until the next "
            "topology refresh)");
  EXPECT_THAT(memory.Refusals(At(1), kT0, "bob", std::nullopt), IsEmpty());
  EXPECT_THAT(memory.Refusals(At(2), kT0, "alice", std::nullopt), IsEmpty());
}

TEST(RefusalMemoryTest, LimitRefusalsLastUntilALoadRefreshShowsRoom) {
  RefusalMemory memory;
  memory.RememberRefusal(At(1, 1, 10), kT0, "alice", "q1", std::nullopt, BsubCause::kLimit,
                         "The destination queue has reached its job limit");
  EXPECT_THAT(memory.Refusals(At(1, 1, 10), kT0, "alice", std::nullopt), ElementsAre(Key("q1")));
  // A later load refresh with as many jobs (or more): still no room.
  EXPECT_THAT(memory.Refusals(At(1, 2, 10), kT0, "alice", std::nullopt), ElementsAre(Key("q1")));
  EXPECT_THAT(memory.Refusals(At(1, 3, 12), kT0, "alice", std::nullopt), ElementsAre(Key("q1")));
  EXPECT_EQ(memory.Refusals(At(1, 3, 12), kT0, "alice", std::nullopt).at("q1").until_refresh,
            "load");
  // Room: a job left the queue.
  EXPECT_THAT(memory.Refusals(At(1, 4, 9), kT0, "alice", std::nullopt), IsEmpty());
  // The same counters, but the queue definitions were read again.
  EXPECT_THAT(memory.Refusals(At(2, 1, 10), kT0, "alice", std::nullopt), IsEmpty());
}

TEST(RefusalMemoryTest, EsubRefusalsLastTheirConfiguredTimeWhateverTheRefreshes) {
  RefusalMemory memory(300s);
  memory.RememberRefusal(At(1), kT0, "alice", "q1", std::nullopt, BsubCause::kEsub,
                         "Request aborted by esub (no licence)");
  const auto later = memory.Refusals(At(5, 9, 0), kT0 + 299s, "alice", std::nullopt);
  ASSERT_THAT(later, ElementsAre(Key("q1")));
  EXPECT_EQ(later.at("q1").until, kT0 + 300s);
  EXPECT_TRUE(later.at("q1").until_refresh.empty());
  EXPECT_THAT(later.at("q1").reason, HasSubstr("for 300 s ([submit] esub_refusal_memory_s)"));
  EXPECT_THAT(memory.Refusals(At(1), kT0 + 300s, "alice", std::nullopt), IsEmpty());
}

TEST(RefusalMemoryTest, HostRefusalsApplyToEveryUserAskingForThatHost) {
  RefusalMemory memory;
  memory.RememberRefusal(At(1), kT0, "alice", "q1", std::string("node7"), BsubCause::kHost,
                         "Host or host group is not used by the queue");
  EXPECT_THAT(memory.Refusals(At(1), kT0, "bob", std::string("node7")), ElementsAre(Key("q1")));
  EXPECT_THAT(memory.Refusals(At(1), kT0, "bob", std::string("node8")), IsEmpty());
  EXPECT_THAT(memory.Refusals(At(1), kT0, "alice", std::nullopt), IsEmpty());
  EXPECT_THAT(memory.Refusals(At(2), kT0, "bob", std::string("node7")), IsEmpty());
}

TEST(RefusalMemoryTest, RefusalsAboutTheJobOrLsfAreNotRemembered) {
  RefusalMemory memory;
  for (const BsubCause cause :
       {BsubCause::kRequest, BsubCause::kIdentity, BsubCause::kUnavailable, BsubCause::kUnknown}) {
    EXPECT_FALSE(RefusalMemory::Remembers(cause));
    memory.RememberRefusal(At(1), kT0, "alice", "q1", std::nullopt, cause, "whatever");
  }
  EXPECT_THAT(memory.Refusals(At(1), kT0, "alice", std::nullopt), IsEmpty());
}

TEST(RefusalMemoryTest, RewritesLastUntilTheTopologyChanges) {
  RefusalMemory memory;
  memory.RememberRewrite(At(4), "express", "short");
  EXPECT_THAT(memory.Rewrites(At(4)),
              UnorderedElementsAre(std::pair<const std::string, std::string>("express", "short")));
  EXPECT_THAT(memory.Rewrites(At(5)), IsEmpty());
}

TEST(RefusalMemoryTest, StaleEntriesAreDroppedWhenNewOnesAreLearnt) {
  RefusalMemory memory;
  memory.RememberRefusal(At(1), kT0, "alice", "q1", std::nullopt, BsubCause::kPermission, "old");
  memory.RememberRefusal(At(2), kT0, "bob", "q1", std::nullopt, BsubCause::kPermission, "new");
  // Even if the generation counter came back (it cannot), the old entry is gone.
  EXPECT_THAT(memory.Refusals(At(1), kT0, "alice", std::nullopt), IsEmpty());
}

}  // namespace
}  // namespace bplace
