// multinode_bench: several login nodes against one LSF (docs/operations.md
// "Several login nodes"; figures in bench/README.md "Several login nodes
// (issue 22)"), real bplaced daemons against the LSF simulator:
//   herd   N daemons x M concurrent submissions without a host, against one
//          daemon taking all N x M: the largest share of the jobs one queue
//          got, and the bjobs the cross-node key check cost during the burst;
//   idle   1, 3 and 10 idle daemons: LSF commands reaching the simulator per
//          minute (goal: linear in daemons);
//   kills  keyed submissions, each retried on the two other nodes, a third
//          of them through a node killed -9 during its bsub: duplicates.
// Usage: multinode_bench herd|idle|kills|smoke [--nodes N] [--per-node M]
//        [--daemons 1,3,10] [--seconds S] [--submissions K]
// It prints tables to paste into bench/README.md, with the machine's load.
// smoke: tiny sizes; fails only when a command fails or a duplicate appears.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_util.h"
#include "tests/integration/harness.h"

namespace bplace::bench {
namespace {

using nlohmann::json;
using testing::DaemonProcess;
using testing::DaemonSettings;
using testing::HttpReply;
using testing::SimCluster;
using Steady = std::chrono::steady_clock;

// One simulator and `nodes` daemons with the documented default intervals,
// each in its own node directory (config, state, socket, port).
struct Site {
  SimCluster sim{DEMO_CLUSTER};
  std::vector<std::unique_ptr<DaemonProcess>> nodes;

  explicit Site(int count) {
    std::filesystem::permissions(sim.dir(), std::filesystem::perms::all,
                                 std::filesystem::perm_options::add);
    for (int i = 0; i < count; ++i) nodes.push_back(Start(i));
  }

  std::unique_ptr<DaemonProcess> Start(int node) const {
    DaemonSettings settings;
    settings.node_dir = (sim.dir() / ("node-" + std::to_string(node))).string();
    settings.load_refresh_s = 15;  // the defaults of docs/configuration.md
    settings.topology_refresh_s = 300;
    settings.jobs_refresh_s = 10;
    return std::make_unique<DaemonProcess>(sim, settings);
  }

  // The simulator's own job table.
  json Jobs() const { return json::parse(sim.Lsf({"lsfsim", "jobs"}).out)["jobs"]; }

  long long Count(const std::string& command) const { return sim.Counts().value(command, 0LL); }

