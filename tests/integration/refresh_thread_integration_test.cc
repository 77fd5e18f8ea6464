// docs/design.md "Threads": parsing LSF output and building snapshots take the
// daemon's refresh thread, never a thread that serves HTTP. Shown by where the
// real daemon's CPU goes while it refreshes a site-sized simulated cluster
// (/proc/PID/task/TID/stat of each thread, named in .../comm).
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

// CPU ticks (utime + stime) of each thread of `pid`, summed by thread name.
std::map<std::string, long long> CpuTicksByThreadName(pid_t pid) {
  std::map<std::string, long long> ticks;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    std::string stat;
    std::getline(std::ifstream(task.path() / "stat"), stat);
    // Fields after the ")" that ends the name: state is field 3, utime 14, stime 15.
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));
    std::string field;
    long long utime = 0;
    long long stime = 0;
    for (int index = 3; rest >> field; ++index) {
      if (index == 14) utime = std::stoll(field);
      if (index == 15) {
        stime = std::stoll(field);
        break;
      }
    }
    ticks[name] += utime + stime;
  }
  return ticks;
}

// Successful runs of `tier`, from GET /metrics (bplace_refresh_runs_total).
long long TierSuccesses(const DaemonProcess& daemon, const std::string& tier) {
  const std::string series =
      "bplace_refresh_runs_total{tier=\"" + tier + "\",outcome=\"success\"} ";
  const std::string text = daemon.Get("/metrics").body;
  const std::size_t at = text.find(series);
  return at == std::string::npos ? 0 : std::stoll(text.substr(at + series.size()));
}

TEST(RefreshThreadTest, RefreshWorkRunsOnTheRefreshThreadNotOnHttpThreads) {
  const std::string definition = "/tmp/bplace-refresh-thread-" + std::to_string(getpid()) + ".toml";
  const ProcessOutput generated =
      RunProcess({std::string(LSFSIM_BIN_DIR) + "/lsfsim", "generate", "--queues", "300", "--hosts",
                  "5000", "--host-groups", "200"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  std::ofstream(definition) << generated.out;
  SimCluster sim(definition);
  std::filesystem::remove(definition);
  DaemonSettings settings;
  settings.load_refresh_s = 1;
  settings.topology_refresh_s = 1;
  settings.extra_config = "[ib]\nsource = \"lsload\"\n";
  settings.server_config = "threads = 1\n";
  DaemonProcess daemon(sim, settings);

  const auto before = CpuTicksByThreadName(daemon.pid());
  ASSERT_TRUE(before.contains("bplace-refresh")) << "no thread named bplace-refresh";
  const long long load_runs = TierSuccesses(daemon, "load");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (TierSuccesses(daemon, "load") < load_runs + 8 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ASSERT_GE(TierSuccesses(daemon, "load"), load_runs + 8) << "the load tier did not refresh";
  const auto after = CpuTicksByThreadName(daemon.pid());

  long long refresh = 0;
  long long others = 0;
  for (const auto& [name, ticks] : after) {
    const long long spent = ticks - (before.contains(name) ? before.at(name) : 0);
    (name == "bplace-refresh" ? refresh : others) += spent;
    std::cerr << name << ": " << spent << " ticks\n";
  }
  // Everything else (the HTTP thread answering this test's polls, LSF child
  // processes' I/O, the state store) costs less than the refreshes.
  EXPECT_GT(refresh, others);
}

}  // namespace
}  // namespace bplace::testing
