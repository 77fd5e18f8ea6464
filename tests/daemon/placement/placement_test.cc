#include "daemon/placement/placement.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

lsf::QueueStatus Status(const std::string& text) {
  lsf::QueueStatus status;
  status.text = text;
  status.open = text.rfind("Open", 0) == 0;
  status.active = text.find(":Active") != std::string::npos;
  return status;
}

// Builds a ClusterSnapshot by hand as the cache would: Topology::Build, a
// LoadState, then CountQueueHosts.
class SnapshotBuilder {
 public:
  SnapshotBuilder& Queue(std::string name, std::vector<std::string> hosts,
                         std::vector<std::string> users = {"all"},
                         std::string status = "Open:Active", std::int64_t pend = 0,
                         std::int64_t run = 0, int prio = 30) {
    lsf::QueueDefinition definition;
    definition.name = name;
    definition.prio = prio;
    definition.status = Status(status);
    definition.hosts = std::move(hosts);
    definition.users = std::move(users);
    definitions_.push_back(definition);
    lsf::QueueLoad load;
    load.name = std::move(name);
    load.prio = prio;
    load.status = Status(status);
    load.pend = pend;
    load.run = run;
    load.njobs = pend + run;
    loads_.push_back(std::move(load));
    return *this;
  }
  // A queue known to bqueues -l but absent from bqueues -w.
  SnapshotBuilder& DefinitionOnly(std::string name, std::vector<std::string> hosts,
                                  std::int64_t pend, int prio) {
    lsf::QueueDefinition definition;
    definition.name = std::move(name);
    definition.prio = prio;
    definition.pend = pend;
    definition.status = Status("Open:Active");
    definition.hosts = std::move(hosts);
    definition.users = {"all"};
    definitions_.push_back(std::move(definition));
    return *this;
  }
  SnapshotBuilder& LoadStatus(const std::string& queue, const std::string& status) {
    for (auto& load : loads_) {
      if (load.name == queue) load.status = Status(status);
    }
    return *this;
  }
  SnapshotBuilder& Host(std::string name, std::string status = "ok") {
    lsf::HostStatus host;
    host.name = std::move(name);
    host.status = std::move(status);
    hosts_.push_back(std::move(host));
    return *this;
  }
  // The last host's MAX, NJOBS (= RUN) and JL/U, as bhosts -w shows them.
  SnapshotBuilder& Slots(std::int64_t max, std::int64_t njobs,
                         std::optional<std::int64_t> jl_u = std::nullopt) {
    hosts_.back().max = max;
    hosts_.back().njobs = njobs;
    hosts_.back().run = njobs;
    hosts_.back().jl_u = jl_u;
    return *this;
  }
  // The last queue's MAX and JL/U (bqueues -w and -l).
  SnapshotBuilder& Limits(std::optional<std::int64_t> max, std::optional<std::int64_t> jl_u = {}) {
    definitions_.back().max = max;
    definitions_.back().jl_u = jl_u;
    loads_.back().max = max;
    loads_.back().jl_u = jl_u;
    return *this;
  }
  // Slots `user`'s followed jobs hold in `queue`, on `host`.
  SnapshotBuilder& Holds(const std::string& user, const std::string& queue, const std::string& host,
                         std::int64_t slots) {
    usage_[user].by_queue[queue] += slots;
    usage_[user].by_host[host] += slots;
    return *this;
  }
  SnapshotBuilder& HostGroup(std::string name, std::vector<std::string> members) {
    host_groups_.push_back(lsf::Group{std::move(name), false, std::move(members)});
    return *this;
  }
  SnapshotBuilder& UserGroup(std::string name, std::vector<std::string> members) {
    user_groups_.push_back(lsf::Group{std::move(name), false, std::move(members)});
    return *this;
  }

  // The host's InfiniBand verdict, as an lsload source would give it.
  SnapshotBuilder& Ib(std::string host, IbHealth health, std::string reason = {}) {
    if (!ib_) {
      ib_ = std::make_shared<IbHealthState>();
      ib_->source = "lsload";
    }
    HostIbHealth entry;
    entry.health = health;
    if (!reason.empty()) entry.reasons.push_back(std::move(reason));
    ib_->hosts.insert_or_assign(std::move(host), std::move(entry));
    return *this;
  }

  ClusterSnapshot Build() const {
    ClusterSnapshot snapshot;
    snapshot.topology = Topology::Build(definitions_, host_groups_, user_groups_);
    auto load = std::make_shared<LoadState>();
    for (const auto& queue : loads_) load->queues.emplace(queue.name, queue);
    load->hosts = hosts_;
    for (std::size_t i = 0; i < hosts_.size(); ++i) load->host_index.emplace(hosts_[i].name, i);
    snapshot.load = load;
    snapshot.ib = ib_;
    snapshot.host_counts = CountQueueHosts(*snapshot.topology, *snapshot.load, snapshot.ib.get());
    snapshot.slot_usage = std::make_shared<const SlotUsage>(usage_);
    return snapshot;
  }

 private:
  std::vector<lsf::QueueDefinition> definitions_;
  std::vector<lsf::QueueLoad> loads_;
  std::vector<lsf::HostStatus> hosts_;
  std::vector<lsf::Group> host_groups_;
  std::vector<lsf::Group> user_groups_;
  std::shared_ptr<IbHealthState> ib_;
  SlotUsage usage_;
};

PlacementRequest Request(std::optional<std::string> host = std::nullopt,
                         std::vector<std::string> queues = {}, std::string user = "alice") {
  return PlacementRequest{std::move(user), std::move(host), std::move(queues)};
}

std::vector<std::string> CandidateNames(const Placement& placement) {
  std::vector<std::string> names;
  for (const Candidate& c : placement.candidates) names.push_back(c.queue);
  return names;
}

const Exclusion* FindExclusion(const Placement& placement, const std::string& queue) {
  for (const Exclusion& e : placement.excluded) {
    if (e.queue == queue) return &e;
  }
  return nullptr;
}

// ---------------------------------------------------------------- ranking

struct QueueSpec {
  std::string status;
  std::int64_t pend;
  std::int64_t inflight;
  std::int64_t run;
  int prio;
};

struct RankCase {
  std::string label;
  QueueSpec a;  // queue "qa"
  QueueSpec b;  // queue "qb"
  std::string first;
};
std::ostream& operator<<(std::ostream& os, const RankCase& c) { return os << c.label; }

class PlaceRankingTest : public ::testing::TestWithParam<RankCase> {};

