#include "daemon/cluster/cluster_cache.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <thread>

#include "common/manual_clock.h"
#include "daemon/placement/refusal_memory.h"
#include "tests/fakes/fake_command_runner.h"

namespace bplace {
namespace {

using ::testing::ElementsAre;
using testing::FakeCommandRunner;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using namespace std::chrono_literals;

// Output of LSF 10.1 commands, as in docs/lsf-formats.md (header and group rows
// end with a space).
constexpr char kBqueuesW[] =
    "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
    "normal           30  Open:Active       -    -    -    -    12     4     8     0\n"
    "small            57  Open:Active     720  120    -    -  1964  1464   500     0\n";

constexpr char kBqueuesWLater[] =
    "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
    "normal           30  Open:Active       -    -    -    -    20    10    10     0\n"
    "small            57  Closed:Active   720  120    -    -  1964  1464   500     0\n";

constexpr char kBhostsW[] =
    "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV\n"
    "login01            closed_Adm      -      0      0      0      0      0      0\n"
    "node001            ok              -     48     12     12      0      0      0\n"
    "node002            closed_Full     -     48     48     48      0      0      0\n"
    "node003            unavail         -     48      0      0      0      0      0\n"
    "node068            ok              -     48      0      0      0      0      0\n";

constexpr char kBqueuesL[] =
    "\n"
    "QUEUE: normal\n"
    "  -- For normal low priority jobs, running only if hosts are lightly loaded.  This is "
    "the default queue.\n"
    "\n"
    "PARAMETERS/STATISTICS\n"
    "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV\n"
    " 30   20  Open:Active       -    -    -    -     0     0     0     0     0    0\n"
    "Interval for a host to accept two jobs is 0 seconds\n"
    "\n"
    "SCHEDULING POLICIES:  FAIRSHARE  NO_INTERACTIVE\n"
    "USER_SHARES:  [default, 1]\n"
    "\n"
    "USERS: all\n"
    "HOSTS:  all\n"
    "-------------------------------------------------------------------------------\n"
    "\n"
    "QUEUE: small\n"
    "  -- Maximum number of job slots that each user can use in this queue is 720.\n"
    " on nodes: node1~node67\n"
    "\n"
    "PARAMETERS/STATISTICS\n"
    "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV\n"
    " 57   20  Open:Active     720  120    -    -  1964  1464   500     0     0    0\n"
    "Interval for a host to accept two jobs is 0 seconds\n"
    "\n"
    " PROCLIMIT\n"
    " 48\n"
    "\n"
    "SCHEDULING POLICIES:  EXCLUSIVE\n"
    "\n"
    "ADMINISTRATORS:  hpcadm\n"
    "USERS: grp_chem/ grp_phys/ alice\n"
    "HOSTS:  hg_small/ node068+2 others+1\n"
    "RES_REQ:  span[ptile=24]\n";

constexpr char kBmgroupW[] =
    "GROUP_NAME    HOSTS\n"
    "hg_small     node001 node002 node003 node004 \n"
    "hg_all       hg_small/ hg_gpu/ login01 \n"
    "hg_gpu       gpu01 gpu02 \n";

constexpr char kBugroupW[] =
    "GROUP_NAME    USERS\n"
    "grp_chem     alice bob carol \n"
    "grp_all      grp_chem/ dave \n";

constexpr char kLsid[] =
    "IBM Spectrum LSF Standard 10.1.0.13, Jun 03 2022\n"
    "Copyright International Business Machines Corp. 1992, 2016.\n"
    "US Government Users Restricted Rights - Use, duplication or disclosure restricted by GSA "
    "ADP Schedule Contract with IBM Corp.\n"
    "\n"
    "My cluster name is cluster1\n"
    "My master name is lsfmaster01\n";

// Two clusters (MultiCluster): the administrators are those of the cluster
// lsid names.
constexpr char kLsclustersL[] =
    "CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS\n"
    "remote9        ok       rhost                     radm        4        4\n"
    "LSF administrators: radm\n"
    "cluster1       ok       lsfmaster01            lsfadmin        6        6\n"
    "LSF administrators: lsfadmin hpcadm\n"
    "Available resources: cs\n";

constexpr char kBqueuesUAliceW[] =
    "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
    "normal           30  Open:Active       -    -    -    -    12     4     8     0\n"
    "small            57  Open:Active     720  120    -    -  1964  1464   500     0\n";

constexpr char kBqueuesUBobW[] =
    "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
    "normal           30  Open:Active       -    -    -    -    12     4     8     0\n";

const std::vector<std::string> kLoadQuery = {"bqueues", "-w"};
const std::vector<std::string> kTopologyQuery = {"bqueues", "-l"};

class ClusterCacheTest : public ::testing::Test {
 protected:
  ClusterCacheTest() {
    // Refresh failures are logged as warnings; tests check them instead.
    spdlog::set_level(spdlog::level::err);
    CannedCluster();
  }

