// The daemon's lsb.events reading (lsf_adapter/lsb_events_parser.h through
// daemon/placement/event_log_tail.h) against the event log the LSF
// simulator writes, in LSF 10.1's layout and in OpenLava's: two sides
// written apart (the simulator shares no code with the daemon) must agree
// on every job's queue, slots, submission and start, across a log switch.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include "daemon/placement/event_log_tail.h"

namespace bplace {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCluster = R"toml(
[cluster]
name = "evc"
master = "m1"
%EVENT_LOG%

[[host]]
name = "node[01-02]"
max = 4

[[queue]]
name = "short"
priority = 40

[[queue]]
name = "normal"
priority = 30
default = true
)toml";

class EventLogLsfsimTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("event_log_lsfsim_" + std::to_string(::getpid()) + "_" + std::string(GetParam()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::string toml = kCluster;
    toml.replace(toml.find("%EVENT_LOG%"), 11, std::string("event_log = \"") + GetParam() + "\"");
    std::ofstream(dir_ / "cluster.toml") << toml;
    Run("lsfsim init --state " + (dir_ / "env").string() + " --cluster " +
        (dir_ / "cluster.toml").string() + " > /dev/null");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Run(const std::string& command, const char* now = "1764502800") {
    const std::string line = "LSF_ENVDIR=" + (dir_ / "env").string() + " LSFSIM_NOW=" + now +
                             " TZ=UTC " + LSFSIM_BIN_DIR + "/" + command + " > /dev/null";
    ASSERT_EQ(std::system(line.c_str()), 0) << line;
  }
  fs::path Log() const { return dir_ / "env/work/evc/logdir/lsb.events"; }

  fs::path dir_;
};

struct Seen {
  std::string queue;
  std::int64_t slots = 0;
  std::int64_t submitted = 0;
  std::map<std::int64_t, std::int64_t> starts;  // array index -> start time
  int news = 0;
  int ends = 0;
};

void Collect(const EventLogBatch& batch, std::map<std::int64_t, Seen>& jobs) {
  EXPECT_TRUE(batch.errors.empty()) << batch.errors.front();
  for (const auto& event : batch.events) {
    if (const auto* job = std::get_if<lsf::JobNewRecord>(&event.body)) {
      Seen& seen = jobs[job->job_id];
      seen.queue = job->queue;
      seen.slots = job->num_processors;
      seen.submitted = job->submit_time;
      ++seen.news;
    } else if (const auto* start = std::get_if<lsf::JobStartRecord>(&event.body)) {
      EXPECT_TRUE(jobs[start->job_id].starts.emplace(start->array_index, event.event_time).second)
          << "second JOB_START for " << start->job_id << "[" << start->array_index << "]";
    } else if (const auto* status = std::get_if<lsf::JobStatusRecord>(&event.body)) {
      if (status->status == lsf::job_stat::kDone || status->status == lsf::job_stat::kExit) {
        ++jobs[status->job_id].ends;
      }
    }
  }
}

TEST_P(EventLogLsfsimTest, ReadsEveryJobOnceAcrossALogSwitch) {
  Run("bsub -q short -n 3 sleep 60");
  Run("bsub -J arr[1-2] sleep 60");
  EventLogTail tail(EventLogTailOptions{Log()});
  std::map<std::int64_t, Seen> jobs;
  Collect(tail.Poll(), jobs);
  Run("lsfsim schedule", "1764502830");
  Run("bsub -q short sleep 5", "1764502840");
  Run("lsfsim switch-events", "1764502850");  // jobs 1, 2 and 3 are copied into the new log
  Run("lsfsim schedule --finish", "1764502900");
  const auto batch = tail.Poll();
  EXPECT_TRUE(batch.rotated);
  EXPECT_FALSE(batch.lost);
  Collect(batch, jobs);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[1].queue, "short");
  EXPECT_EQ(jobs[1].slots, 3);
  EXPECT_EQ(jobs[1].submitted, 1764502800);
  EXPECT_EQ(jobs[1].starts, (std::map<std::int64_t, std::int64_t>{{0, 1764502830}}));
  EXPECT_EQ(jobs[2].queue, "normal");
  EXPECT_EQ(jobs[2].starts,
            (std::map<std::int64_t, std::int64_t>{{1, 1764502830}, {2, 1764502830}}));
  EXPECT_EQ(jobs[3].submitted, 1764502840);
  EXPECT_EQ(jobs[3].starts, (std::map<std::int64_t, std::int64_t>{{0, 1764502900}}));
  for (const auto& [id, seen] : jobs) {
    EXPECT_EQ(seen.news, 1) << id;  // the copies in the new log were skipped
  }
  EXPECT_EQ(jobs[1].ends + jobs[2].ends, 3);  // 1, 2[1], 2[2] finished at 1764502900
}

INSTANTIATE_TEST_SUITE_P(Formats, EventLogLsfsimTest, ::testing::Values("lsf10", "openlava"));

}  // namespace
}  // namespace bplace