TEST_P(PlaceRankingTest, PutsBetterQueueFirst) {
  const RankCase& c = GetParam();
  const ClusterSnapshot snapshot =
      SnapshotBuilder()
          .Queue("qa", {"all"}, {"all"}, c.a.status, c.a.pend, c.a.run, c.a.prio)
          .Queue("qb", {"all"}, {"all"}, c.b.status, c.b.pend, c.b.run, c.b.prio)
          .Host("node001")
          .Build();
  const std::unordered_map<std::string, std::int64_t> inflight{{"qa", c.a.inflight},
                                                               {"qb", c.b.inflight}};
  PlacementContext context;
  context.inflight_slots = &inflight;
  const auto placement = Place(snapshot, context, Request());
  ASSERT_TRUE(placement) << placement.error().message;
  ASSERT_EQ(placement->candidates.size(), 2u);
  EXPECT_EQ(placement->candidates.front().queue, c.first);
}

// Without known slot limits (hosts with MAX "-"): Active before Inact, then
// a queue with nothing waiting (the job starts now), then PEND + in-flight,
// then RUN, then higher PRIO, then name (docs/api.md "How bplace ranks
// queues").
INSTANTIATE_TEST_SUITE_P(
    DesignOrder, PlaceRankingTest,
    ::testing::Values(
        RankCase{"active_before_idle_inactive",
                 {"Open:Inact_Win", 0, 0, 0, 90},
                 {"Open:Active", 500, 0, 900, 10},
                 "qb"},
        RankCase{"active_before_inactive_adm",
                 {"Open:Active", 9, 0, 0, 30},
                 {"Open:Inact_Adm", 0, 0, 0, 30},
                 "qa"},
        RankCase{"fewer_pending", {"Open:Active", 5, 0, 0, 30}, {"Open:Active", 4, 0, 0, 30}, "qb"},
        RankCase{"inflight_counts_as_pending",
                 {"Open:Active", 1, 4, 0, 30},
                 {"Open:Active", 4, 0, 0, 30},
                 "qb"},
        RankCase{"pending_plus_inflight_tie_then_fewer_running",
                 {"Open:Active", 2, 2, 1, 30},
                 {"Open:Active", 4, 0, 7, 30},
                 "qa"},
        RankCase{"fewer_running", {"Open:Active", 3, 0, 9, 30}, {"Open:Active", 3, 0, 8, 30}, "qb"},
        RankCase{"higher_prio", {"Open:Active", 3, 0, 8, 10}, {"Open:Active", 3, 0, 8, 40}, "qb"},
        RankCase{"name_breaks_full_tie",
                 {"Open:Active", 3, 0, 8, 30},
                 {"Open:Active", 3, 0, 8, 30},
                 "qa"},
        RankCase{"pending_beats_running",
                 {"Open:Active", 0, 0, 1000, 1},
                 {"Open:Active", 1, 0, 0, 99},
                 "qa"}));

TEST(PlaceTest, RanksManyQueuesInFullOrder) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("night", {"all"}, {"all"}, "Open:Inact_Win", 0)
                                       .Queue("short", {"all"}, {"all"}, "Open:Active", 10, 5)
                                       .Queue("normal", {"all"}, {"all"}, "Open:Active", 10, 5, 40)
                                       .Queue("long", {"all"}, {"all"}, "Open:Active", 3, 100)
                                       .Queue("gpu", {"all"}, {"all"}, "Open:Active", 10, 2)
                                       .Queue("batch", {"all"}, {"all"}, "Open:Active", 10, 5)
                                       .Host("node001")
                                       .Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement);
  EXPECT_THAT(CandidateNames(*placement),
              ElementsAre("long", "gpu", "normal", "batch", "short", "night"));
  EXPECT_THAT(placement->excluded, IsEmpty());
}

TEST(PlaceTest, FillsCandidateFields) {
  const ClusterSnapshot snapshot =
      SnapshotBuilder()
          .HostGroup("hg_small", {"node001"})
          .Queue("small", {"hg_small/+2"}, {"all"}, "Open:Active", 7, 3, 57)
          .Host("node001")
          .Build();
  const std::unordered_map<std::string, std::int64_t> inflight{{"small", 4}};
  PlacementContext context;
  context.inflight_slots = &inflight;
  const auto placement = Place(snapshot, context, Request("node001"));
  ASSERT_TRUE(placement);
  ASSERT_EQ(placement->candidates.size(), 1u);
  const Candidate& c = placement->candidates[0];
  EXPECT_EQ(c.queue, "small");
  EXPECT_EQ(c.status, "Open:Active");
  EXPECT_TRUE(c.active);
  EXPECT_EQ(c.pend, 7);
  EXPECT_EQ(c.inflight, 4);
  EXPECT_EQ(c.run, 3);
  EXPECT_EQ(c.prio, 57);
  ASSERT_TRUE(c.admission);
  EXPECT_EQ(c.admission->via, HostAdmission::Via::kGroup);
  EXPECT_EQ(c.admission->token, "hg_small/+2");
  EXPECT_EQ(c.admission->preference, 2);
}

TEST(PlaceTest, LeavesAdmissionEmptyWithoutHost) {
  const ClusterSnapshot snapshot =
      SnapshotBuilder().Queue("normal", {"all"}).Host("node001").Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement);
  ASSERT_EQ(placement->candidates.size(), 1u);
  EXPECT_FALSE(placement->candidates[0].admission);
}

TEST(PlaceTest, UsesDefinitionCountersForQueueMissingFromBqueues) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("normal", {"all"}, {"all"}, "Open:Active", 5)
                                       .DefinitionOnly("fresh", {"all"}, 2, 44)
                                       .Host("node001")
                                       .Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement);
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("fresh", "normal"));
  EXPECT_EQ(placement->candidates[0].pend, 2);
  EXPECT_EQ(placement->candidates[0].prio, 44);
}

// ---------------------------------------------------------- exclusions

struct ExclusionCase {
  std::string label;
  std::function<ClusterSnapshot()> snapshot;  // queue "q" is the one to judge
  std::optional<std::string> host;
  std::vector<std::string> queues;
  std::unordered_set<std::string> excluded_by_config;
  std::optional<std::unordered_set<std::string>> permitted;
  std::unordered_map<std::string, RememberedRefusal> rejections;
  ExclusionCode code;
  std::vector<std::string> reason_parts;
};
std::ostream& operator<<(std::ostream& os, const ExclusionCase& c) { return os << c.label; }

class PlaceExclusionTest : public ::testing::TestWithParam<ExclusionCase> {};