  void CannedCluster() {
    fake_.OnArgv(kLoadQuery, FakeCommandRunner::Output(kBqueuesW));
    fake_.OnArgv({"bhosts", "-w"}, FakeCommandRunner::Output(kBhostsW));
    fake_.OnArgv(kTopologyQuery, FakeCommandRunner::Output(kBqueuesL));
    fake_.OnArgv({"bmgroup", "-w"}, FakeCommandRunner::Output(kBmgroupW));
    fake_.OnArgv({"bugroup", "-w"}, FakeCommandRunner::Output(kBugroupW));
    fake_.OnArgv({"lsid"}, FakeCommandRunner::Output(kLsid));
    fake_.OnArgv({"lsclusters", "-l"}, FakeCommandRunner::Output(kLsclustersL));
    fake_.OnArgv({"bqueues", "-u", "alice", "-w"}, FakeCommandRunner::Output(kBqueuesUAliceW));
    fake_.OnArgv({"bqueues", "-u", "bob", "-w"}, FakeCommandRunner::Output(kBqueuesUBobW));
  }

  ClusterCache& Cache() {
    if (!cache_)
      cache_ = std::make_unique<ClusterCache>(io_.get_executor(), fake_, lsf_, ledger_, clock_,
                                              options_);
    return *cache_;
  }

  // Runs the io_context until `done()` holds; fails the test after a bound
  // so a callback that never comes shows up as a failure, not a hang.
  void RunUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "condition not reached";
        return;
      }
      io_.restart();
      io_.run_one_for(50ms);
    }
  }

  Result<void> RefreshLoad() {
    std::optional<Result<void>> got;
    Cache().RefreshLoad([&](Result<void> r) { got = std::move(r); });
    RunUntil([&] { return got.has_value(); });
    return got.value_or(Fail(ErrorCode::kInternal, "no callback"));
  }

  Result<void> RefreshTopology() {
    std::optional<Result<void>> got;
    Cache().RefreshTopology([&](Result<void> r) { got = std::move(r); });
    RunUntil([&] { return got.has_value(); });
    return got.value_or(Fail(ErrorCode::kInternal, "no callback"));
  }

  Result<std::shared_ptr<const UserPermissions>> Fetch(const std::string& user) {
    std::optional<Result<std::shared_ptr<const UserPermissions>>> got;
    Cache().FetchPermissions(user, [&](auto r) { got = std::move(r); });
    RunUntil([&] { return got.has_value(); });
    return got.value_or(Fail(ErrorCode::kInternal, "no callback"));
  }

  std::size_t CallsOf(const std::vector<std::string>& argv) const {
    std::size_t n = 0;
    for (const auto& call : fake_.Calls()) n += call.argv == argv;
    return n;
  }

  boost::asio::io_context io_;
  FakeCommandRunner fake_{io_.get_executor()};
  lsf::LsfInvoker lsf_{"", "", 7000ms, {}};
  InflightLedger ledger_;
  ManualClock clock_;
  CacheOptions options_;
  std::unique_ptr<ClusterCache> cache_;
};

TEST_F(ClusterCacheTest, StartsWithEmptySnapshot) {
  const auto snapshot = Cache().Current();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_FALSE(snapshot->complete());
  EXPECT_EQ(fake_.CallCount(), 0u);
}

