// jobs_refresh_bench: bplaced's own CPU per jobs refresh and its memory
// per followed job (bench/README.md "bplaced's CPU per jobs refresh, in
// process (issue 20)"), without the simulator's slow bjobs: the real jobs
// tier (JobTracker, with its state store in a temporary directory) in this
// process, following N jobs bplace submitted, against canned `bjobs -a -o
// "<lsf::BjobsOutputFields()>" -json ID...` answers (LSF 10.1's layout,
// bench/canned_bjobs.h) handed over as the runner's results. A refresh is
// the tier's whole work: the argv chunks (500 ids a call), ReadBjobsReply
// of each answer, MergeBjobs, the publish, and what the journal's thread
// writes to SQLite (JobTracker::Persist). Not in it: starting bjobs and
// reading its pipes.
//
// The N jobs are written to the store and loaded as bplace holds them after
// a restart (SUBMITTED), so the first refresh changes every job; at each
// refresh after it, 2% of the jobs change state (PEND <-> RUN: the 1% that
// changes and the 1% that changed back). CPU is the process's (both
// threads), median of the steady refreshes; RSS is VmRSS growth from
// before the jobs were made to after the last refresh, per followed job.
// Usage: jobs_refresh_bench run|smoke [--jobs 10000,100000] [--refreshes 5]
// smoke: 1000 jobs, 2 refreshes; fails only when the tier does not end
// with LSF's states.

#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "bench/bench_util.h"
#include "bench/canned_bjobs.h"
#include "common/manual_clock.h"
#include "daemon/cluster/bjobs_dialect.h"
#include "daemon/jobs/job_tracker.h"
#include "daemon/state/job_journal.h"

namespace bplace::bench {
namespace {

constexpr int kUsers = 200;
constexpr int kIdsPerCall = 500;  // lsf::BjobsArgvChunks's default

double CpuMs(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) * 1000 + static_cast<double>(now.tv_nsec) / 1e6;
}

long RssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// LSF's state of job `i` at refresh `round` (from 1): CannedStatus, never
// EXIT (every job stays followed), and PEND <-> RUN for the 1% of jobs with
// i % 100 == round % 100.
std::string StatusAt(int i, int round) {
  const bool run = CannedStatus(i) == "RUN";
  return run != (round > 0 && i % 100 == round % 100) ? "RUN" : "PEND";
}

// bjobs as the canned answers of one refresh: each call gets the answer
// prepared for its first id (moved out, as the real runner hands over what
// it read), on the io_context as the real runner's callbacks arrive.
class CannedBjobs final : public lsf::CommandRunner {
 public:
  explicit CannedBjobs(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}

  // Answers for the refresh of `round`, for jobs [0, jobs).
  void Prepare(int jobs, int round) {
    answers_.clear();
    for (int first = 0; first < jobs; first += kIdsPerCall) {
      answers_[std::to_string(CannedJobId(first))] =
          CannedBjobsJson(first, std::min(kIdsPerCall, jobs - first), kUsers,
                          [round](int i) { return StatusAt(i, round); });
    }
  }

  void Run(lsf::CommandSpec spec, Callback done) override {
    lsf::CommandResult result;
    const auto it = spec.argv.size() > 5 ? answers_.find(spec.argv[5]) : answers_.end();
    if (it == answers_.end()) {
      result.exit_code = 255;
      result.err = "jobs_refresh_bench: no canned answer for this bjobs\n";
    } else {
      result.exit_code = 0;
      result.out = std::move(it->second);
    }
    boost::asio::post(executor_, [done = std::move(done), result = std::move(result)]() mutable {
      done(std::move(result));
    });
  }

