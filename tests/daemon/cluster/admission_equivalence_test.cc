// The per-queue host counts of the admission index (docs/design.md "Site
// scale") against the straightforward evaluation they replace, on the LSF
// simulator's big generated cluster (`lsfsim generate --queues 300 --hosts 5000
// --host-groups 200`, every HOSTS token kind, nested groups with ranges and
// exclusions): equal QueueHostCounts and queues_admitting for every queue and
// host, and byte-for-byte equal placement answers (Place + PlacementJson, the
// body of GET /v1/placement) for a sample of hosts and users.

#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "api/json_mapping.h"
#include "daemon/cluster/snapshot.h"
#include "daemon/cluster/topology.h"
#include "daemon/placement/placement.h"
#include "daemon/placement/wait_model.h"
#include "lsf_adapter/bhosts_parser.h"
#include "lsf_adapter/bqueues_long_parser.h"
#include "lsf_adapter/bqueues_parser.h"
#include "lsf_adapter/group_parser.h"
#include "tests/fakes/capture_command.h"

namespace bplace {
namespace {

// The computation before the admission index, kept as the reference:
// Topology::AdmitHost for every queue x bhosts row.
std::unordered_map<std::string, QueueHostCounts> ReferenceCountQueueHosts(
    const Topology& topology, const LoadState& load, const IbHealthState* ib,
    std::vector<std::int32_t>* queues_admitting) {
  std::unordered_map<std::string, QueueHostCounts> counts;
  queues_admitting->assign(load.hosts.size(), 0);
  for (const QueueTopology& queue : topology.queues()) {
    QueueHostCounts& count = counts[queue.definition.name];
    for (std::size_t i = 0; i < load.hosts.size(); ++i) {
      const lsf::HostStatus& host = load.hosts[i];
      if (!topology.AdmitHost(queue, host.name).admitted()) continue;
      ++(*queues_admitting)[i];
      ++count.admitted;
      if (!HostTakesNewWork(host.status)) continue;
      ++count.usable;
      const IbHealth verdict = HostIbVerdict(ib, host.name);
      count.slots_by_ib[static_cast<int>(verdict)] += SlotsOf(host);
      switch (verdict) {
        case IbHealth::kHealthy:
          ++count.ib_healthy;
          break;
        case IbHealth::kUnhealthy:
          ++count.ib_unhealthy;
          break;
        case IbHealth::kUnknown:
          ++count.ib_unknown;
          break;
      }
    }
  }
  return counts;
}

// The generated cluster's LSF output, parsed: made once for the suite.
struct Cluster {
  std::vector<lsf::QueueDefinition> queues;
  std::vector<lsf::Group> host_groups;
  std::vector<lsf::Group> user_groups;
  std::vector<lsf::QueueLoad> loads;
  std::vector<lsf::HostStatus> hosts;
};

class AdmissionEquivalenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir_template =
        (std::filesystem::temp_directory_path() / "bplace-admission-XXXXXX").string();
    ASSERT_NE(mkdtemp(dir_template.data()), nullptr);
    const std::string dir = dir_template;
    const std::string bin = LSFSIM_BIN_DIR;
    ASSERT_EQ(std::system((bin + "/lsfsim generate --queues 300 --hosts 5000 --host-groups 200 > " +
                           dir + "/cluster.toml")
                              .c_str()),
              0);
    ASSERT_EQ(std::system((bin + "/lsfsim init --cluster " + dir + "/cluster.toml --state " + dir +
                           "/lsf >/dev/null")
                              .c_str()),
              0);
    const std::string env = "LSF_ENVDIR=" + dir + "/lsf " + bin + "/";
    auto queues = lsf::ParseBqueuesLong(bplace::testing::CaptureCommand(env + "bqueues -l"));
    auto host_groups = lsf::ParseBmgroup(bplace::testing::CaptureCommand(env + "bmgroup -w"));
    auto user_groups = lsf::ParseBugroup(bplace::testing::CaptureCommand(env + "bugroup -w"));
    auto loads = lsf::ParseBqueues(bplace::testing::CaptureCommand(env + "bqueues -w"));
    auto hosts = lsf::ParseBhosts(bplace::testing::CaptureCommand(env + "bhosts -w"));
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(queues && host_groups && user_groups && loads && hosts);
    cluster_ = new Cluster{std::move(*queues), std::move(*host_groups), std::move(*user_groups),
                           std::move(*loads), std::move(*hosts)};
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  // The generated cluster with two hosts that joined bhosts after the
  // topology was read (one up, one down), and an lsload reading: a third
  // of the hosts unhealthy, a third healthy, the rest unknown.
  static ClusterSnapshot Snapshot() {
    ClusterSnapshot snapshot;
    snapshot.topology =
        Topology::Build(cluster_->queues, cluster_->host_groups, cluster_->user_groups);
    auto load = std::make_shared<LoadState>();
    for (const auto& queue : cluster_->loads) load->queues.emplace(queue.name, queue);
    load->hosts = cluster_->hosts;
    for (const auto& [name, status] : {std::pair{"zz_new01", "ok"}, {"zz_new02", "unavail"}}) {
      lsf::HostStatus host;
      host.name = name;
      host.status = status;
      host.max = 8;
      load->hosts.push_back(std::move(host));
    }
    for (std::size_t i = 0; i < load->hosts.size(); ++i) {
      load->host_index.emplace(load->hosts[i].name, i);
    }
    auto ib = std::make_shared<IbHealthState>();
    ib->source = "lsload";
    for (std::size_t i = 0; i < load->hosts.size(); ++i) {
      if (i % 3 == 2) continue;
      HostIbHealth entry;
      entry.health = i % 3 == 0 ? IbHealth::kUnhealthy : IbHealth::kHealthy;
      if (i % 3 == 0) entry.reasons = {"ib_ok is 0 (lsload)"};
      ib->hosts.insert_or_assign(load->hosts[i].name, std::move(entry));
    }
    snapshot.load = load;
    snapshot.ib = ib;
    return snapshot;
  }