TEST_F(ClusterCacheTest, PublishesSnapshotFromLsfOutput) {
  options_.prefetch_user = "alice";
  ASSERT_TRUE(RefreshTopology());
  EXPECT_FALSE(Cache().Current()->complete());
  ASSERT_TRUE(RefreshLoad());

  const auto snapshot = Cache().Current();
  ASSERT_TRUE(snapshot->complete());
  ASSERT_EQ(snapshot->topology->queues().size(), 2u);
  const QueueTopology* small = snapshot->topology->FindQueue("small");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->definition.administrators, std::vector<std::string>{"hpcadm"});
  EXPECT_EQ(snapshot->topology->AdmitHost(*small, "node002").via, HostAdmission::Via::kGroup);
  EXPECT_EQ(snapshot->topology->AdmitHost(*small, "node068").preference, 2);
  EXPECT_TRUE(snapshot->topology->user_groups().Chain("grp_all", "bob"));
  EXPECT_TRUE(snapshot->topology->host_groups().Chain("hg_all", "gpu02"));

  ASSERT_EQ(snapshot->load->queues.size(), 2u);
  EXPECT_EQ(snapshot->load->queues.at("normal").pend, 4);
  EXPECT_EQ(snapshot->load->queues.at("small").pend, 1464);
  ASSERT_NE(snapshot->load->FindHost("node003"), nullptr);
  EXPECT_EQ(snapshot->load->FindHost("node003")->status, "unavail");

  // "small" admits node001..node004 via hg_small, node068 and (others) the
  // rest of bhosts: login01. Of those, login01 and node003 take no new work.
  EXPECT_EQ(snapshot->host_counts.at("small").admitted, 5);
  EXPECT_EQ(snapshot->host_counts.at("small").usable, 3);
  EXPECT_EQ(snapshot->host_counts.at("normal").admitted, 5);

  EXPECT_EQ(snapshot->identity.cluster_name, "cluster1");
  EXPECT_EQ(snapshot->identity.master_name, "lsfmaster01");
  EXPECT_THAT(snapshot->identity.version, HasSubstr("10.1.0.13"));

  EXPECT_TRUE(snapshot->topology_status.last_success);
  EXPECT_TRUE(snapshot->load_status.last_success);
  EXPECT_THAT(snapshot->load_status.last_error, IsEmpty());
  EXPECT_EQ(snapshot->load_status.consecutive_failures, 0);

  const auto alice = Cache().Permissions("alice");
  ASSERT_NE(alice, nullptr) << "prefetched with the topology";
  EXPECT_THAT(alice->queues, UnorderedElementsAre("normal", "small"));
}

TEST_F(ClusterCacheTest, RunsCommandsWithInvokerSpec) {
  ASSERT_TRUE(RefreshLoad());
  ASSERT_TRUE(RefreshTopology());
  std::vector<std::vector<std::string>> argvs;
  for (const auto& call : fake_.Calls()) {
    argvs.push_back(call.argv);
    EXPECT_EQ(call.timeout, 7000ms);
    EXPECT_FALSE(call.stdin_data);
  }
  EXPECT_THAT(argvs, UnorderedElementsAre(std::vector<std::string>{"bqueues", "-w"},
                                          std::vector<std::string>{"bhosts", "-w"},
                                          std::vector<std::string>{"bqueues", "-l"},
                                          std::vector<std::string>{"bmgroup", "-w"},
                                          std::vector<std::string>{"bugroup", "-w"},
                                          std::vector<std::string>{"lsid"},
                                          std::vector<std::string>{"lsclusters", "-l"}));
}

TEST_F(ClusterCacheTest, ConcurrentLoadRefreshesShareOneRun) {
  fake_.HoldReplies();
  std::optional<Result<void>> first;
  std::optional<Result<void>> second;
  Cache().RefreshLoad([&](Result<void> r) { first = std::move(r); });
  Cache().RefreshLoad([&](Result<void> r) { second = std::move(r); });
  RunUntil([&] { return fake_.HeldCount() == 2; });
  io_.restart();
  io_.poll();
  EXPECT_EQ(fake_.HeldCount(), 2u) << "a second run started while the first was in flight";
  fake_.ReleaseHeld();
  RunUntil([&] { return first && second; });
  ASSERT_TRUE(first && second);
  EXPECT_TRUE(*first);
  EXPECT_TRUE(*second);
  EXPECT_EQ(CallsOf(kLoadQuery), 1u);
  EXPECT_EQ(CallsOf({"bhosts", "-w"}), 1u);

  // Once the run is over, the next request runs again.
  ASSERT_TRUE(RefreshLoad());
  EXPECT_EQ(CallsOf(kLoadQuery), 2u);
}

TEST_F(ClusterCacheTest, ConcurrentTopologyRefreshesShareOneRun) {
  fake_.HoldReplies();
  int done = 0;
  for (int i = 0; i < 5; ++i) {
    Cache().RefreshTopology([&](Result<void> r) {
      EXPECT_TRUE(r);
      ++done;
    });
  }
  // bqueues -l, bmgroup, bugroup, lsid and lsclusters, once.
  RunUntil([&] { return fake_.HeldCount() == 5; });
  fake_.ReleaseHeld();
  RunUntil([&] { return done == 5; });
  EXPECT_EQ(CallsOf(kTopologyQuery), 1u);
  EXPECT_EQ(CallsOf({"bmgroup", "-w"}), 1u);
}

