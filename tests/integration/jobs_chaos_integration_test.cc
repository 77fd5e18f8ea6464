// Chaos for the jobs tier (docs/api.md "Jobs: following and cancelling"): the simulator's bjobs
// misbehaves at random (exit 0 without the ids asked, other jobs only, "Job <N> is not found" for
// live jobs, garbage, cut output, a hang, slowness: lsfsim `fault --chaos`, tests/lsfsim/chaos.h)
// over many refreshes while jobs run, are suspended, lost and finish. bplace must never show a job
// finished before LSF says so, and once bjobs answers again every job's state in bplace must be
// LSF's. The seed is printed; BPLACE_CHAOS_SEED=N repeats a run. No wall-clock assertion: every
// wait is a number of jobs refreshes.

#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;

// One job as LSF has it (lsfsim jobs: the simulator's own table, which no
// fault touches) or as bplace shows it.
struct JobState {
  std::string status;
  int exit_code = 0;
  friend bool operator==(const JobState&, const JobState&) = default;
};

std::ostream& operator<<(std::ostream& out, const JobState& job) {
  return out << job.status << (job.status == "EXIT" ? "/" + std::to_string(job.exit_code) : "");
}

long long ChaosSeed() {
  if (const char* given = std::getenv("BPLACE_CHAOS_SEED"); given != nullptr && *given != '\0') {
    return std::atoll(given);
  }
  return static_cast<long long>(std::random_device{}() & 0x7fffffff);
}

std::map<std::string, JobState> LsfJobs(const SimCluster& sim) {
  const json table = json::parse(sim.Lsf({"lsfsim", "jobs"}).out, nullptr, false);
  std::map<std::string, JobState> jobs;
  if (!table.is_object()) return jobs;
  for (const json& job : table.value("jobs", json::array())) {
    jobs[std::to_string(job.value("id", 0LL))] = {job.value("status", ""),
                                                  job.value("exit_code", 0)};
  }
  return jobs;
}

// bplace's jobs after its next jobs refresh (a long poll: answered when the
// refresh ends, whatever its outcome), with the whole JSON of each.
std::map<std::string, json> BplaceJobsAfterARefresh(const DaemonProcess& daemon) {
  const HttpReply reply = daemon.Call("GET", "/v1/jobs?limit=1000&wait_s=30");
  std::map<std::string, json> jobs;
  EXPECT_EQ(reply.status, 200) << reply.body;
  for (const json& job : reply.Json().value("jobs", json::array())) jobs[job["id"]] = job;
  return jobs;
}

JobState StateOf(const json& job) {
  return {job.value("status", ""), job["exit_code"].is_number() ? job["exit_code"].get<int>() : 0};
}

// Fails when bplace shows a job finished that LSF has not finished the same
// way: the promise that holds whatever bjobs does.
void ExpectNothingFinishedEarly(const std::map<std::string, json>& shown,
                                const std::map<std::string, JobState>& lsf, int round) {
  for (const auto& [id, job] : shown) {
    EXPECT_NE(job.value("status", ""), "UNKNOWN") << "job " << id << ", round " << round;
    if (!job.value("terminal", false)) continue;
    const auto truth = lsf.find(id);
    ASSERT_NE(truth, lsf.end()) << id;
    EXPECT_EQ(StateOf(job), truth->second)
        << "job " << id << " shown finished before LSF said so, round " << round;
  }
}

// One random change of the cluster, as users, LSF and hosts make them.
void ChangeTheCluster(const SimCluster& sim, std::mt19937_64& rng) {
  const std::map<std::string, JobState> jobs = LsfJobs(sim);
  std::vector<std::string> ids;
  for (const auto& [id, job] : jobs) ids.push_back(id);
  const std::string id = ids[rng() % ids.size()];
  const std::string status = jobs.at(id).status;
  if (status == "PEND" || rng() % 4 == 0) {
    (void)sim.Lsf({"lsfsim", "schedule"});
  } else if (status == "RUN") {
    const int roll = static_cast<int>(rng() % 4);
    if (roll < 2) {
      const int code = static_cast<int>(rng() % 3);
      (void)sim.Lsf({"lsfsim", "finish", id, "--exit", std::to_string(code)});
    } else {
      (void)sim.Lsf({"lsfsim", "set-job", id, roll == 2 ? "UNKWN" : "USUSP"});
    }
  } else if (status == "UNKWN" || status == "USUSP") {
    (void)sim.Lsf({"lsfsim", "set-job", id, "RUN"});
  }
}