TEST_P(PlaceExclusionTest, ExcludesQueueWithReasonNamingCause) {
  const ExclusionCase& c = GetParam();
  const ClusterSnapshot snapshot = c.snapshot();
  PlacementContext context;
  context.excluded_queues = &c.excluded_by_config;
  context.rejections = &c.rejections;
  if (c.permitted) context.permitted_queues = &*c.permitted;
  const auto placement = Place(snapshot, context, Request(c.host, c.queues));
  ASSERT_TRUE(placement) << placement.error().message;
  const Exclusion* exclusion = FindExclusion(*placement, "q");
  ASSERT_NE(exclusion, nullptr) << "q was not excluded";
  EXPECT_EQ(ExclusionCodeName(exclusion->code), std::string(ExclusionCodeName(c.code)));
  for (const std::string& part : c.reason_parts) {
    EXPECT_THAT(exclusion->reason, HasSubstr(part));
  }
  EXPECT_THAT(CandidateNames(*placement), ::testing::Not(::testing::Contains("q")));
}

ClusterSnapshot TwoQueues() {
  return SnapshotBuilder()
      .Queue("q", {"node001", "node002"}, {"bob"})
      .Queue("other", {"all"})
      .Host("node001")
      .Host("node002")
      .Host("node003")
      .Build();
}

INSTANTIATE_TEST_SUITE_P(
    EveryCode, PlaceExclusionTest,
    ::testing::Values(
        ExclusionCase{"not_requested",
                      TwoQueues,
                      std::nullopt,
                      {"other"},
                      {},
                      {},
                      {},
                      ExclusionCode::kNotRequested,
                      {"requested"}},
        ExclusionCase{"excluded_by_config",
                      TwoQueues,
                      std::nullopt,
                      {},
                      {"q"},
                      {},
                      {},
                      ExclusionCode::kExcludedByConfig,
                      {"exclude_queues"}},
        ExclusionCase{"queue_closed",
                      [] {
                        return SnapshotBuilder()
                            .Queue("q", {"all"}, {"all"}, "Closed:Inact_Adm")
                            .Host("node001")
                            .Build();
                      },
                      std::nullopt,
                      {},
                      {},
                      {},
                      {},
                      ExclusionCode::kQueueClosed,
                      {"Closed:Inact_Adm"}},
        ExclusionCase{"host_not_in_queue",
                      TwoQueues,
                      "node003",
                      {},
                      {},
                      {},
                      {},
                      ExclusionCode::kHostNotInQueue,
                      {"node003", "node001 node002"}},
        ExclusionCase{
            "host_excluded",
            [] {
              return SnapshotBuilder().Queue("q", {"all", "~node003"}).Host("node003").Build();
            },
            "node003",
            {},
            {},
            {},
            {},
            ExclusionCode::kHostExcluded,
            {"node003", "~node003"}},
        ExclusionCase{"remote_only",
                      [] {
                        return SnapshotBuilder()
                            .Queue("q", {"all@cluster2"})
                            .Queue("other", {"all"})
                            .Host("node001")
                            .Build();
                      },
                      std::nullopt,
                      {},
                      {},
                      {},
                      {},
                      ExclusionCode::kRemoteOnly,
                      {"remote"}},
        ExclusionCase{"user_not_in_users_line",
                      TwoQueues,
                      std::nullopt,
                      {},
                      {},
                      {},
                      {},
                      ExclusionCode::kUserNotPermitted,
                      {"alice", "not in USERS: bob"}},
        ExclusionCase{"user_refused_by_lsf",
                      TwoQueues,
                      std::nullopt,
                      {},
                      {},
                      std::unordered_set<std::string>{"other"},
                      {},
                      ExclusionCode::kUserNotPermitted,
                      {"bqueues -u", "alice"}},
        ExclusionCase{"rejected_by_lsf",
                      TwoQueues,
                      std::nullopt,
                      {},
                      {},
                      std::unordered_set<std::string>{"q", "other"},
                      {{"q", RememberedRefusal{"User cannot use the queue", "permission",
                                               std::nullopt, "topology"}}},
                      ExclusionCode::kRejectedByLsf,
                      {"User cannot use the queue"}},
        ExclusionCase{
            "host_unavail",
            [] { return SnapshotBuilder().Queue("q", {"all"}).Host("node001", "unavail").Build(); },
            "node001",
            {},
            {},
            {},
            {},
            ExclusionCode::kHostUnavailable,
            {"node001", "unavail"}},
        ExclusionCase{
            "host_closed_by_admin",
            [] {
              return SnapshotBuilder().Queue("q", {"all"}).Host("node001", "closed_Adm").Build();
            },
            "node001",
            {},
            {},
            {},
            {},
            ExclusionCode::kHostUnavailable,
            {"closed_Adm"}},
        ExclusionCase{"host_in_group_but_not_in_bhosts",
                      [] {
                        return SnapshotBuilder()
                            .HostGroup("hg", {"node009"})
                            .Queue("q", {"hg/"})
                            .Host("node001")
                            .Build();
                      },
                      "node009",
                      {},
                      {},
                      {},
                      {},
                      ExclusionCode::kHostUnavailable,
                      {"node009", "bhosts"}},
        ExclusionCase{"no_usable_host",
                      [] {
                        return SnapshotBuilder()
                            .Queue("q", {"node001", "node002"})
                            .Queue("other", {"all"})
                            .Host("node001", "unavail")
                            .Host("node002", "closed_Lock")
                            .Host("node003")
                            .Build();
                      },
                      std::nullopt,
                      {},
                      {},
                      {},
                      {},
                      ExclusionCode::kNoUsableHost,
                      {"2 hosts"}}));

TEST(PlaceTest, ExclusionCodesHaveStableNames) {
  const std::vector<std::pair<ExclusionCode, std::string>> names = {
      {ExclusionCode::kNotRequested, "not_requested"},
      {ExclusionCode::kExcludedByConfig, "excluded_by_config"},
      {ExclusionCode::kQueueClosed, "queue_closed"},
      {ExclusionCode::kHostNotInQueue, "host_not_in_queue"},
      {ExclusionCode::kHostExcluded, "host_excluded"},
      {ExclusionCode::kRemoteOnly, "remote_hosts_only"},
      {ExclusionCode::kUserNotPermitted, "user_not_permitted"},
      {ExclusionCode::kRejectedByLsf, "rejected_by_lsf"},
      {ExclusionCode::kHostUnavailable, "host_unavailable"},
      {ExclusionCode::kNoUsableHost, "no_usable_host"},
      {ExclusionCode::kNoHealthyIbHost, "no_healthy_ib_host"},
      {ExclusionCode::kHostIbUnhealthy, "host_ib_unhealthy"},
      {ExclusionCode::kHostIbUnknown, "host_ib_unknown"},
      {ExclusionCode::kExceedsLimit, "exceeds_limit"},
  };
  for (const auto& [code, name] : names) EXPECT_EQ(ExclusionCodeName(code), name);
}