TEST_F(ClusterCacheTest, ReadsNeverRunCommands) {
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  const std::size_t calls = fake_.CallCount();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_TRUE(Cache().Current()->complete());
    (void)Cache().Permissions("carol");
  }
  io_.restart();
  io_.poll();
  EXPECT_EQ(fake_.CallCount(), calls);
}

TEST_F(ClusterCacheTest, ReadersKeepTheirSnapshotAcrossRefresh) {
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  const auto before = Cache().Current();
  fake_.OnArgv(kLoadQuery, FakeCommandRunner::Output(kBqueuesWLater));
  ASSERT_TRUE(RefreshLoad());
  const auto after = Cache().Current();
  EXPECT_NE(before, after);
  EXPECT_EQ(before->load->queues.at("normal").pend, 4);
  EXPECT_EQ(after->load->queues.at("normal").pend, 10);
  EXPECT_FALSE(after->load->queues.at("small").status.open);
  EXPECT_EQ(after->topology, before->topology) << "a load refresh keeps the topology";
}

struct FailureCase {
  std::string label;
  FakeCommandRunner::Reply reply;
  ErrorCode code;
  std::string message_part;
};
std::ostream& operator<<(std::ostream& os, const FailureCase& c) { return os << c.label; }

class ClusterCacheFailureTest : public ClusterCacheTest,
                                public ::testing::WithParamInterface<FailureCase> {};

TEST_P(ClusterCacheFailureTest, KeepsLastGoodLoadAndRecordsError) {
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  const auto good = Cache().Current();

  fake_.On([](const lsf::CommandSpec& spec) { return spec.argv == kLoadQuery; },
           [reply = GetParam().reply](const lsf::CommandSpec&) { return reply; });
  for (int failures = 1; failures <= 2; ++failures) {
    const Result<void> result = RefreshLoad();
    ASSERT_FALSE(result);
    EXPECT_EQ(ErrorCodeName(result.error().code), std::string(ErrorCodeName(GetParam().code)));
    EXPECT_THAT(result.error().message, HasSubstr("bqueues -w"));
    EXPECT_THAT(result.error().message, HasSubstr(GetParam().message_part));

    const auto now = Cache().Current();
    EXPECT_EQ(now->load, good->load) << "the last good load is kept";
    EXPECT_EQ(now->topology, good->topology);
    EXPECT_TRUE(now->complete());
    EXPECT_EQ(now->load_as_of, good->load_as_of);
    EXPECT_EQ(now->load_status.last_success, good->load_status.last_success);
    EXPECT_THAT(now->load_status.last_error, HasSubstr(GetParam().message_part));
    EXPECT_EQ(now->load_status.consecutive_failures, failures);
    EXPECT_EQ(now->topology_status.consecutive_failures, 0);
  }

  fake_.OnArgv(kLoadQuery, FakeCommandRunner::Output(kBqueuesW));
  ASSERT_TRUE(RefreshLoad());
  EXPECT_THAT(Cache().Current()->load_status.last_error, IsEmpty());
  EXPECT_EQ(Cache().Current()->load_status.consecutive_failures, 0);
}

TEST_P(ClusterCacheFailureTest, KeepsLastGoodTopologyAndRecordsError) {
  ASSERT_TRUE(RefreshTopology());
  const auto good = Cache().Current();
  fake_.On([](const lsf::CommandSpec& spec) { return spec.argv == kTopologyQuery; },
           [reply = GetParam().reply](const lsf::CommandSpec&) { return reply; });
  const Result<void> result = RefreshTopology();
  ASSERT_FALSE(result);
  EXPECT_EQ(ErrorCodeName(result.error().code), std::string(ErrorCodeName(GetParam().code)));
  EXPECT_THAT(result.error().message, HasSubstr("bqueues -l"));
  const auto now = Cache().Current();
  EXPECT_EQ(now->topology, good->topology);
  EXPECT_EQ(now->topology_status.consecutive_failures, 1);
  EXPECT_THAT(now->topology_status.last_error, HasSubstr(GetParam().message_part));
  EXPECT_EQ(now->identity.cluster_name, "cluster1");
}

FakeCommandRunner::Reply TimedOutAfter7s() {
  lsf::CommandResult result = FakeCommandRunner::TimedOut();
  result.elapsed = 7000ms;
  return result;
}

