// frontdoor_bench: the front door's figures (docs/lsf-front-door.md; bench/README.md
// "Front door (issue 20)") against the LSF simulator and the real bplaced:
//   latency   front-door `bjobs -o stat -noheader ID` and `bsub` against the
//             simulator's own commands, run alternately, p50 and p99;
//   polling   engines that each poll their jobs with `bjobs -o stat -noheader ID`
//             every --poll-ms: bjobs calls reaching the simulator per minute,
//             through the front door and straight to the simulator.
//   lists     the same for engines that poll with bjobs lists (Nextflow's
//             `bjobs -w -q short`, Galaxy's `bjobs -a -o "id stat" -noheader`,
//             Snakemake 8's `bjobs -noheader -o "jobid stat" -a -J '*'`, in turn).
//   toil      the same for engines that poll each job as Toil 5.9.2 does:
//             `bjobs -l ID`, then `bjobs -json -o "user exit_code stat
//             exit_reason pend_reason" ID` (docs/lsf-front-door.md "bjobs -l").
// Usage: frontdoor_bench latency|polling|lists|toil|smoke [--runs N] [--engines 1,3,10]
//        [--jobs N] [--poll-ms N] [--seconds N]
// It prints a table to paste into bench/README.md, with the machine's load.
// smoke: tiny sizes; fails only when a command fails or a figure is missing.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "tests/integration/harness.h"

namespace bplace::bench {
namespace {

using testing::DaemonProcess;
using testing::DaemonSettings;
using testing::ProcessOutput;
using testing::RunProcess;
using testing::SimCluster;
using Steady = std::chrono::steady_clock;

struct Setup {
  SimCluster sim{DEMO_CLUSTER};
  std::unique_ptr<DaemonProcess> daemon;
  std::map<std::string, std::string> env;

  Setup() {
    std::filesystem::permissions(sim.dir(), std::filesystem::perms::all,
                                 std::filesystem::perm_options::add);
    DaemonSettings settings;
    settings.jobs_refresh_s = 10;  // the default [jobs] refresh_s
    settings.load_refresh_s = 15;
    daemon = std::make_unique<DaemonProcess>(sim, settings);
    env = {{"BPLACE_URL", "http://127.0.0.1:" + std::to_string(daemon->port())},
           {"BPLACE_TOKEN", daemon->token()},
           {"LSF_BINDIR", LSFSIM_BIN_DIR},
           {"LSF_ENVDIR", (sim.dir() / "lsf").string()}};
  }

  // `command` ARGS through the front door (door) or the simulator's own.
  ProcessOutput Run(bool door, const std::string& command,
                    const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {
        "/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", sim.dir().string(),
        std::string(door ? FRONTDOOR_DIR : LSFSIM_BIN_DIR) + "/" + command};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, env);
  }

  std::string Submit(bool door) const {
    const ProcessOutput out = Run(door, "bsub", {"-q", "short", "sleep", "600"});
    std::smatch match;
    const std::regex line(R"(^Job <(\d+)> is submitted)");
    if (out.exit_code != 0 || !std::regex_search(out.out, match, line)) {
      throw std::runtime_error("bsub failed: " + out.out + out.err);
    }
    return match[1].str();
  }
};

double Percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  if (values.empty()) return 0;
  const auto at = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(at, values.size() - 1)];
}

// Times `runs` calls of each side, alternately; milliseconds.
struct Timing {
  std::vector<double> door_ms;
  std::vector<double> real_ms;
};
template <typename Call>
Timing Alternate(int runs, Call call) {
  Timing timing;
  for (int i = 0; i < runs; ++i) {
    for (bool door : {true, false}) {
      const auto start = Steady::now();
      call(door);
      (door ? timing.door_ms : timing.real_ms).push_back(SecondsSince(start) * 1000);
    }
  }
  return timing;
}

void PrintRow(const std::string& what, const Timing& t) {
  std::printf("| %s | %.1f / %.1f ms | %.1f / %.1f ms | %.2f |\n", what.c_str(),
              Percentile(t.door_ms, 0.5), Percentile(t.door_ms, 0.99), Percentile(t.real_ms, 0.5),
              Percentile(t.real_ms, 0.99),
              Percentile(t.door_ms, 0.5) / std::max(0.001, Percentile(t.real_ms, 0.5)));
}

int Latency(int runs) {
  Setup setup;
  const std::string id = setup.Submit(true);
  // Wait until the jobs tier has the job (it is there at once: read-your-writes).
  const ProcessOutput first = setup.Run(true, "bjobs", {"-o", "stat", "-noheader", id});
  if (first.out != "PEND\n") throw std::runtime_error("front-door bjobs: " + first.out + first.err);
  const Timing bjobs = Alternate(runs, [&](bool door) {
    const ProcessOutput out = setup.Run(door, "bjobs", {"-o", "stat", "-noheader", id});
    if (out.exit_code != 0) throw std::runtime_error("bjobs failed: " + out.err);
  });
  const Timing bsub = Alternate(runs, [&](bool door) { setup.Submit(door); });
  std::printf("Front door latency, %d runs each, load %s, %s\n\n", runs, LoadAverage().c_str(),
              Timestamp().c_str());
  std::printf("| command | front door p50 / p99 | simulator's own p50 / p99 | ratio of p50 |\n");
  std::printf("|---|---|---|---|\n");
  PrintRow("`bjobs -o stat -noheader ID`", bjobs);
  PrintRow("`bsub -q short sleep 600`", bsub);
  return 0;
}

// How engines poll.
enum class PollForm {
  kById,   // Snakemake 7's profile: `bjobs -o stat -noheader ID` per job
  kLists,  // one list per poll: Nextflow, Galaxy, Snakemake 8 forms in turn
  kToil,   // Toil 5.9.2: `bjobs -l ID` and `bjobs -json -o ... ID` per job
};