TEST(PlaceTest, AccountsForEveryQueueExactlyOnce) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("a", {"all"})
                                       .Queue("b", {"node002"})
                                       .Queue("c", {"all"}, {"bob"})
                                       .Queue("d", {"all"}, {"all"}, "Closed:Active")
                                       .Queue("e", {"all", "~node001"})
                                       .Host("node001")
                                       .Host("node002")
                                       .Build();
  const auto placement = Place(snapshot, {}, Request("node001"));
  ASSERT_TRUE(placement);
  std::vector<std::string> seen = CandidateNames(*placement);
  for (const Exclusion& e : placement->excluded) seen.push_back(e.queue);
  std::sort(seen.begin(), seen.end());
  EXPECT_THAT(seen, ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("a"));
}

TEST(PlaceTest, LoadStatusOverridesDefinitionStatus) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("q", {"all"})
                                       .LoadStatus("q", "Closed:Active")
                                       .Host("node001")
                                       .Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement);
  EXPECT_THAT(placement->candidates, IsEmpty());
  ASSERT_EQ(placement->excluded.size(), 1u);
  EXPECT_EQ(placement->excluded[0].code, ExclusionCode::kQueueClosed);
}

TEST(PlaceTest, InactiveQueueRemainsCandidate) {
  const ClusterSnapshot snapshot =
      SnapshotBuilder().Queue("q", {"all"}, {"all"}, "Open:Inact_Adm").Host("node001").Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement);
  ASSERT_EQ(placement->candidates.size(), 1u);
  EXPECT_FALSE(placement->candidates[0].active);
}

TEST(PlaceTest, ClosedFullHostIsUsable) {
  const ClusterSnapshot snapshot =
      SnapshotBuilder().Queue("q", {"node001"}).Host("node001", "closed_Full").Build();
  const auto with_host = Place(snapshot, {}, Request("node001"));
  ASSERT_TRUE(with_host);
  EXPECT_THAT(CandidateNames(*with_host), ElementsAre("q"));
  const auto without_host = Place(snapshot, {}, Request());
  ASSERT_TRUE(without_host);
  EXPECT_THAT(CandidateNames(*without_host), ElementsAre("q"));
}

TEST(PlaceTest, RequestWithoutHostSkipsOnlyQueuesWithoutUsableHost) {
  const ClusterSnapshot snapshot =
      SnapshotBuilder()
          .Queue("dead", {"node001"})
          .Queue("alive", {"node001", "node002"}, {"all"}, "Open:Active", 100)
          .Host("node001", "unreach")
          .Host("node002", "ok")
          .Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement);
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("alive"));
  const Exclusion* dead = FindExclusion(*placement, "dead");
  ASSERT_NE(dead, nullptr);
  EXPECT_EQ(dead->code, ExclusionCode::kNoUsableHost);
}

TEST(PlaceTest, QueuesFilterKeepsOnlyRequestedQueues) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("a", {"all"}, {"all"}, "Open:Active", 9)
                                       .Queue("b", {"all"}, {"all"}, "Open:Active", 1)
                                       .Queue("c", {"all"}, {"all"}, "Open:Active", 5)
                                       .Host("node001")
                                       .Build();
  const auto placement = Place(snapshot, {}, Request(std::nullopt, {"c", "a"}));
  ASSERT_TRUE(placement);
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("c", "a"));
  ASSERT_EQ(placement->excluded.size(), 1u);
  EXPECT_EQ(placement->excluded[0].queue, "b");
  EXPECT_EQ(placement->excluded[0].code, ExclusionCode::kNotRequested);
}

// ---------------------------------------------------------- errors

TEST(PlaceTest, UnknownHostIsNotFound) {
  const ClusterSnapshot snapshot = TwoQueues();
  const auto placement = Place(snapshot, {}, Request("node999"));
  ASSERT_FALSE(placement);
  EXPECT_EQ(placement.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(placement.error().message, HasSubstr("node999"));
}

TEST(PlaceTest, HostMatchedOnlyBySimilarNameIsNotFound) {
  const ClusterSnapshot snapshot = TwoQueues();
  for (const char* host : {"node00", "Node001", "node001.ib.example.org", "node0011"}) {
    const auto placement = Place(snapshot, {}, Request(host));
    ASSERT_FALSE(placement) << host;
    EXPECT_EQ(placement.error().code, ErrorCode::kNotFound) << host;
  }
}

TEST(PlaceTest, UnknownRequestedQueueIsNotFound) {
  const ClusterSnapshot snapshot = TwoQueues();
  const auto placement = Place(snapshot, {}, Request(std::nullopt, {"other", "nosuchq"}));
  ASSERT_FALSE(placement);
  EXPECT_EQ(placement.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(placement.error().message, HasSubstr("nosuchq"));
}

TEST(PlaceTest, IncompleteSnapshotIsUnavailable) {
  const ClusterSnapshot full = TwoQueues();
  ClusterSnapshot no_load = full;
  no_load.load = nullptr;
  ClusterSnapshot no_topology = full;
  no_topology.topology = nullptr;
  for (const ClusterSnapshot* snapshot : {&no_load, &no_topology}) {
    const auto placement = Place(*snapshot, {}, Request("node001"));
    ASSERT_FALSE(placement);
    EXPECT_EQ(placement.error().code, ErrorCode::kUnavailable);
  }
  const auto empty = Place(ClusterSnapshot{}, {}, Request());
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, ErrorCode::kUnavailable);
}

// ---------------------------------------------------------- permissions

TEST(PlaceTest, ReadsUsersLinesWhenLsfNotAsked) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .UserGroup("grp_chem", {"alice", "bob"})
                                       .Queue("chem", {"all"}, {"grp_chem/"})
                                       .Queue("phys", {"all"}, {"erin"})
                                       .Queue("open", {"all"}, {"all", "~alice"})
                                       .Host("node001")
                                       .Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement);
  EXPECT_EQ(placement->permission_source, "users_line");
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("chem"));
  const Exclusion* open = FindExclusion(*placement, "open");
  ASSERT_NE(open, nullptr);
  EXPECT_THAT(open->reason, HasSubstr("~alice"));
}

TEST(PlaceTest, LsfPermissionWinsOverUsersLine) {
  // USERS says alice may not use "phys" and may use "chem"; LSF says the
  // opposite (e.g. a group LSF resolves differently): LSF decides.
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("chem", {"all"}, {"alice"})
                                       .Queue("phys", {"all"}, {"erin"})
                                       .Host("node001")
                                       .Build();
  const std::unordered_set<std::string> permitted{"phys"};
  PlacementContext context;
  context.permitted_queues = &permitted;
  const auto placement = Place(snapshot, context, Request());
  ASSERT_TRUE(placement);
  EXPECT_EQ(placement->permission_source, "lsf");
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("phys"));
  const Exclusion* chem = FindExclusion(*placement, "chem");
  ASSERT_NE(chem, nullptr);
  EXPECT_EQ(chem->code, ExclusionCode::kUserNotPermitted);
  EXPECT_THAT(chem->reason, HasSubstr("USERS would admit"));
}