INSTANTIATE_TEST_SUITE_P(
    DegradedLsf, ClusterCacheFailureTest,
    ::testing::Values(
        FailureCase{"timeout", TimedOutAfter7s(), ErrorCode::kTimeout, "7000 ms"},
        FailureCase{"lsf_down",
                    FakeCommandRunner::Output(
                        "", "LSF is down. Please wait...\nLSF is down. Please wait...\n", 255),
                    ErrorCode::kUnavailable, "LSF is down"},
        FailureCase{
            "no_lsf_conf",
            FakeCommandRunner::Output(
                "", "lsb_init: Failed in an LSF library call: Unable to open file lsf.conf\n", 255),
            ErrorCode::kUnavailable, "lsf.conf"},
        FailureCase{"other_exit_status",
                    FakeCommandRunner::Output("", "bqueues: something odd\n", 3),
                    ErrorCode::kCommandFailed, "exit status 3"},
        FailureCase{"garbage_output", FakeCommandRunner::Output("<html>502 Bad Gateway</html>\n"),
                    ErrorCode::kParseError, ""},
        FailureCase{"cannot_start",
                    FakeCommandRunner::Reply(Fail(ErrorCode::kCommandFailed,
                                                  "execve(bqueues): No such file")),
                    ErrorCode::kUnavailable, "No such file"}));

TEST_F(ClusterCacheTest, FailedSecondaryCommandFailsLoadTier) {
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  const auto good = Cache().Current();
  fake_.OnArgv({"bhosts", "-w"}, FakeCommandRunner::Output("", "LSF is down.\n", 255));
  const Result<void> result = RefreshLoad();
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message, HasSubstr("bhosts -w"));
  EXPECT_EQ(Cache().Current()->load, good->load) << "half a load tier is never published";
}

TEST_F(ClusterCacheTest, FirstFailureLeavesSnapshotIncomplete) {
  fake_.OnArgv(kLoadQuery, FakeCommandRunner::TimedOut());
  EXPECT_FALSE(RefreshLoad());
  const auto snapshot = Cache().Current();
  EXPECT_FALSE(snapshot->load);
  EXPECT_EQ(snapshot->load_status.consecutive_failures, 1);
  EXPECT_TRUE(snapshot->load_status.last_attempt);
  EXPECT_FALSE(snapshot->load_status.last_success);
}

TEST_F(ClusterCacheTest, LsidFailureDoesNotFailTopology) {
  fake_.OnArgv({"lsid"}, FakeCommandRunner::Output("IBM Spectrum LSF Standard 10.1.0.13\n",
                                                   "ls_getclustername(): LIM is down\n", 255));
  ASSERT_TRUE(RefreshTopology());
  EXPECT_TRUE(Cache().Current()->topology);
  EXPECT_THAT(Cache().Current()->identity.cluster_name, IsEmpty());
}

TEST_F(ClusterCacheTest, TopologyKnowsTheLsfAdministratorsOfItsOwnCluster) {
  ASSERT_TRUE(RefreshTopology());
  const auto topology = Cache().Current()->topology;
  EXPECT_THAT(topology->lsf_administrators(), ElementsAre("lsfadmin", "hpcadm"));
  EXPECT_THAT(topology->warnings(), IsEmpty());
}

TEST_F(ClusterCacheTest, LsclustersFailureDoesNotFailTopologyAndIsAWarning) {
  fake_.OnArgv({"lsclusters", "-l"},
               FakeCommandRunner::Output("", "lsclusters: LIM is down; try later\n", 255));
  ASSERT_TRUE(RefreshTopology());
  const auto topology = Cache().Current()->topology;
  ASSERT_TRUE(topology);
  EXPECT_THAT(topology->lsf_administrators(), IsEmpty());
  ASSERT_EQ(topology->warnings().size(), 1u);
  EXPECT_THAT(topology->warnings().front(), HasSubstr("LSF administrators unknown"));
}

TEST_F(ClusterCacheTest, ClusterWithoutGroupsStillRefreshes) {
  fake_.OnArgv({"bmgroup", "-w"}, FakeCommandRunner::Output("", "No host group found\n", 255));
  ASSERT_TRUE(RefreshTopology());
  EXPECT_THAT(Cache().Current()->topology->host_groups().Names(), IsEmpty());
}

TEST_F(ClusterCacheTest, LoadRefreshDropsInflightSlotsLsfHasCounted) {
  const auto counted = ledger_.Reserve("normal", 2);
  const auto pending = ledger_.Reserve("normal", 3);
  const auto running = ledger_.Reserve("small", 5);
  ledger_.Finish(counted, true, InflightLedger::Clock::time_point{});
  ledger_.Finish(pending, true, clock_.SteadyNow() + 1h);
  (void)running;
  ASSERT_TRUE(RefreshLoad());
  EXPECT_THAT(ledger_.Counts(),
              UnorderedElementsAre(::testing::Pair("normal", 3), ::testing::Pair("small", 5)));
}

