// GET /v1/placement answers served from PlacementAnswerCache (docs/design.md
// "Site scale"): the template and its ages, the bound, and, through the route
// on the fixture's daemon, byte equality with the uncached path at the same
// ManualClock time and a new answer after each input changes.

#include "api/placement_answer_cache.h"

#include <stdlib.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/http/problem.h"
#include "api/json_mapping.h"
#include "api/routes_placement.h"
#include "common/metrics.h"
#include "daemon/daemon_metrics.h"
#include "lsf_adapter/group_parser.h"
#include "tests/api/handlers_fixture.h"
#include "tests/fakes/capture_command.h"

namespace bplace::api::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;
namespace http = boost::beast::http;

const Request kGet{http::verb::get, "/v1/placement", 11};
const SystemTime kT0{std::chrono::seconds(1'800'000'000)};

// --- BodyTemplate -------------------------------------------------------------

TEST(BodyTemplateTest, RendersAgesExactlyAsTheDomDumpAtEveryTime) {
  json body = {{"user", "alice"},
               {"age_s", 0.0},
               {"topology_age_s", 0.0},
               {"host_ib", {{"age_s", 0.0}, {"health", "healthy"}}},
               {"excluded", json::array({{{"queue", "qa"}, {"reason", "closed"}}})}};
  const SystemTime load_as_of = kT0 - 1234ms;
  const SystemTime topology_as_of = kT0 - 61s;
  const SystemTime ib_as_of = kT0 + 500ms;  // ahead of `now`: a negative age
  const std::string before = body.dump();
  auto made = BodyTemplate::Make(body, {{json::json_pointer("/age_s"), load_as_of},
                                        {json::json_pointer("/topology_age_s"), topology_as_of},
                                        {json::json_pointer("/host_ib/age_s"), ib_as_of}});
  ASSERT_TRUE(made);
  EXPECT_EQ(body.dump(), before) << "Make leaves the body as it was";
  for (const auto step : {0ms, 1ms, 999ms, 1000ms, 86'400'000ms, 3'000'000'000'000ms}) {
    const SystemTime now = kT0 + step;
    json want = body;
    want["age_s"] = AgeSeconds(load_as_of, now);
    want["topology_age_s"] = AgeSeconds(topology_as_of, now);
    want["host_ib"]["age_s"] = AgeSeconds(ib_as_of, now);
    EXPECT_EQ(made->Render(now), DumpJson(want)) << step.count() << " ms";
  }
}

TEST(BodyTemplateTest, RefusesABodyWhoseStringsContainASentinelsText) {
  // The first sentinel's text, as a queue description might hold it.
  json body = {{"age_s", 1.5}, {"note", json(-8.125e307).dump()}};
  EXPECT_FALSE(BodyTemplate::Make(body, {{json::json_pointer("/age_s"), kT0}}));
  EXPECT_EQ(body["age_s"], 1.5);
}

TEST(BodyTemplateTest, RefusesAMissingOrNonNumericField) {
  json body = {{"age_s", nullptr}};
  EXPECT_FALSE(BodyTemplate::Make(body, {{json::json_pointer("/age_s"), kT0}}));
  EXPECT_FALSE(BodyTemplate::Make(body, {{json::json_pointer("/nope"), kT0}}));
  EXPECT_TRUE(body["age_s"].is_null());
}

// --- PlacementAnswerCache alone -------------------------------------------------

std::shared_ptr<PlacementAnswer> AnswerOf(std::size_t body_bytes, std::uint64_t generation = 1) {
  json body = {{"age_s", 0.0}, {"pad", std::string(body_bytes, 'x')}};
  auto answer = std::make_shared<PlacementAnswer>();
  answer->body = *BodyTemplate::Make(body, {{json::json_pointer("/age_s"), kT0}});
  answer->stamp.snapshot_generation = generation;
  answer->placed_at = kT0;
  return answer;
}

TEST(PlacementAnswerCacheTest, KeysKeepQueueOrderAndTellFieldsApart) {
  PlacementRequest a;
  a.user = "alice";
  a.queues = {"qa", "qb"};
  PlacementRequest b = a;
  b.queues = {"qb", "qa"};
  PlacementRequest c = a;
  c.queues = {"qaqb"};
  PlacementRequest d = a;
  d.host = "";
  PlacementRequest e = a;
  e.slots = 2;
  PlacementRequest f = a;
  f.require_ib = true;
  PlacementRequest g = a;
  g.user = "alice1";
  g.queues = {"qa", "qb"};
  const std::vector<std::string> keys = {PlacementAnswerCache::Key(a), PlacementAnswerCache::Key(b),
                                         PlacementAnswerCache::Key(c), PlacementAnswerCache::Key(d),
                                         PlacementAnswerCache::Key(e), PlacementAnswerCache::Key(f),
                                         PlacementAnswerCache::Key(g)};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = i + 1; j < keys.size(); ++j) EXPECT_NE(keys[i], keys[j]) << i << " " << j;
  }
  EXPECT_EQ(PlacementAnswerCache::Key(a), PlacementAnswerCache::Key(PlacementRequest(a)));
}

