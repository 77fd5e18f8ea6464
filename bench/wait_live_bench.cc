// The wait predictor live (bench/README.md "Wait prediction (issue 23)",
// live on lsfsim): the real bplaced against the LSF simulator
// with a scheduling clock, jobs submitted through bplace faster than the
// cluster runs them, and the coverage of the bounds bplace gave them,
// read from bplace itself (GET /v1/cluster `wait_predictions`, /metrics).
//
//   wait_live_bench run [--jobs 240] [--interval-ms 500] [--gap-ms 150] [--seed 1]
//                       [--dump FILE]
//   wait_live_bench smoke (20 jobs: the ctest wait_live_bench_smoke)
//   wait_live_bench paired [--pairs 100] [--warmup-s 90] [--pair-gap-ms 3000]
//                          [--interval-ms 500] [--phase-s 20] [--seed 1] [--dump FILE]
//                          [--run-s-fast 2-6] [--run-s-slow 2-6]
//     (paired trials on the same cluster under a changing background load
//     of `sleep MIN..MAX` jobs per queue: bench/wait_paired_trials.h)
//
// The cluster (written here): queue `fast` on three hosts of 2 slots,
// queue `slow` on one host of 2 slots, one slot per job. Every
// `interval-ms` the bench runs `lsfsim schedule --run` (a dispatch session:
// PEND jobs start as real processes); jobs are `sleep 1..4`, submitted
// with POST /v1/jobs (queues fast and slow: bplace chooses) every
// `gap-ms` on average, in bursts. bplaced reads the simulator's lsb.events
// (found from lsf.conf and lsid) and follows its jobs every second. At the
// end: jobs submitted, jobs whose prediction had a bound, those that
// started within it, coverage, and the per-queue split. Asserts nothing
// about time; `smoke` fails only when nothing was predicted or counted.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_util.h"
#include "bench/wait_paired_trials.h"
#include "tests/integration/harness.h"

namespace {

using bplace::bench::Flags;
using bplace::bench::LoadAverage;
using bplace::bench::LoadedQueue;
using bplace::bench::SecondsSince;
using bplace::bench::Timestamp;
using bplace::testing::DaemonProcess;
using bplace::testing::DaemonSettings;
using bplace::testing::SimCluster;
using nlohmann::json;

constexpr const char* kCluster = R"([cluster]
name = "waits"
master = "m01"

[[host]]
name = "node[01-04]"
max = 2

[[queue]]
name = "fast"
priority = 30
hosts = "node01 node02 node03"

[[queue]]
name = "slow"
priority = 30
hosts = "node04"
)";

struct Options {
  int jobs = 240;
  int interval_ms = 500;
  int gap_ms = 150;
  int seed = 1;
  std::string dump_path;  // one line per job when not empty
};