TEST(PlaceTest, EmptyLsfPermissionSetRefusesEveryQueue) {
  const ClusterSnapshot snapshot =
      SnapshotBuilder().Queue("a", {"all"}).Queue("b", {"all"}).Host("node001").Build();
  const std::unordered_set<std::string> permitted;
  PlacementContext context;
  context.permitted_queues = &permitted;
  const auto placement = Place(snapshot, context, Request());
  ASSERT_TRUE(placement);
  EXPECT_THAT(placement->candidates, IsEmpty());
  EXPECT_EQ(placement->excluded.size(), 2u);
  EXPECT_EQ(placement->permission_source, "lsf");
}

TEST(PlaceTest, RejectionAppliesOnlyToItsQueue) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("a", {"all"})
                                       .Queue("b", {"all"}, {"all"}, "Open:Active", 50)
                                       .Host("node001")
                                       .Build();
  const std::unordered_map<std::string, RememberedRefusal> rejections{
      {"a", RememberedRefusal{"bsub refused it for alice: Queue has been closed", "queue_closed",
                              std::nullopt, "topology"}}};
  PlacementContext context;
  context.rejections = &rejections;
  const auto placement = Place(snapshot, context, Request());
  ASSERT_TRUE(placement);
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("b"));
  const Exclusion* a = FindExclusion(*placement, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->code, ExclusionCode::kRejectedByLsf);
  ASSERT_TRUE(a->refusal);
  EXPECT_EQ(a->refusal->cause, "queue_closed");
  EXPECT_EQ(a->refusal->until_refresh, "topology");
}

}  // namespace
}  // namespace bplace

namespace bplace {
namespace {

TEST(PlaceRewriteTest, RanksARewrittenQueueByTheQueueItsJobsLandIn) {
  // An esub moves "express" jobs to "short": express's own PEND never grows,
  // so once the rewrite is known it must be ranked by short's counters.
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("express", {"all"}, {"all"}, "Open:Active", 0)
                                       .Queue("short", {"all"}, {"all"}, "Open:Active", 8)
                                       .Queue("medium", {"all"}, {"all"}, "Open:Active", 5)
                                       .Host("node001")
                                       .Build();
  const std::unordered_map<std::string, std::int64_t> inflight{{"short", 4}};
  PlacementContext context;
  context.inflight_slots = &inflight;
  const auto unknown = Place(snapshot, context, PlacementRequest{"alice", std::nullopt, {}});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->candidates.front().queue, "express");

  const std::unordered_map<std::string, std::string> rewrites{{"express", "short"}};
  context.rewrites = &rewrites;
  const auto known = Place(snapshot, context, PlacementRequest{"alice", std::nullopt, {}});
  ASSERT_TRUE(known);
  EXPECT_EQ(known->candidates.front().queue, "medium");
  const auto express = std::find_if(known->candidates.begin(), known->candidates.end(),
                                    [](const Candidate& c) { return c.queue == "express"; });
  ASSERT_NE(express, known->candidates.end());
  EXPECT_EQ(express->lands_in, "short");
  EXPECT_EQ(express->pend, 8);
  EXPECT_EQ(express->inflight, 4);
}

// --- InfiniBand health ------------------------------------------------------------

// Two queues: `fabric` on node01 and node02, `edge` on node03.
SnapshotBuilder IbCluster() {
  SnapshotBuilder builder;
  builder.Queue("fabric", {"node01", "node02"}, {"all"}, "Open:Active", 0)
      .Queue("edge", {"node03"}, {"all"}, "Open:Active", 50)
      .Host("node01")
      .Host("node02")
      .Host("node03");
  return builder;
}

PlacementRequest RequireIb(std::optional<std::string> host = std::nullopt) {
  PlacementRequest request = Request(std::move(host));
  request.require_ib = true;
  return request;
}

// A dry run for a host with sick InfiniBand answers like one for
// an unavailable host: no candidate, every queue with its reason.
TEST(PlaceIbTest, UnhealthyHostExcludesEveryQueueWithTheProbesReason) {
  const ClusterSnapshot snapshot =
      IbCluster().Ib("node01", IbHealth::kUnhealthy, "ib_ok is 0 (lsload)").Build();
  auto placement = Place(snapshot, {}, RequireIb("node01"));
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(placement->candidates, IsEmpty());
  const Exclusion* fabric = FindExclusion(*placement, "fabric");
  ASSERT_NE(fabric, nullptr);
  EXPECT_EQ(fabric->code, ExclusionCode::kHostIbUnhealthy);
  EXPECT_THAT(fabric->reason, HasSubstr("host node01 has unhealthy InfiniBand"));
  EXPECT_THAT(fabric->reason, HasSubstr("ib_ok is 0 (lsload)"));
  const Exclusion* edge = FindExclusion(*placement, "edge");
  ASSERT_NE(edge, nullptr);
  EXPECT_EQ(edge->code, ExclusionCode::kHostNotInQueue) << "its own reason comes first";
  ASSERT_TRUE(placement->host_ib);
  EXPECT_EQ(placement->host_ib->health, IbHealth::kUnhealthy);
}

TEST(PlaceIbTest, PlacesOnUnhealthyHostWhenRequestDoesNotRequireIb) {
  const ClusterSnapshot snapshot = IbCluster().Ib("node01", IbHealth::kUnhealthy, "down").Build();
  auto placement = Place(snapshot, {}, Request("node01"));
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("fabric"));
  ASSERT_TRUE(placement->host_ib);
  EXPECT_EQ(placement->host_ib->health, IbHealth::kUnhealthy);
}

TEST(PlaceIbTest, ExcludesQueueWhoseOnlyHostIsUnhealthy) {
  const ClusterSnapshot snapshot = IbCluster()
                                       .Ib("node01", IbHealth::kHealthy)
                                       .Ib("node02", IbHealth::kHealthy)
                                       .Ib("node03", IbHealth::kUnhealthy, "down")
                                       .Build();
  auto placement = Place(snapshot, {}, RequireIb());
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("fabric"));
  const Exclusion* edge = FindExclusion(*placement, "edge");
  ASSERT_NE(edge, nullptr);
  EXPECT_EQ(edge->code, ExclusionCode::kNoHealthyIbHost);
  EXPECT_EQ(edge->reason,
            "none of the queue's 1 usable hosts has healthy InfiniBand (1 unhealthy, 0 unknown)");
  EXPECT_EQ(placement->candidates[0].ib_healthy_hosts, 2);
}