TEST(JobsChaosTest, BplaceEndsWithLsfsStatesAndNeverShowsAJobFinishedEarly) {
  const long long seed = ChaosSeed();
  std::cout << "chaos seed " << seed << " (BPLACE_CHAOS_SEED=" << seed << " repeats this run)\n";
  ::testing::Test::RecordProperty("chaos_seed", std::to_string(seed));
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.jobs_refresh_s = 1;
  settings.command_timeout_s = 1;  // a hung bjobs costs one second
  DaemonProcess daemon(sim, settings);
  constexpr int kJobs = 12;
  for (int i = 0; i < kJobs; ++i) {
    const HttpReply submitted =
        daemon.Post("/v1/jobs", json{{"queues", {"short"}}, {"command", "sleep 600"}}.dump());
    ASSERT_EQ(submitted.status, 201) << submitted.body;
  }
  ASSERT_EQ(
      sim.Lsf({"lsfsim", "fault", "--command", "bjobs", "--chaos", std::to_string(seed)}).exit_code,
      0);
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  constexpr int kRounds = 14;
  for (int round = 0; round < kRounds; ++round) {
    for (int change = 0; change < 2; ++change) ChangeTheCluster(sim, rng);
    // Every job finishes in the last rounds, still under chaos.
    if (round == kRounds - 4) {
      (void)sim.Lsf({"lsfsim", "schedule"});
      for (const auto& [id, job] : LsfJobs(sim)) {
        if (job.status != "PEND" && job.status != "DONE" && job.status != "EXIT") {
          (void)sim.Lsf({"lsfsim", "set-job", id, "RUN"});
          (void)sim.Lsf({"lsfsim", "finish", id, "--exit", std::to_string(rng() % 3)});
        }
      }
    }
    const auto shown = BplaceJobsAfterARefresh(daemon);
    ASSERT_EQ(shown.size(), std::size_t{kJobs}) << "round " << round;
    ExpectNothingFinishedEarly(shown, LsfJobs(sim), round);
  }
  ASSERT_EQ(sim.Lsf({"lsfsim", "fault", "--command", "bjobs", "--no-chaos"}).exit_code, 0);
  // bjobs answers again: within a few refreshes bplace says what LSF says,
  // every job (a job that missed refreshes is asked about every time).
  std::map<std::string, JobState> lsf;
  std::map<std::string, json> shown;
  bool same = false;
  for (int refresh = 0; refresh < 10 && !same; ++refresh) {
    shown = BplaceJobsAfterARefresh(daemon);
    lsf = LsfJobs(sim);
    same = shown.size() == lsf.size();
    for (const auto& [id, job] : shown) same = same && lsf.contains(id) && StateOf(job) == lsf[id];
  }
  for (const auto& [id, truth] : lsf) {
    ASSERT_TRUE(shown.contains(id)) << id;
    const json& job = shown.at(id);
    EXPECT_EQ(StateOf(job), truth) << "job " << id << ": " << job.dump();
    EXPECT_FALSE(job.value("left_lsf", true)) << "job " << id << ": LSF knows it";
    EXPECT_TRUE(job["missing_since"].is_null()) << "job " << id;
  }
  if (::testing::Test::HasFailure()) {
    std::cout << "chaos seed " << seed << "; what bjobs did, per invocation:\n"
              << RunProcess({"/bin/cat", (sim.dir() / "lsf" / "chaos.log").string()}).out;
  }
}

}  // namespace
}  // namespace bplace::testing