// Runs `lsfsim schedule --run` every interval until `stop`.
void SchedulingClock(const SimCluster& sim, int interval_ms, const std::atomic<bool>& stop) {
  while (!stop) {
    sim.Lsf({"lsfsim", "schedule", "--run"});
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
}

// Submits the jobs through bplace; returns how many it accepted.
int Submit(const DaemonProcess& daemon, const Options& options) {
  std::mt19937 random(static_cast<unsigned>(options.seed));
  std::uniform_int_distribution<int> run_s(1, 4);
  std::exponential_distribution<double> gap(1.0 / options.gap_ms);
  int accepted = 0;
  for (int i = 0; i < options.jobs; ++i) {
    const json body{{"queues", {"fast", "slow"}},
                    {"command", "sleep " + std::to_string(run_s(random))}};
    const auto reply = daemon.Post("/v1/jobs", body.dump());
    if (reply.status == 201) ++accepted;
    // Bursts: every 40th job a pause of 8 s lets the queues drain.
    const int pause = (i % 40 == 39) ? 8000 : static_cast<int>(gap(random));
    std::this_thread::sleep_for(std::chrono::milliseconds(pause));
  }
  return accepted;
}

// The wait record once every job started (or 10 minutes passed).
json Record(const DaemonProcess& daemon, int accepted) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  json record;
  while (std::chrono::steady_clock::now() < deadline) {
    record = daemon.Get("/v1/cluster").Json().value("wait_predictions", json());
    const json pending = daemon.Call("GET", "/v1/jobs?status=PEND,SUBMITTED&limit=1").Json();
    if (pending.value("jobs", json::array()).empty() && record.is_object()) break;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  (void)accepted;
  return record;
}

// The simulator with kCluster (its definition file removed once read).
std::unique_ptr<SimCluster> MakeCluster() {
  const std::string definition = "/tmp/bplace-wait-live-" + std::to_string(::getpid()) + ".toml";
  std::ofstream(definition) << kCluster;
  auto sim = std::make_unique<SimCluster>(definition);
  std::remove(definition.c_str());
  return sim;
}

// bplaced following the simulator every second.
DaemonSettings Settings() {
  DaemonSettings settings;
  settings.load_refresh_s = 1;
  settings.jobs_refresh_s = 1;
  settings.topology_refresh_s = 60;
  return settings;
}

// The longest background job of the paired trials: their settle window
// (5 min) must see every pair's jobs start behind a queue of such jobs.
constexpr int kMaxRunS = 60;

int Paired(const std::vector<std::string>& args) {
  Flags flags(args);
  bplace::bench::PairedOptions options;
  options.queues = {{"fast", 6}, {"slow", 2}};  // kCluster's
  options.pairs = flags.Int("pairs", options.pairs);
  options.warmup_s = flags.Int("warmup-s", options.warmup_s);
  options.pair_gap_ms = flags.Int("pair-gap-ms", options.pair_gap_ms);
  options.interval_ms = flags.Int("interval-ms", options.interval_ms);
  options.phase_s = flags.Int("phase-s", options.phase_s);
  options.seed = flags.Int("seed", options.seed);
  options.dump_path = flags.String("dump", "");
  for (LoadedQueue& queue : options.queues) {
    const auto [low, high] = flags.Range("run-s-" + queue.name, {queue.min_run_s, queue.max_run_s});
    if (low < 1 || high > kMaxRunS) {
      throw std::invalid_argument("--run-s-" + queue.name + ": want MIN-MAX within 1-" +
                                  std::to_string(kMaxRunS) + " s");
    }
    queue.min_run_s = low;
    queue.max_run_s = high;
  }
  flags.CheckAllKnown();
  const auto sim = MakeCluster();
  DaemonProcess daemon(*sim, Settings());
  return bplace::bench::RunPairedTrials(*sim, daemon, options);
}

// Per method of the predictions (expected_start.method): jobs, and those
// whose wait_s was within the bound (GET /v1/jobs, the newest 1,000; a job
// shows the wait it was judged on: the event log's, as the coverage above).
std::string ByMethod(const DaemonProcess& daemon) {
  const json jobs = daemon.Call("GET", "/v1/jobs?limit=1000").Json().value("jobs", json::array());
  std::map<std::string, std::pair<int, int>> counts;  // method -> {jobs, within}
  for (const json& job : jobs) {
    const json expected = job.value("expected_start", json());
    if (!expected.is_object() || !job.value("within_bound", json()).is_boolean()) continue;
    auto& [all, within] = counts[expected.value("method", "?")];
    ++all;
    if (job["within_bound"].get<bool>()) ++within;
  }
  std::string text = "by method (jobs' wait_s):";
  for (const auto& [method, count] : counts) {
    text += " " + method + " " + std::to_string(count.second) + "/" + std::to_string(count.first);
  }
  return text + "\n";
}

// One tab-separated line per job bplace placed, in submission order: id,
// queue, method, bound_s, p50_s, samples, wait_s, within_bound (GET
// /v1/jobs, the newest 1,000).
void DumpJobs(const DaemonProcess& daemon, std::FILE* out) {
  json jobs = daemon.Call("GET", "/v1/jobs?limit=1000").Json().value("jobs", json::array());
  // job_id is LSF's number as text.
  const auto number = [](const json& job) {
    const json id = job.value("job_id", json());
    return id.is_string() ? std::atoll(id.get<std::string>().c_str()) : 0LL;
  };
  std::sort(jobs.begin(), jobs.end(),
            [&](const json& a, const json& b) { return number(a) < number(b); });
  std::fprintf(out, "id\tqueue\tmethod\tbound_s\tp50_s\tsamples\twait_s\twithin\n");
  for (const json& job : jobs) {
    const json expected = job.value("expected_start", json());
    if (!expected.is_object()) continue;
    std::fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", job.value("id", "?").c_str(),
                 job.value("queue", json()).dump().c_str(),
                 expected.value("method", json()).dump().c_str(),
                 expected.value("bound_s", json()).dump().c_str(),
                 expected.value("p50_s", json()).dump().c_str(),
                 expected.value("samples", json()).dump().c_str(),
                 job.value("wait_s", json()).dump().c_str(),
                 job.value("within_bound", json()).dump().c_str());
  }
}