TEST(PlaceIbTest, KeepsQueueWithOneHealthyHostLeft) {
  const ClusterSnapshot snapshot = IbCluster()
                                       .Ib("node01", IbHealth::kUnhealthy, "down")
                                       .Ib("node02", IbHealth::kHealthy)
                                       .Ib("node03", IbHealth::kHealthy)
                                       .Build();
  auto placement = Place(snapshot, {}, RequireIb());
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("fabric", "edge"));
  EXPECT_EQ(placement->candidates[0].ib_healthy_hosts, 1);
}

TEST(PlaceIbTest, UnknownHealthIsAllowedAndCountedByDefault) {
  const ClusterSnapshot snapshot = IbCluster().Build();  // no source at all
  auto placement = Place(snapshot, {}, RequireIb());
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("fabric", "edge"));
  EXPECT_EQ(placement->candidates[0].ib_unknown_hosts, 2);
  auto on_host = Place(snapshot, {}, RequireIb("node03"));
  ASSERT_TRUE(on_host) << on_host.error().message;
  ASSERT_TRUE(on_host->host_ib);
  EXPECT_EQ(on_host->host_ib->health, IbHealth::kUnknown);
  EXPECT_THAT(on_host->host_ib->reasons, ElementsAre(HasSubstr("no InfiniBand health source")));
}

TEST(PlaceIbTest, UnknownHealthIsRefusedWhenNotAllowed) {
  const ClusterSnapshot snapshot = IbCluster().Ib("node01", IbHealth::kHealthy).Build();
  PlacementContext context;
  context.allow_unknown_ib = false;
  auto placement = Place(snapshot, context, RequireIb());
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("fabric"));
  const Exclusion* edge = FindExclusion(*placement, "edge");
  ASSERT_NE(edge, nullptr);
  EXPECT_THAT(edge->reason, HasSubstr("allow_unknown is false"));
  auto on_host = Place(snapshot, context, RequireIb("node03"));
  ASSERT_TRUE(on_host) << on_host.error().message;
  EXPECT_THAT(on_host->candidates, IsEmpty());
  const Exclusion* on_edge = FindExclusion(*on_host, "edge");
  ASSERT_NE(on_edge, nullptr);
  EXPECT_EQ(on_edge->code, ExclusionCode::kHostIbUnknown);
  EXPECT_THAT(on_edge->reason, HasSubstr("unknown InfiniBand health"));
}

// A closed host's healthy reading is unknown (HostIbOf; docs/design.md
// "Decisions"); the placement still says why the host is out: it takes no new
// work.
TEST(PlaceIbTest, ClosedHostWithHealthyReadingIsUnavailableNotIbUnknown) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("q", {"all"})
                                       .Host("node01", "closed_Adm")
                                       .Ib("node01", IbHealth::kHealthy)
                                       .Build();
  PlacementContext context;
  context.allow_unknown_ib = false;
  auto placement = Place(snapshot, context, RequireIb("node01"));
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(placement->candidates, IsEmpty());
  const Exclusion* q = FindExclusion(*placement, "q");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->code, ExclusionCode::kHostUnavailable);
  ASSERT_TRUE(placement->host_ib);
  EXPECT_EQ(placement->host_ib->health, IbHealth::kUnknown);
  EXPECT_THAT(placement->host_ib->reasons, ElementsAre(HasSubstr("bhosts -w says closed_Adm")));
}

// --- Ranking by expected start (docs/api.md "How bplace ranks queues") -------

// A bug once: a queue at its slot limit (MAX 100, NJOBS 100, PEND 0)
// was chosen over an unlimited queue with PEND 0 and free hosts.
TEST(PlaceStartTest, AFullQueueWaitsBehindOneWhereTheJobStartsNow) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("full", {"all"}, {"all"}, "Open:Active", 0, 100, 90)
                                       .Limits(100)
                                       .Queue("open", {"all"}, {"all"}, "Open:Active", 0, 0, 10)
                                       .Host("node01")
                                       .Slots(128, 100)
                                       .Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement) << placement.error().message;
  ASSERT_THAT(CandidateNames(*placement), ElementsAre("open", "full"));
  const Candidate& open = placement->candidates[0];
  EXPECT_TRUE(open.starts_now);
  EXPECT_EQ(open.free_slots, 28);
  EXPECT_EQ(open.limited_by, "host_slots");
  EXPECT_EQ(open.capacity, 128);
  const Candidate& full = placement->candidates[1];
  EXPECT_FALSE(full.starts_now);
  EXPECT_EQ(full.free_slots, 0);
  EXPECT_EQ(full.limited_by, "queue_max");
  EXPECT_EQ(full.capacity, 100);
  EXPECT_EQ(full.slots_to_free(), 1);
}

// A bug once: queues bsub always refuses for this job (MAX 0, or
// JL/U 2 for a 4-slot job) were tried first on every request.
TEST(PlaceStartTest, QueuesWhoseLimitsTheJobExceedsAreExcludedBeforeAnyBsub) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("zero", {"all"})
                                       .Limits(0)
                                       .Queue("peruser", {"all"})
                                       .Limits(std::nullopt, 2)
                                       .Queue("busy", {"all"}, {"all"}, "Open:Active", 40, 8)
                                       .Host("node01")
                                       .Slots(8, 8)
                                       .Build();
  PlacementRequest request = Request();
  request.slots = 4;
  const auto placement = Place(snapshot, {}, request);
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("busy"));
  const Exclusion* zero = FindExclusion(*placement, "zero");
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->code, ExclusionCode::kExceedsLimit);
  EXPECT_EQ(zero->reason,
            "the job asks for 4 slots and the queue's MAX is 0 (bqueues): bsub would refuse it "
            "(Too many processors requested)");
  const Exclusion* peruser = FindExclusion(*placement, "peruser");
  ASSERT_NE(peruser, nullptr);
  EXPECT_EQ(peruser->code, ExclusionCode::kExceedsLimit);
  EXPECT_THAT(peruser->reason, HasSubstr("JL/U 2"));
  // A 2-slot job fits under JL/U 2.
  request.slots = 2;
  EXPECT_THAT(CandidateNames(*Place(snapshot, {}, request)), ElementsAre("peruser", "busy"));
}

