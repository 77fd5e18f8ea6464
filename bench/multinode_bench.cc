// multinode_bench: several login nodes against one LSF (docs/operations.md
// "Several login nodes"; figures in bench/README.md "Several login nodes
// (issue 22)"), real bplaced daemons against the LSF simulator:
//   herd   N daemons x M submissions without a host, against one daemon
//          taking all N x M: the largest share of the jobs one queue got,
//          and the bjobs the cross-node key check cost during the burst.
//          Two shapes: all at once (--pace 0), and as engines submit (one
//          client per node, one bsub at a time, --pace per second each,
//          against the same N clients on one daemon);
//   idle   1, 3 and 10 daemons, idle and with --clients polling clients
//          each: LSF commands reaching the simulator per minute (goal:
//          linear in daemons, independent of clients);
//   kills  keyed submissions, each retried on the two other nodes, a third
//          of them through a node killed -9 during its bsub: duplicates.
// Usage: multinode_bench herd|idle|kills|smoke [--nodes N] [--per-node M]
//        [--pace P] [--after-submit S] [--daemons 1,3,10] [--seconds S]
//        [--clients C] [--submissions K]
// --after-submit sets [lsf] load_refresh_after_submit_s (default: the
// daemon's own default), to measure the spread with and without it.
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
// `after_submit` < 0 keeps the daemon's default of
// load_refresh_after_submit_s.
struct Site {
  SimCluster sim{DEMO_CLUSTER};
  std::vector<std::unique_ptr<DaemonProcess>> nodes;
  int after_submit = -1;