int Run(const Options& options) {
  // Opened first: an unwritable path fails before the run, not after it.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> dump(nullptr, &std::fclose);
  if (!options.dump_path.empty()) {
    dump.reset(std::fopen(options.dump_path.c_str(), "w"));
    if (!dump) {
      std::fprintf(stderr, "wait_live_bench: cannot write %s\n", options.dump_path.c_str());
      return 2;
    }
  }
  const auto cluster = MakeCluster();
  const SimCluster& sim = *cluster;
  DaemonProcess daemon(sim, Settings());
  std::atomic<bool> stop{false};
  std::thread clock([&] { SchedulingClock(sim, options.interval_ms, stop); });
  const auto start = std::chrono::steady_clock::now();
  const int accepted = Submit(daemon, options);
  const json record = Record(daemon, accepted);
  stop = true;
  clock.join();
  const double elapsed = SecondsSince(start);
  std::string per_queue;
  const std::string metrics = daemon.Get("/metrics").body;
  for (const char* family : {"bplace_wait_predictions_total", "bplace_wait_within_bound_total"}) {
    for (std::size_t at = metrics.find(family); at != std::string::npos;
         at = metrics.find(family, at + 1)) {
      if (at > 0 && metrics[at - 1] != '\n') continue;
      per_queue += "  " + metrics.substr(at, metrics.find('\n', at) - at) + "\n";
    }
  }
  std::printf("wait_live_bench %s, load %s, %.0f s\n", Timestamp().c_str(), LoadAverage().c_str(),
              elapsed);
  std::printf("jobs submitted %d (accepted %d), scheduling every %d ms\n", options.jobs, accepted,
              options.interval_ms);
  std::printf("record: %s\n%s", record.dump().c_str(), per_queue.c_str());
  std::printf("%s", ByMethod(daemon).c_str());
  if (dump) DumpJobs(daemon, dump.get());
  const int predictions = record.is_object() ? record.value("predictions", 0) : 0;
  return predictions > 0 ? 0 : 1;
}

// The bench's modes (the usage above); bad flags throw (RunMain prints them).
int Main(const std::vector<std::string>& args) {
  if (args.empty() || (args[0] != "run" && args[0] != "smoke" && args[0] != "paired")) {
    std::fprintf(stderr,
                 "usage: wait_live_bench run|smoke|paired [--flag value ...] (see "
                 "bench/README.md)\n");
    return 2;
  }
  if (args[0] == "paired") return Paired({args.begin() + 1, args.end()});
  Flags flags({args.begin() + 1, args.end()});
  Options options;
  options.jobs = flags.Int("jobs", args[0] == "smoke" ? 20 : options.jobs);
  options.interval_ms = flags.Int("interval-ms", options.interval_ms);
  options.gap_ms = flags.Int("gap-ms", options.gap_ms);
  options.seed = flags.Int("seed", options.seed);
  options.dump_path = flags.String("dump", "");
  flags.CheckAllKnown();
  return Run(options);
}

}  // namespace

int main(int argc, char** argv) {
  return bplace::bench::RunMain(argc, argv, "wait_live_bench", Main);
}
