#include "daemon/cluster/snapshot.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bplace {
namespace {

struct StatusCase {
  const char* status;
  bool takes_new_work;
};

class HostTakesNewWorkTest : public ::testing::TestWithParam<StatusCase> {};

TEST_P(HostTakesNewWorkTest, FollowsBhostsStatus) {
  EXPECT_EQ(HostTakesNewWork(GetParam().status), GetParam().takes_new_work) << GetParam().status;
}

// Every `bhosts -w` status of docs/lsf-formats.md "bhosts -w".
INSTANTIATE_TEST_SUITE_P(
    EveryBhostsStatus, HostTakesNewWorkTest,
    ::testing::Values(StatusCase{"ok", true}, StatusCase{"closed_Full", true},
                      StatusCase{"closed_Busy", true}, StatusCase{"closed_Excl", true},
                      StatusCase{"closed_Wind", true}, StatusCase{"unavail", false},
                      StatusCase{"unreach", false}, StatusCase{"closed_Adm", false},
                      StatusCase{"closed_Lock", false}, StatusCase{"closed_LIM", false},
                      StatusCase{"closed_EGO", false}, StatusCase{"closed_RC", false}));

lsf::QueueDefinition Queue(std::string name, std::vector<std::string> hosts) {
  lsf::QueueDefinition queue;
  queue.name = std::move(name);
  queue.status = {true, true, "Open:Active"};
  queue.hosts = std::move(hosts);
  queue.users = {"all"};
  return queue;
}

LoadState Load(std::vector<std::pair<std::string, std::string>> hosts) {
  LoadState load;
  for (auto& [name, status] : hosts) {
    lsf::HostStatus host;
    host.name = name;
    host.status = status;
    load.host_index.emplace(name, load.hosts.size());
    load.hosts.push_back(std::move(host));
  }
  return load;
}

TEST(CountQueueHostsTest, CountsAdmittedAndUsableHostsPerQueue) {
  const auto topology =
      Topology::Build({Queue("everything", {"all"}), Queue("small", {"hg_small/"}),
                       Queue("but_one", {"all", "~node002"}), Queue("remote", {"all@c2"}),
                       Queue("nothing", {"none"})},
                      {lsf::Group{"hg_small", false, {"node001", "node002", "node003"}}}, {});
  const LoadState load = Load({{"login01", "closed_Adm"},
                               {"node001", "ok"},
                               {"node002", "closed_Full"},
                               {"node003", "unavail"}});
  const auto counts = CountQueueHosts(*topology, load, nullptr);
  ASSERT_EQ(counts.size(), 5u);
  EXPECT_EQ(counts.at("everything").admitted, 4);
  EXPECT_EQ(counts.at("everything").usable, 2);
  EXPECT_EQ(counts.at("small").admitted, 3);
  EXPECT_EQ(counts.at("small").usable, 2);
  EXPECT_EQ(counts.at("but_one").admitted, 3);
  EXPECT_EQ(counts.at("but_one").usable, 1);
  EXPECT_EQ(counts.at("remote").admitted, 0);
  EXPECT_EQ(counts.at("nothing").admitted, 0);
  EXPECT_EQ(counts.at("nothing").usable, 0);
}

TEST(CountQueueHostsTest, CountsTheQueuesAdmittingEachHostInTheSamePass) {
  const auto topology =
      Topology::Build({Queue("everything", {"all"}), Queue("small", {"hg_small/"}),
                       Queue("but_one", {"all", "~node002"}), Queue("nothing", {"none"})},
                      {lsf::Group{"hg_small", false, {"node001", "node002"}}}, {});
  const LoadState load = Load({{"login01", "closed_Adm"}, {"node001", "ok"}, {"node002", "ok"}});
  std::vector<std::int32_t> admitting{7};  // replaced, not added to
  (void)CountQueueHosts(*topology, load, nullptr, &admitting);
  EXPECT_EQ(admitting, (std::vector<std::int32_t>{2, 3, 2}));
}

// An lsload reading of `hosts` (name, verdict), as IbHealthFromLsload makes it.
IbHealthState Ib(std::vector<std::pair<std::string, IbHealth>> hosts) {
  IbHealthState ib;
  ib.source = "lsload";
  for (auto& [name, health] : hosts) {
    HostIbHealth entry;
    entry.health = health;
    if (health == IbHealth::kUnhealthy) entry.reasons = {"ib_ok is 0 (lsload)"};
    ib.hosts.insert_or_assign(name, std::move(entry));
  }
  return ib;
}

lsf::HostStatus HostStatusNamed(std::string status) {
  lsf::HostStatus host;
  host.name = "node001";
  host.status = std::move(status);
  return host;
}

class HostIbOfTest : public ::testing::TestWithParam<StatusCase> {};

// The complaint: /v1/ib called unreach and closed_Adm hosts healthy.
TEST_P(HostIbOfTest, HealthyReadingCountsOnlyWhereTheHostTakesNewWork) {
  const IbHealthState ib = Ib({{"node001", IbHealth::kHealthy}});
  const lsf::HostStatus status = HostStatusNamed(GetParam().status);
  const HostIbHealth health = HostIbOf(&ib, &status, "node001");
  if (GetParam().takes_new_work) {
    EXPECT_EQ(health.health, IbHealth::kHealthy) << GetParam().status;
    EXPECT_TRUE(health.reasons.empty());
  } else {
    EXPECT_EQ(health.health, IbHealth::kUnknown) << GetParam().status;
    ASSERT_EQ(health.reasons.size(), 1u);
    EXPECT_EQ(health.reasons[0], "bhosts -w says " + std::string(GetParam().status) +
                                     ": the host takes no new work, so its last healthy "
                                     "InfiniBand reading (lsload) is not vouched for");
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryBhostsStatus, HostIbOfTest,
    ::testing::Values(StatusCase{"ok", true}, StatusCase{"closed_Full", true},
                      StatusCase{"closed_Busy", true}, StatusCase{"closed_Excl", true},
                      StatusCase{"closed_Wind", true}, StatusCase{"unavail", false},
                      StatusCase{"unreach", false}, StatusCase{"closed_Adm", false},
                      StatusCase{"closed_Lock", false}, StatusCase{"closed_LIM", false},
                      StatusCase{"closed_EGO", false}, StatusCase{"closed_RC", false}));

TEST(HostIbOfTest, UnhealthyReadingStaysUnhealthyOnAClosedHost) {
  const IbHealthState ib = Ib({{"node001", IbHealth::kUnhealthy}});
  const lsf::HostStatus status = HostStatusNamed("closed_Adm");
  const HostIbHealth health = HostIbOf(&ib, &status, "node001");
  EXPECT_EQ(health.health, IbHealth::kUnhealthy);
  EXPECT_EQ(health.reasons, std::vector<std::string>{"ib_ok is 0 (lsload)"});
}

TEST(HostIbOfTest, NoSourceOrNoEntryIsUnknownWithoutReasons) {
  const lsf::HostStatus status = HostStatusNamed("ok");
  EXPECT_EQ(HostIbOf(nullptr, &status, "node001").health, IbHealth::kUnknown);
  const IbHealthState ib = Ib({{"node002", IbHealth::kHealthy}});
  const HostIbHealth health = HostIbOf(&ib, &status, "node001");
  EXPECT_EQ(health.health, IbHealth::kUnknown);
  EXPECT_TRUE(health.reasons.empty());
}

TEST(HostIbOfTest, HostNotInBhostsKeepsTheSourcesReading) {
  // The login node the local probe runs on may be an LSF client only.
  const IbHealthState ib = Ib({{"login01", IbHealth::kHealthy}});
  EXPECT_EQ(HostIbOf(&ib, nullptr, "login01").health, IbHealth::kHealthy);
}

TEST(LoadStateTest, FindsHostsByExactName) {
  const LoadState load = Load({{"node001", "ok"}, {"node002", "unavail"}});
  ASSERT_NE(load.FindHost("node002"), nullptr);
  EXPECT_EQ(load.FindHost("node002")->status, "unavail");
  EXPECT_EQ(load.FindHost("node00"), nullptr);
  EXPECT_EQ(load.FindHost("Node001"), nullptr);
}

TEST(ClusterSnapshotTest, IsCompleteOnlyWithBothTiers) {
  ClusterSnapshot snapshot;
  EXPECT_FALSE(snapshot.complete());
  snapshot.load = std::make_shared<LoadState>();
  EXPECT_FALSE(snapshot.complete());
  snapshot.topology = Topology::Build({}, {}, {});
  EXPECT_TRUE(snapshot.complete());
}

TEST(ClusterSnapshotTest, AsOfIsWhenTheLoadWasRead) {
  ClusterSnapshot snapshot;
  const SystemTime t0 = std::chrono::system_clock::now();
  snapshot.topology_as_of = t0;
  snapshot.load_as_of = t0 + std::chrono::seconds(15);
  EXPECT_EQ(snapshot.as_of(), t0 + std::chrono::seconds(15));
}

TEST(ClusterSnapshotTest, TopologyOlderThanMaxStalenessIsFreshWithinItsInterval) {
  ClusterSnapshot snapshot;
  const SystemTime now = std::chrono::system_clock::now();
  snapshot.load_as_of = now - std::chrono::seconds(10);
  snapshot.topology_as_of = now - std::chrono::seconds(200);
  // Topology refreshed every 300 s, max staleness 120 s: 200 s is fine.
  EXPECT_EQ(StaleReason(snapshot, std::chrono::seconds(120), std::chrono::seconds(300), now),
            std::nullopt);
  snapshot.topology_as_of = now - std::chrono::seconds(421);
  const auto reason =
      StaleReason(snapshot, std::chrono::seconds(120), std::chrono::seconds(300), now);
  ASSERT_TRUE(reason);
  EXPECT_NE(reason->find("topology is 421 s old"), std::string::npos) << *reason;
}

TEST(ClusterSnapshotTest, LoadOlderThanMaxStalenessIsStaleWithItsLastError) {
  ClusterSnapshot snapshot;
  const SystemTime now = std::chrono::system_clock::now();
  snapshot.topology_as_of = now;
  snapshot.load_as_of = now - std::chrono::seconds(130);
  snapshot.load_status.last_error = "bqueues -w: no answer within 30000 ms (killed)";
  const auto reason =
      StaleReason(snapshot, std::chrono::seconds(120), std::chrono::seconds(300), now);
  ASSERT_TRUE(reason);
  EXPECT_NE(reason->find("load is 130 s old"), std::string::npos) << *reason;
  EXPECT_NE(reason->find("no answer within"), std::string::npos) << *reason;
}

}  // namespace
}  // namespace bplace