  explicit Site(int count, int after_submit_s = -1) : after_submit(after_submit_s) {
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
    settings.load_refresh_after_submit_s = after_submit;
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

// How the submissions of a burst arrive.
struct Arrival {
  int clients_per_node = 0;  // 0: every submission its own client, all at once
  int pace = 0;              // submissions a second per client (one at a time)
};

// The submissions of one burst.
struct Burst {
  double max_share = 0;
  std::string queue;
  int queues = 0;
  long long bjobs = 0;
  long long bqueues = 0;  // the load refreshes' (and permission) queries
  int failed = 0;
};

// `per_node` keyed submissions on each of `nodes` daemons, arriving as
// `arrival` says.
Burst RunBurst(int nodes, int per_node, const Arrival& arrival, int after_submit) {
  Site site(nodes, after_submit);
  const long long bjobs_before = site.Count("bjobs");
  const long long bqueues_before = site.Count("bqueues");
  std::atomic<int> failed{0};
  std::vector<std::thread> clients;
  const auto submit = [&](int node, int i) {
    const std::string key = "herd-" + std::to_string(node) + "-" + std::to_string(i);
    if (site.Submit(node, key, "herd").status != 201) ++failed;
  };
  if (arrival.clients_per_node == 0) {
    for (int n = 0; n < nodes; ++n) {
      for (int i = 0; i < per_node; ++i) clients.emplace_back(submit, n, i);
    }
  } else {
    // Each client submits its share one at a time, at most `pace` a second,
    // as an engine's submit loop does (Snakemake's default limit is 10/s).
    const int per_client = per_node / arrival.clients_per_node;
    const auto start = Steady::now();
    for (int n = 0; n < nodes; ++n) {
      for (int c = 0; c < arrival.clients_per_node; ++c) {
        clients.emplace_back([&, n, c] {
          for (int i = 0; i < per_client; ++i) {
            std::this_thread::sleep_until(start + i * std::chrono::milliseconds(1000) /
                                                      std::max(arrival.pace, 1));
            submit(n, c * per_client + i);
          }
        });
      }
    }
  }
  for (std::thread& client : clients) client.join();
  Burst burst;
  burst.bjobs = site.Count("bjobs") - bjobs_before;
  burst.bqueues = site.Count("bqueues") - bqueues_before;
  const json jobs = site.Jobs();
  std::tie(burst.max_share, burst.queue) = MaxQueueShare(jobs);
  std::map<std::string, int> queues;
  for (const json& job : jobs) ++queues[job.value("queue", "")];
  burst.queues = static_cast<int>(queues.size());
  burst.failed = failed;
  return burst;
}

int Herd(int nodes, int per_node, int runs, int pace, int after_submit) {
  const std::string arrival = pace == 0 ? "all at once"
                                        : "one client per node submitting one at a time, " +
                                              std::to_string(pace) + " a second";
  const std::string gap = after_submit < 0 ? "default" : std::to_string(after_submit);
  std::printf(
      "%d daemons x %d keyed submissions without a host vs 1 daemon x %d, %s, "
      "load_refresh_after_submit_s %s, demo cluster, %d runs each, load %s, %s\n\n",
      nodes, per_node, nodes * per_node, arrival.c_str(), gap.c_str(), runs, LoadAverage().c_str(),
      Timestamp().c_str());
  std::printf(
      "| shape | run | max queue share | in queue | queues used | bjobs during the burst | "
      "bqueues during the burst | failed |\n|---|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (int run = 0; run < runs; ++run) {
    for (int shape : {1, nodes}) {
      // Paced: the same clients (one per node of the spread shape) either
      // way, so that only the daemons differ.
      Arrival arrival;
      if (pace > 0) arrival = Arrival{nodes / shape, pace};
      const Burst burst = RunBurst(shape, nodes * per_node / shape, arrival, after_submit);
      std::printf("| %d x %d | %d | %.1f%% | %s | %d | %lld | %lld | %d |\n", shape,
                  nodes * per_node / shape, run + 1, 100 * burst.max_share, burst.queue.c_str(),
                  burst.queues, burst.bjobs, burst.bqueues, burst.failed);
      std::fflush(stdout);
      failures += burst.failed;
    }
  }
  return failures == 0 ? 0 : 1;
}

// `clients` polling clients on each daemon of `site`, as engines poll
// through the front door: each client asks every 5 s, half of them about
// one job (`bjobs -o "jobid stat" -noheader ID`, as Toil and Cromwell do),
// half for the list of jobs (`bjobs -w`, as Nextflow does). Each daemon
// first gets 10 jobs to be asked about. The clients poll until the
// Pollers is destroyed; an answer that is not the daemon's own (an error,
// or "run LSF's bjobs", which would put the clients' load on mbatchd)
// counts as failed.
class Pollers {
 public:
  Pollers(const Site& site, int clients) : site_(site) {
    if (clients == 0) return;
    for (std::size_t d = 0; d < site.nodes.size(); ++d) {
      std::vector<std::string> ids;
      for (int i = 0; i < 10; ++i) {
        const std::string key = "poll-" + std::to_string(d) + "-" + std::to_string(i);
        const HttpReply reply = site.Submit(static_cast<int>(d), key, "polled");
        if (reply.status == 201) ids.push_back(reply.Json()["job_id"].get<std::string>());
      }
      if (ids.empty()) throw std::runtime_error("no job to poll on node " + std::to_string(d));
      jobs_.push_back(std::move(ids));
    }
    // A few threads play every client: client c of daemon d asks at
    // c * 5 s / clients into each 5 s period.
    const int threads = 4;
    const auto start = Steady::now();
    for (int t = 0; t < threads; ++t) {
      threads_.emplace_back([this, t, threads, clients, start] {
        for (long long tick = t; !stop_; tick += threads) {
          const long long period_ms = 5000;
          const long long slot = tick % clients;
          std::this_thread::sleep_until(
              start +
              std::chrono::milliseconds(tick / clients * period_ms + slot * period_ms / clients));
          for (std::size_t d = 0; d < jobs_.size() && !stop_; ++d) Ask(d, slot);
        }
      });
    }
  }
  ~Pollers() {
    stop_ = true;
    for (std::thread& thread : threads_) thread.join();
  }
  Pollers(const Pollers&) = delete;
  Pollers& operator=(const Pollers&) = delete;

  long long asked() const { return asked_; }
  long long failed() const { return failed_; }

 private:
  void Ask(std::size_t daemon, long long client) {
    const std::vector<std::string>& ids = jobs_[daemon];
    const json argv = client % 2 == 0 ? json{"-o", "jobid stat", "-noheader",
                                             ids[static_cast<std::size_t>(client / 2) % ids.size()]}
                                      : json{"-w"};
    try {
      const HttpReply reply =
          site_.nodes[daemon]->Post("/v1/lsf/bjobs", json{{"argv", argv}}.dump());
      ++asked_;
      if (reply.status != 200 || !reply.Json().contains("stdout")) ++failed_;
    } catch (const std::exception&) {
      ++failed_;
    }
  }

  const Site& site_;
  std::vector<std::vector<std::string>> jobs_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<long long> asked_{0};
  std::atomic<long long> failed_{0};
};

int Idle(const std::vector<int>& counts, int seconds, int clients) {
  std::printf(
      "LSF commands reaching the simulator per minute from daemons with %d polling clients each "
      "(default intervals: load 15 s, topology 300 s, jobs 10 s), %d s a run after start-up, "
      "load %s, %s\n\n",
      clients, seconds, LoadAverage().c_str(), Timestamp().c_str());
  std::printf(
      "| daemons | clients each | commands/min | per daemon | of which bjobs | client requests/min "
      "| failed |\n|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (int count : counts) {
    Site site(count);
    Pollers pollers(site, clients);
    // The submissions' own refreshes are over before counting starts.
    std::this_thread::sleep_for(std::chrono::seconds(clients > 0 ? 5 : 0));
    const json before = site.sim.Counts();
    const long long asked_before = pollers.asked();
    const auto start = Steady::now();
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    const json after = site.sim.Counts();
    const long long asked = pollers.asked() - asked_before;
    const double minutes = SecondsSince(start) / 60;
    long long total = 0;
    for (const auto& [command, value] : after.items()) {
      total += value.get<long long>() - before.value(command, 0LL);
    }
    const long long bjobs = after.value("bjobs", 0LL) - before.value("bjobs", 0LL);
    std::printf("| %d | %d | %.0f | %.1f | %.0f | %.0f | %lld |\n", count, clients,
                static_cast<double>(total) / minutes, static_cast<double>(total) / minutes / count,
                static_cast<double>(bjobs) / minutes, static_cast<double>(asked) / minutes,
                pollers.failed());
    std::fflush(stdout);
    failures += static_cast<int>(pollers.failed());
  }
  return failures == 0 ? 0 : 1;
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
                 "[--runs R] [--pace P] [--after-submit S] [--daemons 1,3,10] [--seconds S] "
                 "[--clients C] [--submissions K]\n";
    return 2;
  }
  Flags flags(std::vector<std::string>(args.begin() + 1, args.end()));
  const bool smoke = args[0] == "smoke";
  const int nodes = flags.Int("nodes", 3);
  const int per_node = flags.Int("per-node", smoke ? 4 : 50);
  const int runs = flags.Int("runs", smoke ? 1 : 3);
  const std::vector<int> daemons = flags.Ints("daemons", smoke ? "1,2" : "1,3,10");
  const int pace = flags.Int("pace", 0);
  const int after_submit = flags.Int("after-submit", -1);
  const int seconds = flags.Int("seconds", smoke ? 2 : 60);
  const int clients = flags.Int("clients", smoke ? 4 : 0);
  const int submissions = flags.Int("submissions", smoke ? 3 : 200);
  flags.CheckAllKnown();
  if (args[0] == "herd") return Herd(nodes, per_node, runs, pace, after_submit);
  if (args[0] == "idle") return Idle(daemons, seconds, clients);
  if (args[0] == "kills") return Kills(submissions);
  if (smoke) {
    return Herd(nodes, per_node, runs, pace, after_submit) | Herd(nodes, per_node, runs, 10, 1) |
           Idle(daemons, seconds, clients) | Kills(submissions);
  }
  std::cerr << "multinode_bench: unknown mode " << args[0] << "\n";
  return 2;
}

}  // namespace
}  // namespace bplace::bench

int main(int argc, char** argv) {
  return bplace::bench::RunMain(argc, argv, "multinode_bench", bplace::bench::Main);
}
