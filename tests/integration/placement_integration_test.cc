// Placement by expected start and the memory of refusals (docs/api.md
// "How bplace ranks queues", "Refusals bplace remembers"), with
// the real bplaced against the LSF simulator over HTTP on 127.0.0.1.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// n01-n02 serve `full`, whose MAX of 16 is taken by other users' jobs
// (background); n03-n04 serve `open` and `licensed`, whose esub refuses
// every job; n05-n08 serve `wide`, which has jobs pending ahead.
constexpr const char* kRankCluster = R"toml(
[cluster]
name = "rankc"
master = "n01"

[[host]]
name = "n[01-08]"
max = 8

[[queue]]
name = "full"
priority = 90
hosts = "n01 n02"
max = 16
background = { pend = 0, run = 16 }

[[queue]]
name = "licensed"
priority = 80
hosts = "n03 n04"
esub_reject = "esub: no licence for this queue"

[[queue]]
name = "open"
priority = 10
default = true
hosts = "n03 n04"

[[queue]]
name = "wide"
priority = 20
hosts = "n05 n06 n07 n08"
background = { pend = 6, run = 0 }
)toml";

// A cluster definition written to a file of its own for `lsfsim init`.
class DefinitionFile {
 public:
  explicit DefinitionFile(const std::string& toml) {
    char pattern[] = "/tmp/bplace-def-XXXXXX";
    const int fd = mkstemp(pattern);
    if (fd >= 0) close(fd);
    path_ = pattern;
    std::ofstream(path_) << toml;
  }
  ~DefinitionFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The order of docs/api.md "How bplace ranks queues", written from the doc
// as an oracle for what the daemon must choose: the numbers come from the
// daemon's own dry run, the order is recomputed here.
struct Ranked {
  std::string name;
  bool active = true;
  std::optional<long> free;
  long waiting = 0;
  long run = 0;
  long capacity = 1;
  int prio = 0;

  bool StartsNow(long slots) const {
    return active && (free ? *free >= waiting + slots : waiting == 0);
  }
  long SlotsToFree(long slots) const {
    return StartsNow(slots) ? 0 : std::max(0L, waiting + slots - free.value_or(0));
  }
};

bool Before(const Ranked& a, const Ranked& b, long slots) {
  if (a.active != b.active) return a.active;
  if (a.StartsNow(slots) != b.StartsNow(slots)) return a.StartsNow(slots);
  if (a.StartsNow(slots)) {
    const long room_a = a.free.value_or(1L << 40), room_b = b.free.value_or(1L << 40);
    return std::tie(a.waiting, room_b, a.run, b.prio, a.name) <
           std::tie(b.waiting, room_a, b.run, a.prio, b.name);
  }
  const long left = a.SlotsToFree(slots) * b.capacity, right = b.SlotsToFree(slots) * a.capacity;
  if (left != right) return left < right;
  return std::tie(a.waiting, a.run, b.prio, a.name) < std::tie(b.waiting, b.run, a.prio, b.name);
}

std::vector<Ranked> CandidatesOf(const json& placement) {
  std::vector<Ranked> queues;
  for (const json& c : placement["candidates"]) {
    Ranked q;
    q.name = c["queue"];
    q.active = c["status"].get<std::string>().find("Inact") == std::string::npos;
    if (!c["free_slots"].is_null()) q.free = c["free_slots"].get<long>();
    q.waiting = c["pend"].get<long>() + c["inflight"].get<long>();
    q.run = c["run"];
    q.capacity = c["capacity"];
    q.prio = c["prio"];
    queues.push_back(q);
  }
  return queues;
}

// Where `count` jobs of `slots` slots go, one after the other, as the doc
// order ranks them with each job's slots added to its queue's waiting ones.
std::map<std::string, int> PredictSpread(std::vector<Ranked> queues, int count, long slots) {
  std::map<std::string, int> spread;
  for (int i = 0; i < count; ++i) {
    auto best =
        std::min_element(queues.begin(), queues.end(),
                         [&](const Ranked& a, const Ranked& b) { return Before(a, b, slots); });
    ++spread[best->name];
    best->waiting += slots;
  }
  return spread;
}

std::string Job(int slots, const std::vector<std::string>& queues = {}) {
  json body{{"command", "sleep 60"}, {"slots", slots}};
  if (!queues.empty()) body["queues"] = queues;
  return body.dump();
}

// The entry of `queue` in `answer`'s excluded list (a pointer into
// `answer`, which must outlive it), or null.
const json* Excluded(const json& answer, const std::string& queue) {
  for (const json& e : answer["excluded"]) {
    if (e["queue"] == queue) return &e;
  }
  return nullptr;
}

class RankClusterTest : public ::testing::Test {
 protected:
  static DaemonSettings Defaults() {
    DaemonSettings settings;
    settings.limits = "";  // the shipped [limits] defaults
    return settings;
  }
  RankClusterTest()
      : definition_(kRankCluster), sim_(definition_.path()), daemon_(sim_, Defaults()) {}