 private:
  boost::asio::any_io_executor executor_;
  std::map<std::string, std::string> answers_;
};

// The row of job `i` as bplace stores a job it submitted (bsub gave the id).
TrackedJob SubmittedRow(int i, SystemTime now) {
  JobView view;
  view.lsf.job_id = std::to_string(CannedJobId(i));
  view.lsf.status = kSubmittedStatus;
  view.lsf.user = "user" + std::to_string(i % kUsers);
  view.lsf.queue = "normal";
  view.submitted_by_bplace = true;
  view.request_id = "req-" + std::to_string(i);
  view.tag = "t" + std::to_string(i);
  view.idempotency_key = "key-" + std::to_string(i);
  view.requested_queue = "normal";
  view.submitted_at = now;
  view.updated_at = now;
  return ToTracked({CannedJobId(i), 0}, view);
}

struct Figures {
  double first_ms = 0;            // the refresh after a restart: every job changes
  std::vector<double> steady_ms;  // the refreshes after it
  std::vector<double> tier_ms;    // of which on the tier's thread (the rest: SQLite's)
  long rss_kib = 0;
  bool states_right = false;
};

// The jobs tier with a state store in a temporary directory, following
// `jobs` jobs, refreshed `refreshes` + 1 times.
Figures Measure(int jobs, int refreshes) {
  Figures figures;
  const long rss_before = RssKib();
  std::string pattern = std::filesystem::temp_directory_path().string() + "/bplace-refresh-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  const std::filesystem::path dir = pattern;
  {
    boost::asio::io_context io;
    ManualClock clock;
    clock.SetSystemTime(std::chrono::sys_days(std::chrono::year(2026) / 12 / 2));
    SnapshotStore snapshots;
    BjobsDialect dialect;
    const lsf::LsfInvoker invoker("", "", std::chrono::seconds(30), {});
    CannedBjobs lsf(io.get_executor());
    auto store = JobStore::Open(dir.string());
    if (!store) throw std::runtime_error(store.error().message);
    std::vector<TrackedJob> rows;
    for (int i = 0; i < jobs; ++i) rows.push_back(SubmittedRow(i, clock.SystemNow()));
    if (auto written = (*store)->UpsertJobs(rows); !written) {
      throw std::runtime_error(written.error().message);
    }
    JobJournal journal(std::move(*store));
    JobTracker tracker(io.get_executor(), lsf, clock, snapshots, invoker, &journal, {}, dialect);
    tracker.Load(rows);
    rows.clear();
    rows.shrink_to_fit();

    for (int round = 0; round <= refreshes; ++round) {
      clock.Advance(std::chrono::seconds(10));
      lsf.Prepare(jobs, round);
      const double process_before = CpuMs(CLOCK_PROCESS_CPUTIME_ID);
      const double thread_before = CpuMs(CLOCK_THREAD_CPUTIME_ID);
      std::optional<Result<void>> outcome;
      tracker.Refresh([&](Result<void> result) { outcome = std::move(result); });
      io.restart();
      while (!outcome && io.run_one() > 0) {
      }
      const double tier_ms = CpuMs(CLOCK_THREAD_CPUTIME_ID) - thread_before;
      std::promise<void> written;
      journal.Post([&](JobStore&) { written.set_value(); });
      written.get_future().wait();
      const double total_ms = CpuMs(CLOCK_PROCESS_CPUTIME_ID) - process_before;
      if (!outcome || !*outcome) {
        throw std::runtime_error("refresh failed: " +
                                 (outcome ? outcome->error().message : std::string("no outcome")));
      }
      if (round == 0) {
        figures.first_ms = total_ms;
      } else {
        figures.steady_ms.push_back(total_ms);
        figures.tier_ms.push_back(tier_ms);
      }
    }
    figures.rss_kib = RssKib() - rss_before;
    const auto table = snapshots.Current()->jobs;
    figures.states_right = table && table->jobs.size() == static_cast<std::size_t>(jobs);
    for (int i = 0; figures.states_right && i < jobs; ++i) {
      const JobView* view = table->Find({CannedJobId(i), 0});
      figures.states_right = view != nullptr && view->lsf.status == StatusAt(i, refreshes) &&
                             view->last_seen_in_lsf == clock.SystemNow();
    }
  }
  std::filesystem::remove_all(dir);
  return figures;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

int Run(const std::vector<int>& sizes, int refreshes) {
  std::printf("The jobs tier's refresh, %s, load %s\n\n", Timestamp().c_str(),
              LoadAverage().c_str());
  std::printf(
      "| jobs followed | bjobs per refresh | CPU per refresh (median of %d; min-max) | of which "
      "the tier's thread | first refresh after a restart (every job changes) | RSS growth | "
      "per followed job |\n|---|---|---|---|---|---|---|\n",
      refreshes);
  bool right = true;
  for (int jobs : sizes) {
    const Figures f = Measure(jobs, refreshes);
    const auto [low, high] = std::minmax_element(f.steady_ms.begin(), f.steady_ms.end());
    std::printf("| %d | %d | %.1f ms (%.1f-%.1f) | %.1f ms | %.0f ms | %.1f MB | %.0f bytes |\n",
                jobs, (jobs + kIdsPerCall - 1) / kIdsPerCall, Median(f.steady_ms), *low, *high,
                Median(f.tier_ms), f.first_ms, static_cast<double>(f.rss_kib) / 1024,
                static_cast<double>(f.rss_kib) * 1024 / jobs);
    std::fflush(stdout);
    if (!f.states_right) {
      std::fprintf(stderr, "jobs_refresh_bench: %d jobs: the table is not LSF's last answer\n",
                   jobs);
      right = false;
    }
  }
  return right ? 0 : 1;
}

int Main(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << "usage: jobs_refresh_bench run|smoke [--jobs 10000,100000] [--refreshes 5]\n";
    return 2;
  }
  Flags flags(std::vector<std::string>(args.begin() + 1, args.end()));
  const bool smoke = args[0] == "smoke";
  const std::vector<int> sizes = flags.Ints("jobs", smoke ? "1000" : "10000,100000");
  const int refreshes = flags.Int("refreshes", smoke ? 2 : 5);
  flags.CheckAllKnown();
  if (args[0] != "run" && !smoke) {
    std::cerr << "jobs_refresh_bench: unknown mode " << args[0] << "\n";
    return 2;
  }
  spdlog::set_level(spdlog::level::warn);  // not the tier's "jobs read from the state store"
  if (refreshes < 1) {
    std::cerr << "jobs_refresh_bench: --refreshes must be at least 1\n";
    return 2;
  }
  return Run(sizes, refreshes);
}

}  // namespace
}  // namespace bplace::bench

int main(int argc, char** argv) {
  return bplace::bench::RunMain(argc, argv, "jobs_refresh_bench", bplace::bench::Main);
}
