#include "daemon/cluster/host_admission_index.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "daemon/cluster/snapshot.h"
#include "daemon/cluster/topology.h"

namespace bplace {
namespace {

lsf::QueueDefinition Queue(std::string name, std::vector<std::string> hosts) {
  lsf::QueueDefinition queue;
  queue.name = std::move(name);
  queue.status = {true, true, "Open:Active"};
  queue.hosts = std::move(hosts);
  queue.users = {"all"};
  return queue;
}

// Every HOSTS token kind over two groups, one of them all hosts but one.
std::shared_ptr<const Topology> MixedTopology() {
  return Topology::Build(
      {Queue("everything", {"all"}), Queue("small", {"hg_small/"}),
       Queue("but_one", {"all", "~node002"}), Queue("named", {"node003", "login01+2"}),
       Queue("rest", {"hg_small/", "others+1"}), Queue("wide", {"hg_wide/"}),
       Queue("remote", {"all@c2"}), Queue("nothing", {"none"}),
       Queue("not_small", {"all", "~hg_small/"})},
      {lsf::Group{"hg_small", false, {"node001", "node002", "~node009"}},
       lsf::Group{"hg_wide", true, {"~login01"}}},
      {});
}

TEST(HostAdmissionIndexTest, GivesEveryMentionedNameAnIdAndEveryOtherHostTheUnlistedOne) {
  const auto topology = MixedTopology();
  const HostAdmissionIndex& index = topology->admission_index();
  for (const char* name : {"node001", "node002", "node003", "node009", "login01"}) {
    const std::int32_t id = index.HostId(name);
    ASSERT_LT(id, index.unlisted_id()) << name;
    EXPECT_EQ(index.names()[static_cast<std::size_t>(id)], name);
  }
  EXPECT_EQ(index.HostId("node004"), index.unlisted_id());
  EXPECT_EQ(index.HostId("node00"), index.unlisted_id());
  EXPECT_EQ(index.HostId(""), index.unlisted_id());
  EXPECT_EQ(index.queues(), topology->queues().size());
}

TEST(HostAdmissionIndexTest, AdmitsExactlyWhatAdmitHostAdmits) {
  const auto topology = MixedTopology();
  const HostAdmissionIndex& index = topology->admission_index();
  // Mentioned names, and names the topology never mentions (a new host).
  for (const char* host :
       {"node001", "node002", "node003", "node009", "login01", "node004", "gpu01", "all"}) {
    for (std::size_t q = 0; q < topology->queues().size(); ++q) {
      const QueueTopology& queue = topology->queues()[q];
      EXPECT_EQ(index.Admits(q, index.HostId(host)), topology->AdmitHost(queue, host).admitted())
          << queue.definition.name << " / " << host;
    }
  }
}

TEST(HostAdmissionIndexTest, CountsTheQueuesAdmittingEachHost) {
  const auto topology = MixedTopology();
  const HostAdmissionIndex& index = topology->admission_index();
  // everything, small, but_one, rest, wide, not_small... as AdmitHost says:
  // node001: everything small but_one rest wide = 5
  EXPECT_EQ(index.QueuesAdmitting(index.HostId("node001")), 5);
  // node002: everything small rest wide = 4 (but_one excludes it)
  EXPECT_EQ(index.QueuesAdmitting(index.HostId("node002")), 4);
  // login01: everything but_one named rest(others) not_small = 5 (hg_wide excludes it)
  EXPECT_EQ(index.QueuesAdmitting(index.HostId("login01")), 5);
  // An unmentioned host: everything but_one rest(others) wide not_small = 5
  EXPECT_EQ(index.QueuesAdmitting(index.unlisted_id()), 5);
}

TEST(HostAdmissionIndexTest, AnswersNoForOutOfRangeQueuesAndIds) {
  const auto topology = MixedTopology();
  const HostAdmissionIndex& index = topology->admission_index();
  EXPECT_FALSE(index.Admits(topology->queues().size(), 0));
  EXPECT_FALSE(index.Admits(0, -1));
  EXPECT_FALSE(index.Admits(0, index.unlisted_id() + 1));
  EXPECT_EQ(index.QueuesAdmitting(-1), 0);
  EXPECT_EQ(index.QueuesAdmitting(index.unlisted_id() + 1), 0);
}

TEST(HostAdmissionIndexTest, AnEmptyTopologyHasOnlyTheUnlistedId) {
  const auto topology = Topology::Build({}, {}, {});
  const HostAdmissionIndex& index = topology->admission_index();
  EXPECT_EQ(index.unlisted_id(), 0);
  EXPECT_EQ(index.HostId("node001"), 0);
  EXPECT_EQ(index.QueuesAdmitting(0), 0);
}

// Ids cross 64-bit word boundaries: 150 hosts named in one group.
TEST(HostAdmissionIndexTest, KeepsBitsApartAcrossWords) {
  std::vector<std::string> members;
  for (int i = 0; i < 150; ++i) members.push_back("cn" + std::to_string(i));
  std::vector<std::string> odd;
  for (int i = 1; i < 150; i += 2) odd.push_back("cn" + std::to_string(i));
  const auto topology =
      Topology::Build({Queue("odd", odd), Queue("even", {"hg/", "~hg_odd/"})},
                      {lsf::Group{"hg", false, members}, lsf::Group{"hg_odd", false, odd}}, {});
  const HostAdmissionIndex& index = topology->admission_index();
  ASSERT_GT(index.words(), 2u);
  for (int i = 0; i < 150; ++i) {
    const std::int32_t id = index.HostId("cn" + std::to_string(i));
    EXPECT_EQ(index.Admits(0, id), i % 2 == 1) << i;
    EXPECT_EQ(index.Admits(1, id), i % 2 == 0) << i;
    EXPECT_EQ(index.QueuesAdmitting(id), 1) << i;
  }
}

LoadState Load(std::vector<std::pair<std::string, std::string>> hosts) {
  LoadState load;
  for (auto& [name, status] : hosts) {
    lsf::HostStatus host;
    host.name = name;
    host.status = status;
    host.max = 4;
    host.njobs = 1;
    load.host_index.emplace(name, load.hosts.size());
    load.hosts.push_back(std::move(host));
  }
  return load;
}

// A host that joined bhosts after the last topology refresh is admitted by
// "all", "others" and all-host groups, and by nothing that names hosts.
TEST(CountQueueHostsTest, CountsAHostTheTopologyNeverMentionsAsAdmitHostDoes) {
  const auto topology = MixedTopology();
  const LoadState load = Load({{"new01", "ok"}, {"new02", "unavail"}});
  std::vector<std::int32_t> admitting;
  const auto counts = CountQueueHosts(*topology, load, nullptr, &admitting);
  for (const char* queue : {"everything", "but_one", "rest", "wide", "not_small"}) {
    EXPECT_EQ(counts.at(queue).admitted, 2) << queue;
    EXPECT_EQ(counts.at(queue).usable, 1) << queue;
    EXPECT_EQ(counts.at(queue).ib_unknown, 1) << queue;
    EXPECT_EQ(counts.at(queue).Slots(true, true).free, 3) << queue;
  }
  for (const char* queue : {"small", "named", "remote", "nothing"}) {
    EXPECT_EQ(counts.at(queue).admitted, 0) << queue;
    EXPECT_EQ(counts.at(queue).usable, 0) << queue;
  }
  EXPECT_EQ(admitting, (std::vector<std::int32_t>{5, 5}));
}

TEST(CountQueueHostsTest, CountsAHostListedTwiceInBhostsTwice) {
  const auto topology = MixedTopology();
  const LoadState load = Load({{"node001", "ok"}, {"node001", "closed_Adm"}, {"node001", "ok"}});
  const auto counts = CountQueueHosts(*topology, load, nullptr);
  EXPECT_EQ(counts.at("small").admitted, 3);
  EXPECT_EQ(counts.at("small").usable, 2);
  EXPECT_EQ(counts.at("small").ib_unknown, 2);
  EXPECT_EQ(counts.at("small").Slots(true, true).max, 8);
  EXPECT_EQ(counts.at("named").admitted, 0);
}

TEST(CountQueueHostsTest, SplitsUsableHostsByTheirInfinibandVerdict) {
  const auto topology = MixedTopology();
  const LoadState load =
      Load({{"node001", "ok"}, {"node002", "ok"}, {"node003", "closed_Lock"}, {"new01", "ok"}});
  IbHealthState ib;
  ib.source = "lsload";
  ib.hosts["node001"].health = IbHealth::kHealthy;
  ib.hosts["node002"].health = IbHealth::kUnhealthy;
  ib.hosts["node003"].health = IbHealth::kHealthy;  // takes no work: not counted
  ib.hosts["new01"].health = IbHealth::kUnhealthy;
  const auto counts = CountQueueHosts(*topology, load, &ib);
  const QueueHostCounts& everything = counts.at("everything");
  EXPECT_EQ(everything.admitted, 4);
  EXPECT_EQ(everything.usable, 3);
  EXPECT_EQ(everything.ib_healthy, 1);
  EXPECT_EQ(everything.ib_unhealthy, 2);
  EXPECT_EQ(everything.ib_unknown, 0);
  EXPECT_EQ(everything.Slots(false, false).free, 3);
  EXPECT_EQ(everything.Slots(true, false).free, 9);
  const QueueHostCounts& small = counts.at("small");
  EXPECT_EQ(small.ib_healthy, 1);
  EXPECT_EQ(small.ib_unhealthy, 1);
}

}  // namespace
}  // namespace bplace