TEST(PlaceStartTest, AJobBiggerThanEveryHostItMayUseNeverStarts) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("small", {"node01", "node02"})
                                       .Queue("big", {"node03"})
                                       .Host("node01")
                                       .Slots(4, 0)
                                       .Host("node02")
                                       .Slots(4, 0)
                                       .Host("node03")
                                       .Slots(64, 0, 16)
                                       .Build();
  PlacementRequest request = Request();
  request.slots = 12;  // more than 4 + 4, may span hosts in 64
  auto placement = Place(snapshot, {}, request);
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("big"));
  EXPECT_EQ(FindExclusion(*placement, "small")->reason,
            "the job asks for 12 slots and the 2 hosts it may use have 8 slots in all (MAX, "
            "bhosts -w): the job would never start");
  // On node03 itself, its JL/U of 16 bites first.
  request.host = "node03";
  request.slots = 20;
  placement = Place(snapshot, {}, request);
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(placement->candidates, IsEmpty());
  EXPECT_THAT(FindExclusion(*placement, "big")->reason,
              HasSubstr("host node03 runs at most 16 slots per user (JL/U, bhosts -w)"));
}

// Per-user usage for JL/U comes from the jobs bplace follows.
TEST(PlaceStartTest, TheUsersOwnSlotsUnderJlUDecideWhetherTheJobStartsNow) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("mine", {"all"}, {"all"}, "Open:Active", 0, 3, 50)
                                       .Limits(std::nullopt, 4)
                                       .Queue("other", {"all"}, {"all"}, "Open:Active", 0, 0, 10)
                                       .Host("node01")
                                       .Slots(64, 3)
                                       .Holds("alice", "mine", "node01", 3)
                                       .Build();
  PlacementRequest request = Request();
  request.slots = 2;
  const auto placement = Place(snapshot, {}, request);
  ASSERT_TRUE(placement) << placement.error().message;
  ASSERT_THAT(CandidateNames(*placement), ElementsAre("other", "mine"));
  EXPECT_EQ(placement->candidates[1].limited_by, "user_limit");
  EXPECT_EQ(placement->candidates[1].free_slots, 1);
  // Bob holds nothing there: JL/U leaves him 4, so his job starts now in
  // either; other has more room.
  request.user = "bob";
  const auto bobs = Place(snapshot, {}, request);
  ASSERT_TRUE(bobs);
  ASSERT_THAT(CandidateNames(*bobs), ElementsAre("other", "mine"));
  EXPECT_TRUE(bobs->candidates[1].starts_now);
  EXPECT_EQ(bobs->candidates[1].free_slots, 4);
}

TEST(PlaceStartTest, AnAskedForHostsFreeSlotsDecide) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("qa", {"all"})
                                       .Host("node01")
                                       .Slots(8, 8)
                                       .Host("node02")
                                       .Slots(8, 0)
                                       .Build();
  const auto busy = Place(snapshot, {}, Request("node01"));
  ASSERT_TRUE(busy) << busy.error().message;
  ASSERT_EQ(busy->candidates.size(), 1u);
  EXPECT_FALSE(busy->candidates[0].starts_now);
  EXPECT_EQ(busy->candidates[0].limited_by, "host_max");
  EXPECT_EQ(busy->candidates[0].capacity, 8);
  const auto idle = Place(snapshot, {}, Request("node02"));
  ASSERT_TRUE(idle);
  EXPECT_TRUE(idle->candidates[0].starts_now);
  EXPECT_EQ(idle->candidates[0].free_slots, 8);
}

TEST(PlaceStartTest, AmongQueuesThatMustWaitTheSmallestShareOfCapacityToFreeWins) {
  // wide: 50 pending of 200 slots (a quarter); narrow: 10 pending of 10.
  const ClusterSnapshot snapshot =
      SnapshotBuilder()
          .Queue("wide", {"hg_wide/"}, {"all"}, "Open:Active", 50, 200)
          .Queue("narrow", {"node09"}, {"all"}, "Open:Active", 10, 10)
          .HostGroup("hg_wide", {"node01", "node02", "node03", "node04"})
          .Host("node01")
          .Slots(50, 50)
          .Host("node02")
          .Slots(50, 50)
          .Host("node03")
          .Slots(50, 50)
          .Host("node04")
          .Slots(50, 50)
          .Host("node09")
          .Slots(10, 10)
          .Build();
  const auto placement = Place(snapshot, {}, Request());
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("wide", "narrow"));
  EXPECT_EQ(placement->candidates[0].slots_to_free(), 51);
  EXPECT_EQ(placement->candidates[0].capacity, 200);
}

// The waits LSF gave `queue`'s jobs: `count` waits of `base` .. base+count-1 s.
void Learn(WaitModel& model, const std::string& queue, int count, std::int64_t base) {
  for (int i = 0; i < count; ++i) {
    WaitObservation wait;
    wait.queue = queue;
    wait.submitted = SystemTime{} + std::chrono::hours(1);
    wait.started = wait.submitted + std::chrono::seconds(base + i);
    model.Observe(wait);
  }
}

TEST(PlaceStartTest, AmongQueuesThatMustWaitTheLearnedBoundWinsOverTheShareOfCapacity) {
  // By share of capacity `wide` would win (a quarter against all of
  // narrow), but narrow's jobs have started within minutes and wide's took
  // hours: narrow drains faster, and the bound knows it (docs/api.md "How
  // bplace ranks queues"). A queue without a bound comes last.
  const ClusterSnapshot snapshot =
      SnapshotBuilder()
          .Queue("wide", {"hg_wide/"}, {"all"}, "Open:Active", 50, 200)
          .Queue("narrow", {"node09"}, {"all"}, "Open:Active", 10, 10)
          .Queue("unknown", {"node10"}, {"all"}, "Open:Active", 1, 1)
          .HostGroup("hg_wide", {"node01", "node02", "node03", "node04"})
          .Host("node01")
          .Slots(50, 50)
          .Host("node02")
          .Slots(50, 50)
          .Host("node03")
          .Slots(50, 50)
          .Host("node04")
          .Slots(50, 50)
          .Host("node09")
          .Slots(10, 10)
          .Host("node10")
          .Slots(1, 1)
          .Build();
  WaitModel waits;
  Learn(waits, "wide", 70, 3600);
  Learn(waits, "narrow", 70, 60);
  PlacementContext context;
  context.waits = &waits;
  const auto placement = Place(snapshot, context, Request());
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("narrow", "wide", "unknown"));
  const WaitEstimate& narrow = placement->candidates[0].expected_start;
  EXPECT_NE(narrow.method, WaitMethod::kNoHistory);
  ASSERT_TRUE(narrow.bound.has_value());
  EXPECT_LE(narrow.bound->count(), 60 + 69);
  EXPECT_GE(narrow.bound->count(), 60 + 60);
  ASSERT_TRUE(placement->candidates[1].expected_start.bound.has_value());
  EXPECT_GE(placement->candidates[1].expected_start.bound->count(), 3600);
  EXPECT_EQ(placement->candidates[2].expected_start.method, WaitMethod::kNoHistory);
  // Without a model (no bounds), the share decides.
  const auto plain = Place(snapshot, {}, Request());
  ASSERT_TRUE(plain);
  EXPECT_THAT(CandidateNames(*plain), ElementsAre("wide", "narrow", "unknown"));
}