// The bjobs calls (argv after "bjobs") engine `e` polls `job` with, in
// `form` (docs/lsf-front-door.md "Decisions" for the lists).
std::vector<std::vector<std::string>> PollCalls(PollForm form, int e, const std::string& job) {
  switch (form) {
    case PollForm::kById:
      return {{"-o", "stat", "-noheader", job}};
    case PollForm::kToil:
      return {{"-l", job}, {"-json", "-o", "user exit_code stat exit_reason pend_reason", job}};
    case PollForm::kLists:
      break;
  }
  switch (e % 3) {
    case 0:
      return {{"-w", "-q", "short"}};
    case 1:
      return {{"-a", "-o", "id stat", "-noheader"}};
    default:
      return {{"-noheader", "-o", "jobid stat", "-a", "-J", "*"}};
  }
}

const char* PollFormName(PollForm form) {
  switch (form) {
    case PollForm::kById:
      return "each polled with bjobs -o stat";
    case PollForm::kToil:
      return "each polled as Toil 5.9.2 does (bjobs -l, bjobs -json -o)";
    case PollForm::kLists:
      break;
  }
  return "one list (Nextflow, Galaxy, Snakemake 8 forms in turn)";
}

// `engines` pollers, each with `jobs` jobs, polling every `poll_ms`: each
// job with its own bjobs calls, or (kLists) all of them with one list.
int Polling(const std::vector<int>& engine_counts, int jobs, int poll_ms, int seconds,
            PollForm form) {
  const bool lists = form == PollForm::kLists;
  std::printf(
      "bjobs calls reaching the simulator per minute: %d jobs an engine, %s every %d ms, %d s "
      "a run, load %s, %s\n\n",
      jobs, PollFormName(form), poll_ms, seconds, LoadAverage().c_str(), Timestamp().c_str());
  std::printf("| engines | through the front door | straight to the simulator |\n|---|---|---|\n");
  for (int engines : engine_counts) {
    std::vector<double> per_minute;
    for (bool door : {true, false}) {
      Setup setup;
      std::vector<std::string> ids;
      for (int i = 0; i < engines * jobs; ++i) ids.push_back(setup.Submit(door));
      // One poll of each engine first: the first list requests start the
      // view, the first bjobs -l of a job fetches its long form (a refresh
      // each, the first time only); the steady state is measured.
      for (int e = 0; e < engines; ++e) {
        for (int j = 0; j < (lists ? 1 : jobs); ++j) {
          for (const auto& call : PollCalls(form, e, ids[static_cast<std::size_t>(e * jobs + j)])) {
            (void)setup.Run(door, "bjobs", call);
          }
        }
      }
      const long long before = setup.sim.Counts().value("bjobs", 0LL);
      const auto start = Steady::now();
      std::atomic<bool> failed{false};
      std::vector<std::thread> pollers;
      for (int e = 0; e < engines; ++e) {
        pollers.emplace_back([&, e] {
          while (SecondsSince(start) < seconds && !failed) {
            for (int j = 0; j < (lists ? 1 : jobs); ++j) {
              for (const auto& call :
                   PollCalls(form, e, ids[static_cast<std::size_t>(e * jobs + j)])) {
                if (setup.Run(door, "bjobs", call).exit_code != 0) failed = true;
              }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
          }
        });
      }
      for (std::thread& poller : pollers) poller.join();
      if (failed) throw std::runtime_error("a poll failed");
      const double minutes = SecondsSince(start) / 60;
      per_minute.push_back(static_cast<double>(setup.sim.Counts().value("bjobs", 0LL) - before) /
                           minutes);
    }
    std::printf("| %d | %.0f | %.0f |\n", engines, per_minute[0], per_minute[1]);
  }
  return 0;
}

int Main(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << "usage: frontdoor_bench latency|polling|lists|toil|smoke [--runs N] "
                 "[--engines 1,3,10] "
                 "[--jobs N] [--poll-ms N] [--seconds N]\n";
    return 2;
  }
  Flags flags(std::vector<std::string>(args.begin() + 1, args.end()));
  const bool smoke = args[0] == "smoke";
  const int runs = flags.Int("runs", smoke ? 3 : 100);
  const std::vector<int> engines = flags.Ints("engines", smoke ? "1" : "1,3,10");
  const int jobs = flags.Int("jobs", smoke ? 2 : 5);
  const int poll_ms = flags.Int("poll-ms", smoke ? 200 : 5000);
  const int seconds = flags.Int("seconds", smoke ? 2 : 60);
  flags.CheckAllKnown();
  if (args[0] == "latency") return Latency(runs);
  if (args[0] == "polling") return Polling(engines, jobs, poll_ms, seconds, PollForm::kById);
  if (args[0] == "lists") return Polling(engines, jobs, poll_ms, seconds, PollForm::kLists);
  if (args[0] == "toil") return Polling(engines, jobs, poll_ms, seconds, PollForm::kToil);
  if (smoke) {
    return Latency(runs) | Polling(engines, jobs, poll_ms, seconds, PollForm::kById) |
           Polling(engines, jobs, poll_ms, seconds, PollForm::kLists) |
           Polling(engines, jobs, poll_ms, seconds, PollForm::kToil);
  }
  std::cerr << "frontdoor_bench: unknown mode " << args[0] << "\n";
  return 2;
}

}  // namespace
}  // namespace bplace::bench

int main(int argc, char** argv) {
  return bplace::bench::RunMain(argc, argv, "frontdoor_bench", bplace::bench::Main);
}