  // POST /v1/jobs with `key` on `node`; 0 when the node died under it.
  HttpReply Submit(int node, const std::string& key, const std::string& name) const {
    try {
      return nodes[static_cast<std::size_t>(node)]->Call(
          "POST", "/v1/jobs", json{{"command", "sleep 600"}, {"job_name", name}}.dump(),
          {{"Idempotency-Key", key}});
    } catch (const std::exception&) {
      return HttpReply{};
    }
  }
};

// Largest share of `jobs` in one queue, and the queue.
std::pair<double, std::string> MaxQueueShare(const json& jobs) {
  std::map<std::string, int> per_queue;
  for (const json& job : jobs) ++per_queue[job.value("queue", "")];
  std::pair<double, std::string> best{0, ""};
  for (const auto& [queue, count] : per_queue) {
    const double share = static_cast<double>(count) / static_cast<double>(jobs.size());
    if (share > best.first) best = {share, queue};
  }
  return best;
}

// `per_node[i]` concurrent keyed submissions on node i, all at once.
struct Burst {
  double max_share = 0;
  std::string queue;
  int queues = 0;
  long long bjobs = 0;
  int failed = 0;
};

Burst RunBurst(int nodes, int per_node) {
  Site site(nodes);
  const long long bjobs_before = site.Count("bjobs");
  std::atomic<int> failed{0};
  std::vector<std::thread> clients;
  for (int n = 0; n < nodes; ++n) {
    for (int i = 0; i < per_node; ++i) {
      clients.emplace_back([&, n, i] {
        const std::string key = "herd-" + std::to_string(n) + "-" + std::to_string(i);
        if (site.Submit(n, key, "herd").status != 201) ++failed;
      });
    }
  }
  for (std::thread& client : clients) client.join();
  Burst burst;
  burst.bjobs = site.Count("bjobs") - bjobs_before;
  const json jobs = site.Jobs();
  std::tie(burst.max_share, burst.queue) = MaxQueueShare(jobs);
  std::map<std::string, int> queues;
  for (const json& job : jobs) ++queues[job.value("queue", "")];
  burst.queues = static_cast<int>(queues.size());
  burst.failed = failed;
  return burst;
}

int Herd(int nodes, int per_node, int runs) {
  std::printf(
      "%d daemons x %d concurrent keyed submissions without a host vs 1 daemon x %d, "
      "demo cluster, %d runs each, load %s, %s\n\n",
      nodes, per_node, nodes * per_node, runs, LoadAverage().c_str(), Timestamp().c_str());
  std::printf(
      "| shape | run | max queue share | in queue | queues used | bjobs during the burst | "
      "failed |\n|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (int run = 0; run < runs; ++run) {
    for (int shape : {1, nodes}) {
      const Burst burst = RunBurst(shape, nodes * per_node / shape);
      std::printf("| %d x %d | %d | %.1f%% | %s | %d | %lld | %d |\n", shape,
                  nodes * per_node / shape, run + 1, 100 * burst.max_share, burst.queue.c_str(),
                  burst.queues, burst.bjobs, burst.failed);
      std::fflush(stdout);
      failures += burst.failed;
    }
  }
  return failures == 0 ? 0 : 1;
}

int Idle(const std::vector<int>& counts, int seconds) {
  std::printf(
      "LSF commands reaching the simulator per minute from idle daemons (default intervals: "
      "load 15 s, topology 300 s, jobs 10 s), %d s a run after start-up, load %s, %s\n\n",
      seconds, LoadAverage().c_str(), Timestamp().c_str());
  std::printf("| daemons | commands/min | per daemon | of which bjobs |\n|---|---|---|---|\n");
  for (int count : counts) {
    Site site(count);
    const json before = site.sim.Counts();
    const auto start = Steady::now();
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    const json after = site.sim.Counts();
    const double minutes = SecondsSince(start) / 60;
    long long total = 0;
    for (const auto& [command, value] : after.items()) {
      total += value.get<long long>() - before.value(command, 0LL);
    }
    const long long bjobs = after.value("bjobs", 0LL) - before.value("bjobs", 0LL);
    std::printf("| %d | %.0f | %.1f | %.0f |\n", count, static_cast<double>(total) / minutes,
                static_cast<double>(total) / minutes / count, static_cast<double>(bjobs) / minutes);
    std::fflush(stdout);
  }
  return 0;
}

// Waits (bounded) until the simulator counts `count` bsubs / has a job `name`.
void WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 600 && !done(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

int Kills(int submissions) {
  Site site(3);
  std::mt19937 random(22);
  std::map<std::string, std::set<std::string>> answered;  // name -> job ids answered
  int kills = 0;
  int refused = 0;
  const auto start = Steady::now();
  for (int i = 0; i < submissions; ++i) {
    const std::string key = "kill-" + std::to_string(i);
    const std::string name = "kill_" + std::to_string(i);
    const int first = static_cast<int>(random() % 3);
    if (random() % 3 == 0) {
      const long long bsubs = site.Count("bsub");
      site.sim.Lsf({"lsfsim", "fault", "--command", "bsub", "--slow-ms", "1000"});
      std::thread client([&] { (void)site.Submit(first, key, name); });
      WaitFor([&] { return site.Count("bsub") > bsubs; });
      site.nodes[static_cast<std::size_t>(first)]->Kill9();
      client.join();
      site.sim.Lsf({"lsfsim", "fault", "--clear"});
      // The client retries after [lsf] command_timeout_s (docs/operations.md):
      // the orphaned bsub has ended by then.
      WaitFor([&] {
        for (const json& job : site.Jobs()) {
          if (job.value("name", "") == name) return true;
        }
        return false;
      });
      site.nodes[static_cast<std::size_t>(first)] = site.Start(first);
      ++kills;
    } else {
      const HttpReply reply = site.Submit(first, key, name);
      if (reply.status == 201) answered[name].insert(reply.Json()["job_id"].get<std::string>());
    }
    for (int retry = 1; retry <= 2; ++retry) {
      const HttpReply reply = site.Submit((first + retry) % 3, key, name);
      if (reply.status != 201) {
        ++refused;
        continue;
      }
      answered[name].insert(reply.Json()["job_id"].get<std::string>());
    }
  }
  std::map<std::string, int> in_lsf;
  for (const json& job : site.Jobs()) ++in_lsf[job.value("name", "")];
  int duplicates = 0;
  int split_answers = 0;
  for (const auto& [name, count] : in_lsf) duplicates += count > 1 ? count - 1 : 0;
  for (const auto& [name, ids] : answered) split_answers += ids.size() > 1 ? 1 : 0;
  std::printf(
      "%d keyed submissions, each retried on the two other nodes, %d through a node killed -9 "
      "during its bsub; %.0f s, load %s, %s\n\n",
      submissions, kills, SecondsSince(start), LoadAverage().c_str(), Timestamp().c_str());
  std::printf("| jobs in LSF | duplicates | keys answered with two ids | retries refused |\n");
  std::printf("|---|---|---|---|\n| %zu | %d | %d | %d |\n", in_lsf.size(), duplicates,
              split_answers, refused);
  return duplicates == 0 && split_answers == 0 && refused == 0 ? 0 : 1;
}

int Main(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << "usage: multinode_bench herd|idle|kills|smoke [--nodes N] [--per-node M] "
                 "[--runs R] [--daemons 1,3,10] [--seconds S] [--submissions K]\n";
    return 2;
  }
  Flags flags(std::vector<std::string>(args.begin() + 1, args.end()));
  const bool smoke = args[0] == "smoke";
  const int nodes = flags.Int("nodes", 3);
  const int per_node = flags.Int("per-node", smoke ? 4 : 50);
  const int runs = flags.Int("runs", smoke ? 1 : 3);
  const std::vector<int> daemons = flags.Ints("daemons", smoke ? "1,2" : "1,3,10");
  const int seconds = flags.Int("seconds", smoke ? 2 : 60);
  const int submissions = flags.Int("submissions", smoke ? 3 : 200);
  flags.CheckAllKnown();
  if (args[0] == "herd") return Herd(nodes, per_node, runs);
  if (args[0] == "idle") return Idle(daemons, seconds);
  if (args[0] == "kills") return Kills(submissions);
  if (smoke) return Herd(nodes, per_node, runs) | Idle(daemons, seconds) | Kills(submissions);
  std::cerr << "multinode_bench: unknown mode " << args[0] << "\n";
  return 2;
}

}  // namespace
}  // namespace bplace::bench

int main(int argc, char** argv) {
  try {
    return bplace::bench::Main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& error) {
    std::cerr << "multinode_bench: " << error.what() << "\n";
    return 1;
  }
}