TEST(PlacementAnswerCacheTest, StaysWithinItsByteBoundDroppingTheLeastRecentlyUsed) {
  const auto probe = AnswerOf(10'000);
  const std::size_t entry = PlacementAnswerCache::EntryBytes("k00", *probe);
  PlacementAnswerCache cache(entry * 5 + entry / 2);  // room for five
  for (int i = 0; i < 20; ++i) {
    cache.Insert("k" + std::to_string(100 + i), AnswerOf(10'000));
    // k100 is used after every insertion: it stays, the others rotate out.
    EXPECT_TRUE(cache.Find("k100", probe->stamp, kT0)) << i;
    EXPECT_LE(cache.stats().bytes, entry * 5 + entry / 2);
  }
  const auto stats = cache.stats();
  EXPECT_EQ(stats.entries, 5u);
  EXPECT_EQ(stats.insertions, 20u);
  EXPECT_EQ(stats.evictions, 15u);
  EXPECT_FALSE(cache.Find("k101", probe->stamp, kT0));
  EXPECT_TRUE(cache.Find("k119", probe->stamp, kT0));
  // One answer larger than the whole bound is not stored.
  cache.Insert("huge", AnswerOf(entry * 6));
  EXPECT_FALSE(cache.Find("huge", probe->stamp, kT0));
  EXPECT_LE(cache.stats().bytes, entry * 5 + entry / 2);
}

TEST(PlacementAnswerCacheTest, DropsEveryAnswerOfAnOlderSnapshotWhenANewerOneIsStored) {
  PlacementAnswerCache cache;
  cache.Insert("a", AnswerOf(100, 1));
  cache.Insert("b", AnswerOf(100, 1));
  EXPECT_EQ(cache.stats().entries, 2u);
  cache.Insert("c", AnswerOf(100, 2));
  EXPECT_EQ(cache.stats().entries, 1u);
  // An answer computed from the older snapshot, stored late: dead on arrival.
  cache.Insert("d", AnswerOf(100, 1));
  EXPECT_EQ(cache.stats().entries, 1u);
}

TEST(PlacementAnswerCacheTest, MissesOutsideTheAnswersTimeWindow) {
  PlacementAnswerCache cache;
  auto answer = AnswerOf(100);
  answer->valid_until = kT0 + 10s;
  const PlacementStamp stamp = answer->stamp;
  cache.Insert("a", answer);
  EXPECT_TRUE(cache.Find("a", stamp, kT0 + 9999ms));
  EXPECT_FALSE(cache.Find("a", stamp, kT0 + 10s));
  cache.Insert("a", answer);
  EXPECT_FALSE(cache.Find("a", stamp, kT0 - 1ms)) << "the wall clock stepped back";
}

TEST(PlacementAnswerCacheTest, ConcurrentLookupsAndInsertionsStayWithinTheBound) {
  const std::size_t entry = PlacementAnswerCache::EntryBytes("u-0-0000", *AnswerOf(1000));
  PlacementAnswerCache cache(entry * 8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        // The snapshot generation moves on every 500 rounds, as refreshes
        // would; the threads reach it at different times.
        const auto answer = AnswerOf(1000, 1 + static_cast<std::uint64_t>(i / 500));
        if (const auto found = cache.Find("hot", answer->stamp, kT0)) {
          EXPECT_EQ(found->stamp, answer->stamp);
          EXPECT_FALSE(found->body.Render(kT0 + std::chrono::milliseconds(i)).empty());
        } else {
          cache.Insert("hot", answer);
        }
        // A key never asked again: pushes the others out.
        cache.Insert("u-" + std::to_string(t) + "-" + std::to_string(1000 + i), answer);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const auto stats = cache.stats();
  EXPECT_LE(stats.bytes, entry * 8);
  EXPECT_LE(stats.entries, 8u);
  EXPECT_GT(stats.hits, 0u);
  EXPECT_GT(stats.evictions, 0u);
}

// --- Through GET /v1/placement ------------------------------------------------

class PlacementAnswerRouteTest : public HandlersTest {
 protected:
  PlacementAnswerRouteTest() {
    services_.placement_answers = &answers_;
    submitter_.SetWaitModel(&waits_);
  }

  // Teaches the wait model `count` waits of `queue`, `base_s` seconds and
  // up, of jobs that could start at once (dispatch delays) or not.
  void LearnWaits(const std::string& queue, int count, std::int64_t base_s,
                  bool could_start = false) {
    for (int i = 0; i < count; ++i) {
      WaitObservation wait;
      wait.queue = queue;
      wait.could_start_at_submit = could_start;
      wait.submitted = clock_.SystemNow() - std::chrono::hours(1);
      wait.started = wait.submitted + std::chrono::seconds(base_s + (i * 53) % 600);
      waits_.Observe(wait);
    }
  }

  // GET /v1/placement?`query` as the daemon's user (admin), cache on.
  Response Cached(const std::string& query) {
    return GetPlacement(services_, DaemonUser(), kGet, Query(query));
  }

  // The same through the route without a cache.
  Response Uncached(const std::string& query) {
    Services plain = services_;
    plain.placement_answers = nullptr;
    return GetPlacement(plain, DaemonUser(), kGet, Query(query));
  }

  // The body as GET /v1/placement made it before the cache existed:
  // DryRun, then PlacementJson and AddAge of the current snapshot at the
  // services' clock.
  std::string Reference(const std::string& query) {
    auto request = ParsePlacementQuery(Query(query), "alice", services_.ib().require_ib,
                                       services_.options.request.max_slots);
    if (!request) return MakeProblem(request.error()).body();
    auto placement = submitter_.DryRun(*request);
    if (!placement) return MakeProblem(placement.error()).body();
    const auto snapshot = cache_.Current();
    const SystemTime now = clock_.SystemNow();
    json body = PlacementJson(*request, *placement, snapshot->ib.get(), now);
    AddAge(body, *snapshot, now);
    return MakeJson(200, body).body();
  }

  // The cached answer for `query` equals the reference; returns it.
  std::string ExpectCurrent(const std::string& query, const std::string& where = "") {
    const Response response = Cached(query);
    const std::string want = Reference(query);
    EXPECT_EQ(response.body(), want) << query << " " << where;
    EXPECT_EQ(Uncached(query).body(), want) << query << " " << where;
    return response.body();
  }

  WaitModel waits_;
  PlacementAnswerCache answers_;
};

TEST_F(PlacementAnswerRouteTest, ARepeatedAnswerIsServedWithoutPlacing) {
  Ready();
  const std::string first = ExpectCurrent("host=node001");
  const std::uint64_t placed = submitter_.placements_computed();
  const std::uint64_t hits = answers_.stats().hits;
  const Response again = Cached("host=node001");
  EXPECT_EQ(again.result_int(), 200u);
  EXPECT_EQ(Header(again, http::field::content_type), "application/json");
  EXPECT_EQ(again.body(), first);
  EXPECT_EQ(submitter_.placements_computed(), placed);
  EXPECT_EQ(answers_.stats().hits, hits + 1);
  // Another request is another key.
  ExpectCurrent("host=node002");
  EXPECT_GT(submitter_.placements_computed(), placed);
}

TEST_F(PlacementAnswerRouteTest, AgesMoveWithTheClockOnAHit) {
  Ready();
  const json first = Body(Cached("host=node001"));
  clock_.Advance(2500ms);
  const std::uint64_t placed = submitter_.placements_computed();
  const std::string later = Cached("host=node001").body();
  EXPECT_EQ(submitter_.placements_computed(), placed) << "a hit";
  EXPECT_EQ(later, Reference("host=node001"));
  EXPECT_DOUBLE_EQ(json::parse(later)["age_s"].get<double>(), first["age_s"].get<double>() + 2.5);
  EXPECT_DOUBLE_EQ(json::parse(later)["topology_age_s"].get<double>(),
                   first["topology_age_s"].get<double>() + 2.5);
}

TEST_F(PlacementAnswerRouteTest, ANewSnapshotGivesTheNewAnswer) {
  Ready();
  const std::string before = ExpectCurrent("");
  // qa now has the most pending: another queue is chosen.
  fake_.OnArgv(
      {"bqueues", "-w"},
      FakeCommandRunner::Output(
          "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
          "qa               30  Open:Active       -    -    -    -    50    50     0     0\n"
          "qb               30  Open:Active       -    -    -    -     4     4     0     0\n"
          "qc               30  Open:Active       -    -    -    -    10    10     0     0\n"));
  ASSERT_TRUE(RunRefresh(&ClusterCache::RefreshLoad));
  const std::string after = ExpectCurrent("");
  EXPECT_NE(after, before);
  EXPECT_EQ(Body(Response(Cached(""))).value("chosen", ""), "qb");
}

TEST_F(PlacementAnswerRouteTest, ALedgerReserveAndFinishGiveTheNewAnswer) {
  Ready();
  const std::string before = ExpectCurrent("queue=qa");
  const auto ticket = ledger_.Reserve("qa", 7);
  const std::string reserved = ExpectCurrent("queue=qa");
  EXPECT_NE(reserved, before);
  EXPECT_EQ(Body(Cached("queue=qa"))["candidates"][0]["inflight"], 7);
  ledger_.Finish(ticket, false, clock_.SteadyNow());
  EXPECT_EQ(ExpectCurrent("queue=qa"), before);
}

TEST_F(PlacementAnswerRouteTest, ARememberedRefusalGivesTheNewAnswer) {
  Ready();
  EXPECT_THAT(ExpectCurrent("queue=qa"), Not(HasSubstr("rejected_by_lsf")));
  memory_.RememberRefusal(*cache_.Current(), clock_.SystemNow(), "alice", "qa", std::nullopt,
                          lsf::BsubCause::kPermission, "User alice cannot use queue qa");
  EXPECT_THAT(ExpectCurrent("queue=qa"), HasSubstr("rejected_by_lsf"));
}

TEST_F(PlacementAnswerRouteTest, ARefusalThatEndsByTimeAloneGivesTheNewAnswer) {
  Ready();
  memory_.RememberRefusal(*cache_.Current(), clock_.SystemNow(), "alice", "qa", std::nullopt,
                          lsf::BsubCause::kEsub, "esub: not in this queue");
  const std::string refused = ExpectCurrent("queue=qa");
  EXPECT_THAT(refused, HasSubstr("rejected_by_lsf"));
  // Just before the esub memory ends: still the refusal, from the cache.
  clock_.Advance(SubmitterOptions{}.esub_refusal_memory - 1ms);
  EXPECT_THAT(ExpectCurrent("queue=qa"), HasSubstr("rejected_by_lsf"));
  EXPECT_EQ(answers_.stats().hits, 1u);
  // Nothing but time changed, and the refusal is over.
  clock_.Advance(1ms);
  EXPECT_THAT(ExpectCurrent("queue=qa"), Not(HasSubstr("rejected_by_lsf")));
}

TEST_F(PlacementAnswerRouteTest, ANewWaitGivesTheNewAnswer) {
  Ready();
  const std::string before = ExpectCurrent("queue=qa");
  // qa has room: the job starts now, bounded by qa's dispatch delays
  // (none known yet: the allowance).
  EXPECT_EQ(json::parse(before)["candidates"][0]["expected_start"]["method"], "starts_now");
  EXPECT_EQ(json::parse(before)["candidates"][0]["expected_start"]["samples"], 0);
  const std::uint64_t placed = submitter_.placements_computed();
  // The only input that changes: one dispatch delay of qa learned, of 120 s.
  LearnWaits("qa", 1, 120, /*could_start=*/true);
  const std::string after = ExpectCurrent("queue=qa");
  EXPECT_GT(submitter_.placements_computed(), placed) << "not served from the cache";
  EXPECT_NE(after, before);
  const json expected = json::parse(after)["candidates"][0]["expected_start"];
  EXPECT_EQ(expected["samples"], 1);
  EXPECT_EQ(expected["bound_s"], 120);
}

TEST_F(PlacementAnswerRouteTest, APolicyReloadGivesTheNewAnswer) {
  Ready();
  EXPECT_THAT(ExpectCurrent(""), Not(HasSubstr("excluded_by_config")));
  SubmitterOptions options = submitter_.options();
  options.excluded_queues = {"qa"};
  submitter_.SetOptions(options);
  EXPECT_THAT(ExpectCurrent(""), HasSubstr("excluded_by_config"));
}

TEST_F(PlacementAnswerRouteTest, NewPermissionsGiveTheNewAnswer) {
  Ready();
  EXPECT_THAT(ExpectCurrent(""), HasSubstr("\"permission_source\":\"users_line\""));
  bool fetched = false;
  cache_.FetchPermissions("alice", [&](auto) { fetched = true; });
  RunUntil([&] { return fetched; });
  EXPECT_THAT(ExpectCurrent(""), HasSubstr("\"permission_source\":\"lsf\""));
}

TEST_F(PlacementAnswerRouteTest, ErrorsAreNotCached) {
  Ready();
  EXPECT_EQ(Cached("host=nosuchhost").result_int(), 404u);
  EXPECT_EQ(Cached("host=nosuchhost").body(), Reference("host=nosuchhost"));
  EXPECT_EQ(answers_.stats().insertions, 0u);
}

TEST_F(PlacementAnswerRouteTest, EveryAnswerIsCountedHitsIncluded) {
  metrics::Registry registry;
  DaemonMetrics counted(registry);
  services_.daemon_metrics = &counted;
  Ready();
  for (int i = 0; i < 3; ++i) Cached("queue=qb");
  Cached("host=nosuchhost");
  EXPECT_EQ(answers_.stats().hits, 2u);
  const std::string text = registry.Render();
  EXPECT_THAT(text, HasSubstr("bplace_placements_total{outcome=\"placed\",queue=\"qb\"} 3"));
  EXPECT_THAT(text, HasSubstr("bplace_placements_total{outcome=\"not_found\",queue=\"\"} 1"));
}

// --- The generated big cluster --------------------------------------------------

// The LSF output of `lsfsim generate --queues 300 --hosts 5000
// --host-groups 200` (every HOSTS token kind, nested groups), made once.
struct GeneratedCluster {
  std::string bqueues_w, bqueues_l, bmgroup, bugroup, bhosts;
  std::string permitted_user, bqueues_u;  // one user's `bqueues -u USER -w`
};

const GeneratedCluster& Generated() {
  static const GeneratedCluster cluster = [] {
    GeneratedCluster c;
    std::string dir = (std::filesystem::temp_directory_path() / "bplace-answers-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) return c;
    const std::string bin = LSFSIM_BIN_DIR;
    const std::string generate = bin + "/lsfsim generate --queues 300 --hosts 5000 " +
                                 "--host-groups 200 > " + dir + "/cluster.toml";
    const std::string init =
        bin + "/lsfsim init --cluster " + dir + "/cluster.toml --state " + dir + "/lsf >/dev/null";
    if (std::system(generate.c_str()) == 0 && std::system(init.c_str()) == 0) {
      const std::string env = "LSF_ENVDIR=" + dir + "/lsf " + bin + "/";
      c.bqueues_w = bplace::testing::CaptureCommand(env + "bqueues -w");
      c.bqueues_l = bplace::testing::CaptureCommand(env + "bqueues -l");
      c.bmgroup = bplace::testing::CaptureCommand(env + "bmgroup -w");
      c.bugroup = bplace::testing::CaptureCommand(env + "bugroup -w");
      c.bhosts = bplace::testing::CaptureCommand(env + "bhosts -w");
      if (auto groups = lsf::ParseBugroup(c.bugroup); groups && !groups->empty()) {
        for (const std::string& member : groups->front().members) {
          if (member.empty() || member.back() == '/' || member.front() == '~') continue;
          c.permitted_user = member;
          c.bqueues_u = bplace::testing::CaptureCommand(env + "bqueues -u " + member + " -w");
          break;
        }
      }
    }
    std::filesystem::remove_all(dir);
    return c;
  }();
  return cluster;
}

class GeneratedClusterAnswerTest : public PlacementAnswerRouteTest {
 protected:
  GeneratedClusterAnswerTest() {
    const GeneratedCluster& c = Generated();
    fake_.OnArgv({"bqueues", "-w"}, FakeCommandRunner::Output(c.bqueues_w));
    fake_.OnArgv({"bqueues", "-l"}, FakeCommandRunner::Output(c.bqueues_l));
    fake_.OnArgv({"bmgroup", "-w"}, FakeCommandRunner::Output(c.bmgroup));
    fake_.OnArgv({"bugroup", "-w"}, FakeCommandRunner::Output(c.bugroup));
    fake_.OnArgv({"bhosts", "-w"}, FakeCommandRunner::Output(c.bhosts));
    fake_.OnArgv({"bqueues", "-u", c.permitted_user, "-w"}, FakeCommandRunner::Output(c.bqueues_u));
  }

  // Publishes an lsload reading: a third of the hosts unhealthy, a third
  // healthy (both read 3 s ago), the rest unknown.
  void PublishIb() {
    const auto load = cache_.Current()->load;
    auto ib = std::make_shared<IbHealthState>();
    ib->source = "lsload";
    ib->as_of = clock_.SystemNow() - 3s;
    for (std::size_t i = 0; i < load->hosts.size(); ++i) {
      if (i % 3 == 2) continue;
      HostIbHealth entry;
      entry.health = i % 3 == 0 ? IbHealth::kUnhealthy : IbHealth::kHealthy;
      if (i % 3 == 0) entry.reasons = {"ib_ok is 0 (lsload)"};
      entry.as_of = ib->as_of - std::chrono::milliseconds(i);
      ib->hosts.insert_or_assign(load->hosts[i].name, std::move(entry));
    }
    cache_.store().Publish([&](ClusterSnapshot& snapshot) { snapshot.ib = ib; });
  }
};

TEST_F(GeneratedClusterAnswerTest, CachedAnswersEqualTheUncachedBytesFirstAgainAndLater) {
  const GeneratedCluster& c = Generated();
  ASSERT_FALSE(c.bhosts.empty()) << "lsfsim generate failed";
  ASSERT_FALSE(c.permitted_user.empty());
  Ready();
  PublishIb();
  bool fetched = false;
  cache_.FetchPermissions(c.permitted_user, [&](auto) { fetched = true; });
  RunUntil([&] { return fetched; });
  const auto snapshot = cache_.Current();
  ASSERT_GE(snapshot->topology->queues().size(), 300u);
  ASSERT_GE(snapshot->load->hosts.size(), 5000u);
  // Waits for some queues: the answers carry QBETS bounds, bounds from few
  // waits and no history, which rank queues of equal backlog share.
  const auto& named = snapshot->topology->queues();
  for (std::size_t q = 0; q < named.size(); q += 4) {
    LearnWaits(named[q].definition.name, q % 8 == 0 ? 70 : 4, static_cast<std::int64_t>(q));
  }

  const std::vector<std::string> users = {"alice", c.permitted_user, "nobody_listed"};
  std::vector<std::string> hosts = {"", "no_such_host"};
  for (std::size_t i = 0; i < snapshot->load->hosts.size(); i += 1249) {
    hosts.push_back(snapshot->load->hosts[i].name);
  }
  const auto& queues = snapshot->topology->queues();
  const std::string some_queues = "queue=" + queues[7].definition.name + "," +
                                  queues[3].definition.name + "," + queues[250].definition.name;
  std::vector<std::string> targets;
  for (const std::string& user : users) {
    for (const std::string& host : hosts) {
      for (const char* ib : {"require_ib=false", "require_ib=true"}) {
        for (const std::string& queue_list : {std::string(), some_queues}) {
          for (const char* slots : {"slots=1", "slots=64"}) {
            std::string query = "user=" + user + "&" + ib + "&" + slots;
            if (!host.empty()) query += "&host=" + host;
            if (!queue_list.empty()) query += "&" + queue_list;
            targets.push_back(query);
          }
        }
      }
    }
  }
  int ok = 0;
  for (const std::string& target : targets) {
    const std::string first = ExpectCurrent(target, "first");
    ok += first.find("\"candidates\"") != std::string::npos;
    const std::uint64_t placed = submitter_.placements_computed();
    EXPECT_EQ(Cached(target).body(), first) << target << " again";
    if (first.find("\"candidates\"") != std::string::npos) {
      EXPECT_EQ(submitter_.placements_computed(), placed) << target << " again: a hit";
    }
  }
  EXPECT_GT(ok, static_cast<int>(targets.size()) / 2);
  EXPECT_THAT(Cached(targets.back()).body(), HasSubstr("\"host_ib\":{\"age_s\":"));
  clock_.Advance(1501ms);
  const std::uint64_t hits = answers_.stats().hits;
  for (const std::string& target : targets) ExpectCurrent(target, "later");
  EXPECT_EQ(answers_.stats().hits - hits, static_cast<std::uint64_t>(ok));
}

}  // namespace
}  // namespace bplace::api::testing