TEST_F(ClusterCacheTest, FailedLoadRefreshKeepsInflightSlots) {
  const auto ticket = ledger_.Reserve("normal", 2);
  ledger_.Finish(ticket, true, InflightLedger::Clock::time_point{});
  fake_.OnArgv(kLoadQuery, FakeCommandRunner::Output("", "LSF is down.\n", 255));
  EXPECT_FALSE(RefreshLoad());
  EXPECT_THAT(ledger_.Counts(), UnorderedElementsAre(::testing::Pair("normal", 2)));
}

TEST_F(ClusterCacheTest, FetchesPermissionsOncePerUserAtATime) {
  fake_.HoldReplies();
  std::vector<Result<std::shared_ptr<const UserPermissions>>> got;
  for (int i = 0; i < 3; ++i) {
    Cache().FetchPermissions("bob", [&](auto r) { got.push_back(std::move(r)); });
  }
  EXPECT_EQ(fake_.HeldCount(), 1u);
  fake_.ReleaseHeld();
  RunUntil([&] { return got.size() == 3; });
  ASSERT_EQ(got.size(), 3u);
  for (const auto& r : got) {
    ASSERT_TRUE(r);
    EXPECT_THAT((*r)->queues, UnorderedElementsAre("normal"));
    EXPECT_EQ((*r)->user, "bob");
  }
  EXPECT_EQ(CallsOf({"bqueues", "-u", "bob", "-w"}), 1u);

  // A fresh answer is served from the cache.
  const auto again = Fetch("bob");
  ASSERT_TRUE(again);
  EXPECT_EQ(CallsOf({"bqueues", "-u", "bob", "-w"}), 1u);
  ASSERT_NE(Cache().Permissions("bob"), nullptr);
  EXPECT_EQ(Cache().Permissions("alice"), nullptr);
}

TEST_F(ClusterCacheTest, FetchesDifferentUsersIndependently) {
  ASSERT_TRUE(Fetch("alice"));
  ASSERT_TRUE(Fetch("bob"));
  EXPECT_THAT(Cache().Permissions("alice")->queues, UnorderedElementsAre("normal", "small"));
  EXPECT_THAT(Cache().Permissions("bob")->queues, UnorderedElementsAre("normal"));
}

TEST_F(ClusterCacheTest, ReportsPermissionFetchFailureToEveryWaiter) {
  fake_.OnArgv({"bqueues", "-u", "bob", "-w"},
               FakeCommandRunner::Output("", "LSF is down. Please wait...\n", 255));
  fake_.HoldReplies();
  std::vector<Result<std::shared_ptr<const UserPermissions>>> got;
  for (int i = 0; i < 2; ++i) {
    Cache().FetchPermissions("bob", [&](auto r) { got.push_back(std::move(r)); });
  }
  fake_.ReleaseHeld();
  RunUntil([&] { return got.size() == 2; });
  for (const auto& r : got) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  }
  EXPECT_EQ(Cache().Permissions("bob"), nullptr);
  // The failure is not cached: the next fetch asks again.
  fake_.OnArgv({"bqueues", "-u", "bob", "-w"}, FakeCommandRunner::Output(kBqueuesUBobW));
  ASSERT_TRUE(Fetch("bob"));
  EXPECT_EQ(CallsOf({"bqueues", "-u", "bob", "-w"}), 2u);
}

TEST_F(ClusterCacheTest, RejectionLastsUntilNextSuccessfulTopologyRefresh) {
  RefusalMemory memory;
  ASSERT_TRUE(RefreshTopology());
  const SystemTime now = clock_.SystemNow();
  const auto refusals = [&](const std::string& user) {
    return memory.Refusals(*Cache().Current(), now, user, std::nullopt);
  };
  memory.RememberRefusal(*Cache().Current(), now, "alice", "small", std::nullopt,
                         lsf::BsubCause::kPermission, "User cannot use the queue");
  memory.RememberRefusal(*Cache().Current(), now, "bob", "normal", std::nullopt,
                         lsf::BsubCause::kQueueClosed, "Queue has been closed");
  ASSERT_EQ(refusals("alice").size(), 1u);
  EXPECT_THAT(refusals("alice").at("small").reason, ::testing::HasSubstr("User cannot use"));
  EXPECT_THAT(refusals("carol"), IsEmpty());

  ASSERT_TRUE(RefreshLoad());
  EXPECT_EQ(refusals("alice").size(), 1u) << "a load refresh keeps rejections";

  fake_.OnArgv(kTopologyQuery, FakeCommandRunner::Output("", "LSF is down.\n", 255));
  EXPECT_FALSE(RefreshTopology());
  EXPECT_EQ(refusals("alice").size(), 1u) << "a failed topology refresh keeps them";

  fake_.OnArgv(kTopologyQuery, FakeCommandRunner::Output(kBqueuesL));
  ASSERT_TRUE(RefreshTopology());
  EXPECT_THAT(refusals("alice"), IsEmpty());
  EXPECT_THAT(refusals("bob"), IsEmpty());
}