  static Cluster* cluster_;
};

Cluster* AdmissionEquivalenceTest::cluster_ = nullptr;

void ExpectSameSlots(const HostSlots& a, const HostSlots& b, const std::string& where) {
  EXPECT_EQ(a.free, b.free) << where;
  EXPECT_EQ(a.max, b.max) << where;
  EXPECT_EQ(a.largest, b.largest) << where;
  EXPECT_EQ(a.unlimited, b.unlimited) << where;
}

TEST_F(AdmissionEquivalenceTest, CountsEveryQueueAndHostAsThePerPairEvaluation) {
  const ClusterSnapshot snapshot = Snapshot();
  ASSERT_GE(snapshot.topology->queues().size(), 300u);
  ASSERT_GE(snapshot.load->hosts.size(), 5000u);
  for (const IbHealthState* ib : {static_cast<const IbHealthState*>(nullptr), snapshot.ib.get()}) {
    std::vector<std::int32_t> reference_admitting;
    std::vector<std::int32_t> admitting;
    const auto reference =
        ReferenceCountQueueHosts(*snapshot.topology, *snapshot.load, ib, &reference_admitting);
    const auto counts = CountQueueHosts(*snapshot.topology, *snapshot.load, ib, &admitting);
    ASSERT_EQ(counts.size(), reference.size());
    std::int64_t admitted_pairs = 0;
    for (const auto& [queue, want] : reference) {
      const std::string where = queue + (ib ? " (ib)" : "");
      ASSERT_TRUE(counts.contains(queue)) << where;
      const QueueHostCounts& got = counts.at(queue);
      EXPECT_EQ(got.admitted, want.admitted) << where;
      EXPECT_EQ(got.usable, want.usable) << where;
      EXPECT_EQ(got.ib_healthy, want.ib_healthy) << where;
      EXPECT_EQ(got.ib_unhealthy, want.ib_unhealthy) << where;
      EXPECT_EQ(got.ib_unknown, want.ib_unknown) << where;
      for (int v = 0; v < 3; ++v) ExpectSameSlots(got.slots_by_ib[v], want.slots_by_ib[v], where);
      admitted_pairs += want.admitted;
    }
    EXPECT_EQ(admitting, reference_admitting);
    // The cluster exercises admission: neither nothing nor everything.
    const auto pairs = static_cast<std::int64_t>(reference.size() * snapshot.load->hosts.size());
    EXPECT_GT(admitted_pairs, 0);
    EXPECT_LT(admitted_pairs, pairs);
  }
}

TEST_F(AdmissionEquivalenceTest, AnswersPlacementsByteForByteAsBefore) {
  ClusterSnapshot before = Snapshot();
  ClusterSnapshot after = before;
  before.host_counts = ReferenceCountQueueHosts(*before.topology, *before.load, before.ib.get(),
                                                &before.queues_admitting);
  after.host_counts =
      CountQueueHosts(*after.topology, *after.load, after.ib.get(), &after.queues_admitting);

  std::vector<std::string> users = {"nobody_listed"};
  for (const lsf::Group& group : cluster_->user_groups) {
    if (users.size() >= 6) break;
    for (const std::string& member : group.members) {
      if (member.empty() || member.back() == '/' || member.front() == '~' || member == "all") {
        continue;
      }
      users.push_back(member);
      break;
    }
  }
  std::vector<std::optional<std::string>> hosts = {std::nullopt, "zz_new01", "zz_new02"};
  const auto& bhosts = before.load->hosts;
  for (std::size_t i = 0; i < bhosts.size(); i += 331) hosts.push_back(bhosts[i].name);

  std::unordered_map<std::string, std::int64_t> inflight;
  PlacementContext context;
  context.inflight_slots = &inflight;
  const SystemTime now{std::chrono::seconds(1'800'000'000)};
  // Waits learned for every third queue (enough for a QBETS bound in some,
  // too few in others), so that the answers carry expected starts of every
  // kind and the ranking by bound takes part in the comparison.
  WaitModel waits;
  const auto& queues = before.topology->queues();
  for (std::size_t q = 0; q < queues.size(); q += 3) {
    for (std::size_t i = 0; i < (q % 2 == 0 ? 70u : 5u); ++i) {
      WaitObservation wait;
      wait.queue = queues[q].definition.name;
      wait.submitted = now - std::chrono::hours(2);
      wait.started = wait.submitted + std::chrono::seconds(30 + (i * 37 + q * 11) % 900);
      waits.Observe(wait);
    }
  }
  context.waits = &waits;
  int compared = 0;
  for (const std::string& user : users) {
    for (const auto& host : hosts) {
      for (const bool require_ib : {false, true}) {
        PlacementRequest request;
        request.user = user;
        request.host = host;
        request.require_ib = require_ib;
        const std::string where =
            user + " on " + host.value_or("any host") + (require_ib ? " require_ib" : "");
        const auto want = Place(before, context, request);
        const auto got = Place(after, context, request);
        ASSERT_EQ(got.has_value(), want.has_value()) << where;
        if (!want) {
          EXPECT_EQ(got.error().message, want.error().message) << where;
          continue;
        }
        EXPECT_EQ(api::PlacementJson(request, *got, after.ib.get(), now).dump(),
                  api::PlacementJson(request, *want, before.ib.get(), now).dump())
            << where;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace bplace