TEST(PlaceStartTest, AtEqualSharesTheSmallerLearnedBoundWinsAndAnyBoundBeforeNone) {
  // Three queues of 10 slots, all taken, 9 pending each: the same share.
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("qa", {"node01"}, {"all"}, "Open:Active", 9, 10)
                                       .Queue("qb", {"node02"}, {"all"}, "Open:Active", 9, 10)
                                       .Queue("qc", {"node03"}, {"all"}, "Open:Active", 9, 10)
                                       .Host("node01")
                                       .Slots(10, 10)
                                       .Host("node02")
                                       .Slots(10, 10)
                                       .Host("node03")
                                       .Slots(10, 10)
                                       .Build();
  WaitModel waits;
  Learn(waits, "qb", 70, 3600);
  Learn(waits, "qc", 70, 60);
  PlacementContext context;
  context.waits = &waits;
  const auto placement = Place(snapshot, context, Request());
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("qc", "qb", "qa"));
  EXPECT_EQ(BacklogShare(placement->candidates[0]), 1.0);
  // Without a model the name decides.
  const auto plain = Place(snapshot, {}, Request());
  ASSERT_TRUE(plain);
  EXPECT_THAT(CandidateNames(*plain), ElementsAre("qa", "qb", "qc"));
}

TEST(PlaceStartTest, QueueBacklogsAreTheSharesOfAOneSlotJobInEveryListedQueue) {
  const ClusterSnapshot snapshot =
      SnapshotBuilder()
          .Queue("wide", {"hg_wide/"}, {"all"}, "Open:Active", 50, 200)
          .Queue("narrow", {"node09"}, {"bob"}, "Open:Active", 10, 10)
          .Queue("idle", {"node10"}, {"all"}, "Open:Active", 0, 0)
          .DefinitionOnly("unlisted", {"node10"}, 5, 30)
          .HostGroup("hg_wide", {"node01", "node02", "node03", "node04"})
          .Host("node01")
          .Slots(50, 50)
          .Host("node02")
          .Slots(50, 50)
          .Host("node03")
          .Slots(50, 50)
          .Host("node04")
          .Slots(50, 50)
          .Host("node09")
          .Slots(10, 10)
          .Host("node10")
          .Slots(4, 0)
          .Build();
  // Whoever may use the queue: `narrow` is bob's only, and still counted.
  using Shares = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(QueueBacklogs(snapshot),
            (Shares{{"wide", 51.0 / 200}, {"narrow", 11.0 / 10}, {"idle", 0.0}}));
  // The shares Place gives a one-slot job.
  const auto placement = Place(snapshot, {}, Request(std::nullopt, {"wide"}));
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_EQ(BacklogShare(placement->candidates[0]), 51.0 / 200);
  EXPECT_THAT(QueueBacklogs(ClusterSnapshot{}), IsEmpty());
}

TEST(PlaceStartTest, AJobThatStartsNowIsToldSoWhateverTheHistory) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("qa", {"node01"}, {"all"}, "Open:Active", 0, 0)
                                       .Host("node01")
                                       .Slots(4, 0)
                                       .Build();
  WaitModel waits;
  Learn(waits, "qa", 70, 3600);
  PlacementContext context;
  context.waits = &waits;
  const auto placement = Place(snapshot, context, Request());
  ASSERT_TRUE(placement) << placement.error().message;
  ASSERT_TRUE(placement->candidates[0].starts_now);
  EXPECT_EQ(placement->candidates[0].expected_start.method, WaitMethod::kStartsNow);
  EXPECT_EQ(placement->candidates[0].expected_start.p50, std::chrono::seconds(0));
}

TEST(PlaceStartTest, InFlightSlotsTakeFreeSlotsBeforeTheJob) {
  const ClusterSnapshot snapshot = SnapshotBuilder()
                                       .Queue("qa", {"node01"}, {"all"}, "Open:Active", 0, 0, 50)
                                       .Queue("qb", {"node02"}, {"all"}, "Open:Active", 0, 0, 10)
                                       .Host("node01")
                                       .Slots(4, 0)
                                       .Host("node02")
                                       .Slots(4, 0)
                                       .Build();
  // bplace already sent 4 slots to qa: they will take node01's 4.
  const std::unordered_map<std::string, std::int64_t> inflight{{"qa", 4}};
  PlacementContext context;
  context.inflight_slots = &inflight;
  const auto placement = Place(snapshot, context, Request());
  ASSERT_TRUE(placement) << placement.error().message;
  EXPECT_THAT(CandidateNames(*placement), ElementsAre("qb", "qa"));
  EXPECT_FALSE(placement->candidates[1].starts_now);
}

// RanksBefore must be a strict weak order for std::sort: irreflexive,
// asymmetric, transitive, over a grid of candidates that mixes every term.
TEST(PlaceStartTest, RanksBeforeIsAStrictWeakOrder) {
  std::vector<Candidate> grid;
  int n = 0;
  for (bool active : {true, false}) {
    for (std::optional<std::int64_t> free :
         {std::optional<std::int64_t>(), std::optional<std::int64_t>(0),
          std::optional<std::int64_t>(3)}) {
      for (std::int64_t pend : {0, 2, 5}) {
        for (std::int64_t capacity : {1, 4}) {
          Candidate c;
          c.queue = "q" + std::to_string(n++ % 3);
          c.active = active;
          c.free_slots = free;
          c.pend = pend;
          c.capacity = capacity;
          c.slots = 1;
          c.prio = static_cast<int>(pend % 2);
          c.starts_now = active && (free ? *free >= pend + 1 : pend == 0);
          // No bound, or one of two sizes.
          if (n % 3 == 1) c.expected_start.bound = std::chrono::seconds(60);
          if (n % 3 == 2) c.expected_start.bound = std::chrono::seconds(600);
          grid.push_back(c);
        }
      }
    }
  }
  for (const Candidate& a : grid) {
    EXPECT_FALSE(RanksBefore(a, a));
    for (const Candidate& b : grid) {
      if (RanksBefore(a, b)) {
        EXPECT_FALSE(RanksBefore(b, a));
      }
      for (const Candidate& c : grid) {
        if (RanksBefore(a, b) && RanksBefore(b, c)) {
          EXPECT_TRUE(RanksBefore(a, c));
        }
      }
    }
  }
}

}  // namespace
}  // namespace bplace