TEST_F(ClusterCacheTest, RateLimitsManualRefresh) {
  options_.min_manual_interval = 1h;
  EXPECT_EQ(Cache().RequestRefresh(), std::nullopt);
  RunUntil([&] { return Cache().Current()->complete(); });
  const std::size_t calls = fake_.CallCount();
  EXPECT_EQ(CallsOf(kLoadQuery), 1u);
  EXPECT_EQ(CallsOf(kTopologyQuery), 1u);

  const auto wait = Cache().RequestRefresh();
  ASSERT_TRUE(wait);
  EXPECT_GT(*wait, 0s);
  EXPECT_LE(*wait, 3600s);
  io_.restart();
  io_.poll();
  EXPECT_EQ(fake_.CallCount(), calls) << "a refused manual refresh runs nothing";
}

TEST_F(ClusterCacheTest, AllowsManualRefreshAfterInterval) {
  options_.min_manual_interval = 0ms;
  EXPECT_EQ(Cache().RequestRefresh(), std::nullopt);
  RunUntil([&] { return Cache().Current()->complete(); });
  EXPECT_EQ(Cache().RequestRefresh(), std::nullopt);
  RunUntil([&] { return CallsOf(kTopologyQuery) == 2 && CallsOf(kLoadQuery) == 2; });
}

constexpr char kLsloadIbOk[] =
    "HOST_NAME               status  ib_ok\n"
    "node001                     ok    1.0\n"
    "node068                     ok    0.0\n"
    "node003                unavail\n";

TEST_F(ClusterCacheTest, ReadsIbHealthFromLsloadWithEveryLoadRefresh) {
  options_.ib_from_lsload = true;
  fake_.OnArgv({"lsload", "-w", "-I", "ib_ok"}, FakeCommandRunner::Output(kLsloadIbOk));
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  RunUntil([&] { return Cache().Current()->ib != nullptr; });
  const auto snapshot = Cache().Current();
  ASSERT_TRUE(snapshot->ib);
  EXPECT_EQ(snapshot->ib->source, "lsload");
  EXPECT_EQ(HostIbVerdict(snapshot->ib.get(), "node001"), IbHealth::kHealthy);
  EXPECT_EQ(HostIbVerdict(snapshot->ib.get(), "node068"), IbHealth::kUnhealthy);
  EXPECT_EQ(HostIbVerdict(snapshot->ib.get(), "node003"), IbHealth::kUnknown);
  EXPECT_EQ(CallsOf({"lsload", "-w", "-I", "ib_ok"}), 1u);
}

TEST_F(ClusterCacheTest, LsloadFailureKeepsLoadAndLastHealthWithTheError) {
  options_.ib_from_lsload = true;
  fake_.OnArgv({"lsload", "-w", "-I", "ib_ok"}, FakeCommandRunner::Output(kLsloadIbOk));
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  RunUntil([&] { return Cache().Current()->ib != nullptr; });
  fake_.OnArgv({"lsload", "-w", "-I", "ib_ok"},
               FakeCommandRunner::Output("", "lsload: Unknown resource name ib_ok\n", 255));
  ASSERT_TRUE(RefreshLoad());
  RunUntil([&] { return !Cache().Current()->ib->last_error.empty(); });
  const auto snapshot = Cache().Current();
  EXPECT_EQ(snapshot->load_status.consecutive_failures, 0);
  ASSERT_TRUE(snapshot->ib);
  EXPECT_THAT(snapshot->ib->last_error, HasSubstr("Unknown resource name ib_ok"));
  EXPECT_EQ(HostIbVerdict(snapshot->ib.get(), "node068"), IbHealth::kUnhealthy);
}