  DefinitionFile definition_;
  SimCluster sim_;
  DaemonProcess daemon_;
};

TEST_F(RankClusterTest, TheFullQueueIsNotChosenWhileAFreeOneExists) {
  const HttpReply dry = daemon_.Get("/v1/placement?queue=full,open");
  ASSERT_EQ(dry.status, 200) << dry.body;
  const json placement = dry.Json();
  EXPECT_EQ(placement["chosen"], "open") << placement.dump(2);
  for (const json& c : placement["candidates"]) {
    if (c["queue"] == "full") {
      EXPECT_FALSE(c["starts_now"].get<bool>());
      EXPECT_EQ(c["limited_by"], "queue_max");
      EXPECT_EQ(c["free_slots"], 0);
    } else {
      EXPECT_TRUE(c["starts_now"].get<bool>());
    }
  }
  const HttpReply posted = daemon_.Post("/v1/jobs", Job(1, {"full", "open"}));
  ASSERT_EQ(posted.status, 201) << posted.body;
  EXPECT_EQ(posted.Json()["requested_queue"], "open");
}

TEST_F(RankClusterTest, AJobOverEveryLimitIsRefusedWithoutAnyBsub) {
  const long bsubs = sim_.Counts().value("bsub", 0L);
  const HttpReply posted = daemon_.Post("/v1/jobs", Job(17, {"full"}));
  EXPECT_EQ(posted.status, 409) << posted.body;
  const json answer = posted.Json();
  const json* full = Excluded(answer, "full");
  ASSERT_NE(full, nullptr) << posted.body;
  EXPECT_EQ((*full)["code"], "exceeds_limit");
  EXPECT_THAT((*full)["reason"].get<std::string>(), HasSubstr("MAX is 16"));
  EXPECT_EQ(sim_.Counts().value("bsub", 0L), bsubs);
}

TEST_F(RankClusterTest, AQueueWhoseEsubRefusedIsNotTriedAgainWithinItsMemory) {
  // licensed ranks above open (PRIO 80), so the first job tries it.
  const HttpReply first = daemon_.Post("/v1/jobs", Job(1, {"licensed", "open"}));
  ASSERT_EQ(first.status, 201) << first.body;
  const json answer = first.Json();
  EXPECT_EQ(answer["requested_queue"], "open");
  ASSERT_EQ(answer["attempts"].size(), 2u) << first.body;
  EXPECT_EQ(answer["attempts"][0]["queue"], "licensed");
  EXPECT_EQ(answer["attempts"][0]["outcome"], "esub_rejected");
  EXPECT_THAT(answer["attempts"][0]["message"].get<std::string>(), HasSubstr("no licence"));

  for (int i = 0; i < 3; ++i) {
    const HttpReply next = daemon_.Post("/v1/jobs", Job(1, {"licensed", "open"}));
    ASSERT_EQ(next.status, 201) << next.body;
    const json later = next.Json();
    ASSERT_EQ(later["attempts"].size(), 1u) << "licensed is not tried again: " << next.body;
    EXPECT_EQ(later["attempts"][0]["queue"], "open");
    const json* licensed = Excluded(later, "licensed");
    ASSERT_NE(licensed, nullptr) << next.body;
    EXPECT_EQ((*licensed)["code"], "rejected_by_lsf");
    EXPECT_EQ((*licensed)["cause"], "esub");
    EXPECT_TRUE((*licensed)["until"].is_string()) << licensed->dump();
  }
  // The dry run says the same, with until when.
  const json dry = daemon_.Get("/v1/placement").Json();
  const json* shown = Excluded(dry, "licensed");
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ((*shown)["cause"], "esub");
}

// 20 submissions fired back to back with the default config all get 201,
// and spread as docs/api.md "How bplace ranks queues" predicts.
TEST_F(RankClusterTest, TwentyBackToBackSubmissionsAtDefaultLimitsAllSucceedAndSpreadAsPredicted) {
  const std::vector<std::string> queues = {"full", "open", "wide"};
  const HttpReply dry = daemon_.Get("/v1/placement?queue=full,open,wide&slots=2");
  ASSERT_EQ(dry.status, 200) << dry.body;
  const std::map<std::string, int> expected = PredictSpread(CandidatesOf(dry.Json()), 20, 2);
  ASSERT_GE(expected.size(), 2u) << "the cluster should make a burst spread: " << dry.body;
  EXPECT_FALSE(expected.contains("full"));

  std::vector<std::thread> threads;
  std::vector<HttpReply> replies(20);
  for (std::size_t i = 0; i < replies.size(); ++i) {
    threads.emplace_back([&, i] { replies[i] = daemon_.Post("/v1/jobs", Job(2, queues)); });
  }
  for (auto& thread : threads) thread.join();
  std::map<std::string, int> actual;
  for (const HttpReply& reply : replies) {
    ASSERT_EQ(reply.status, 201) << reply.body;
    ++actual[reply.Json()["requested_queue"].get<std::string>()];
  }
  EXPECT_EQ(actual, expected);
}

}  // namespace
}  // namespace bplace::testing