TEST_F(ClusterCacheTest, OldIbVerdictsBecomeUnknownWhileLsloadKeepsFailing) {
  options_.ib_from_lsload = true;
  options_.load_interval = 1ms;  // every verdict is "old" at the next failed read
  fake_.OnArgv({"lsload", "-w", "-I", "ib_ok"}, FakeCommandRunner::Output(kLsloadIbOk));
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  RunUntil([&] { return Cache().Current()->ib != nullptr; });
  fake_.OnArgv({"lsload", "-w", "-I", "ib_ok"}, FakeCommandRunner::TimedOut());
  clock_.Advance(5ms);
  ASSERT_TRUE(RefreshLoad());
  RunUntil([&] { return !Cache().Current()->ib->last_error.empty(); });
  const auto snapshot = Cache().Current();
  EXPECT_EQ(HostIbVerdict(snapshot->ib.get(), "node068"), IbHealth::kUnknown);
  EXPECT_THAT(snapshot->ib->Find("node068")->reasons[0], HasSubstr("older than 3 load refreshes"));
}

// Several login nodes: a burst of submissions is followed by one load
// refresh soon, not one per job, and not one load interval later.
TEST_F(ClusterCacheTest, SubmissionsBringOneLoadRefreshPerGap) {
  options_.load_interval = 15000ms;
  options_.topology_interval = 300000ms;
  options_.load_after_submit = 2000ms;
  const auto load_runs = [&] { return Cache().Current()->load_status.successes; };
  // Runs the io_context until `runs` load refreshes have published, then
  // whatever else is ready (the finished run schedules its successor).
  const auto until_runs = [&](std::uint64_t runs) {
    RunUntil([&] { return load_runs() == runs; });
    io_.restart();
    io_.poll();
  };
  Cache().Start();
  until_runs(1);

  // Within the gap of the start-up refresh: one run, at the end of the gap,
  // for the whole burst.
  clock_.Advance(500ms);
  for (int i = 0; i < 20; ++i) Cache().AfterSubmission();
  io_.restart();
  io_.poll();
  EXPECT_EQ(CallsOf(kLoadQuery), 1u) << "sooner than load_after_submit after the last run";
  clock_.Advance(1500ms);
  until_runs(2);
  EXPECT_EQ(CallsOf(kLoadQuery), 2u);
  EXPECT_EQ(CallsOf({"bhosts", "-w"}), 2u);

  // Submissions that go on: one run per gap; once they stop, the interval.
  clock_.Advance(2000ms);
  Cache().AfterSubmission();
  until_runs(3);
  clock_.Advance(14000ms);
  io_.restart();
  io_.poll();
  EXPECT_EQ(CallsOf(kLoadQuery), 3u) << "no submission: the next run is one interval later";
  clock_.Advance(1000ms);
  until_runs(4);
  EXPECT_EQ(CallsOf(kLoadQuery), 4u);
  Cache().Stop();
}

TEST_F(ClusterCacheTest, SubmissionsBringNoRefreshWhenOffOrStopped) {
  options_.load_after_submit = 0ms;
  Cache().AfterSubmission();
  io_.restart();
  io_.poll();
  EXPECT_EQ(fake_.CallCount(), 0u) << "off";

  options_.load_after_submit = 2000ms;
  cache_.reset();
  Cache().AfterSubmission();
  io_.restart();
  io_.poll();
  EXPECT_EQ(fake_.CallCount(), 0u) << "before Start";
}

TEST_F(ClusterCacheTest, DoesNotRunLsloadWithoutTheLsloadSource) {
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  EXPECT_EQ(CallsOf({"lsload", "-w", "-I", "ib_ok"}), 0u);
  EXPECT_FALSE(Cache().Current()->ib);
}

TEST_F(ClusterCacheTest, LocalIbHealthIsPublishedAndCounted) {
  ASSERT_TRUE(RefreshTopology());
  ASSERT_TRUE(RefreshLoad());
  HostIbHealth health;
  health.health = IbHealth::kUnhealthy;
  health.reasons = {"mlx5_0 port 1: state DOWN"};
  auto state = std::make_shared<IbHealthState>();
  state->source = "local";
  state->hosts.insert_or_assign("node001", health);
  Cache().store().Publish([&](ClusterSnapshot& snapshot) { snapshot.ib = state; });
  RunUntil([&] { return Cache().Current()->ib != nullptr; });
  const auto snapshot = Cache().Current();
  ASSERT_TRUE(snapshot->ib);
  EXPECT_EQ(snapshot->ib->source, "local");
  EXPECT_EQ(HostIbVerdict(snapshot->ib.get(), "node001"), IbHealth::kUnhealthy);
  std::int64_t unhealthy = 0;
  for (const auto& [queue, counts] : snapshot->host_counts) unhealthy += counts.ib_unhealthy;
  EXPECT_GT(unhealthy, 0);
}

}  // namespace
}  // namespace bplace
