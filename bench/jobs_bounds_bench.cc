// What job tracking costs when callers misbehave and time passes (docs/api.md "Jobs: following and
// cancelling"; bench/README.md "Jobs: bounded under a flood and over a week (issue 21)").
//
//   jobs_bounds_bench flood [--clients 32] [--window-s 60]
//   jobs_bounds_bench week  [--days 9] [--jobs-per-hour 60] [--lookups-per-s 40]
//                           [--refresh-s 60] [--seed 1]
//   jobs_bounds_bench smoke (both at tiny sizes: the ctest jobs_bounds_bench_smoke)
//
// flood: the real bplaced against the LSF simulator (tests/integration
//   harness), 50 jobs followed; `clients` threads send GET /v1/jobs/{id} for
//   ids LSF never gave (each a new one) for the window, with the token of one
//   user. bplaced's resident memory (VmRSS) and the state dir's bytes
//   before and after, the rows of the state store, bjobs calls, and the
//   answers by status.
// week:  the jobs tier in this process on an injected clock (ManualClock),
//   with a simulated LSF behind the CommandRunner seam and the real state
//   store (SQLite) in a temporary directory: jobs submitted all day, running
//   1-20 h, 2% lost by mbatchd before they finish, finished ones cleaned an
//   hour after (CLEAN_PERIOD); one caller looks up `lookups-per-s` ids LSF
//   never gave, through the lookup budget as GET /v1/jobs/{id} does. At the
//   end of each simulated day: rows in memory and on disk, the store's
//   bytes, the lookup budget's entries, this process's VmRSS.

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "bench/bench_util.h"
#include "common/manual_clock.h"
#include "daemon/cluster/snapshot_store.h"
#include "daemon/jobs/job_tracker.h"
#include "daemon/state/job_journal.h"
#include "daemon/state/job_store.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/lsf_invoker.h"
#include "tests/integration/harness.h"

namespace {

using bplace::bench::Flags;
using bplace::bench::LoadAverage;
using bplace::bench::SecondsSince;
using bplace::bench::Timestamp;
using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kToken = "bpl_jobs_bounds_bench_0123456789";

// VmRSS of /proc/PID/status, in KiB ("self" for this process).
long RssKib(const std::string& pid) {
  std::ifstream status("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Bytes of the regular files in `dir` (the SQLite file, its WAL, the audit log).
std::uintmax_t DirBytes(const std::filesystem::path& dir) {
  std::uintmax_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
  }
  return bytes;
}

// Rows of the state store: counted with the sqlite3 CLI when installed.
std::string StoredRows(const std::filesystem::path& dir) {
  const auto out = bplace::testing::RunProcess(
      {"/usr/bin/sqlite3", (dir / "bplace.sqlite").string(), "SELECT count(*) FROM tracked_jobs"});
  if (out.exit_code != 0) return "?";
  std::string rows = out.out;
  while (!rows.empty() && rows.back() == '\n') rows.pop_back();
  return rows;
}

// ------------------------------------------------------------------ flood

int Flood(Flags& flags) {
  const int clients = flags.Int("clients", 32);
  const int window_s = flags.Int("window-s", 60);
  flags.CheckAllKnown();
  std::printf("jobs_bounds_bench flood, %s, load average %s\n", Timestamp().c_str(),
              LoadAverage().c_str());
  bplace::testing::SimCluster sim(DEMO_CLUSTER);
  bplace::testing::DaemonSettings settings;
  settings.jobs_refresh_s = 10;
  settings.command_timeout_s = 30;
  settings.load_refresh_s = 15;
  settings.topology_refresh_s = 300;
  settings.token_lines = {bplace::testing::TokenHash(kToken) + " " +
                          bplace::testing::ServiceUserFor(settings) + " read,submit"};
  bplace::testing::DaemonProcess daemon(sim, settings);
  const std::string bearer = std::string("Bearer ") + kToken;
  for (int i = 0; i < 50; ++i) {
    const auto reply = bplace::testing::Http(
        daemon.port(), "POST", "/v1/jobs",
        json{{"queues", {"short"}}, {"command", "sleep 600"}}.dump(), "application/json", bearer);
    if (reply.status != 201) throw std::runtime_error("POST /v1/jobs: " + reply.body);
  }
  (void)bplace::testing::Http(daemon.port(), "GET", "/v1/jobs?wait_s=30", "", "", bearer);
  const std::filesystem::path state = sim.dir() / "state";
  const std::string pid = std::to_string(daemon.pid());
  const long rss_before = RssKib(pid);
  const std::uintmax_t bytes_before = DirBytes(state);
  const std::string rows_before = StoredRows(state);
  const int bjobs_before = sim.Counts().value("bjobs", 0);
  std::atomic<long long> next_id{1'000'000};
  std::mutex mutex;
  std::map<int, long> answers;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      std::map<int, long> mine;
      while (SecondsSince(start) < window_s) {
        const std::string id = std::to_string(next_id++);
        const auto reply =
            bplace::testing::Http(daemon.port(), "GET", "/v1/jobs/" + id, "", "", bearer);
        ++mine[reply.status];
      }
      std::lock_guard lock(mutex);
      for (const auto& [status, n] : mine) answers[status] += n;
    });
  }
  for (std::thread& thread : threads) thread.join();
  const double elapsed = SecondsSince(start);
  (void)bplace::testing::Http(daemon.port(), "GET", "/v1/jobs?wait_s=30", "", "", bearer);
  long total = 0;
  std::string by_status;
  for (const auto& [status, n] : answers) {
    total += n;
    by_status += " " + std::to_string(status) + ":" + std::to_string(n);
  }
  std::printf("flood: %d clients, %ld GET /v1/jobs/{unknown id} in %.1f s (%.0f/s), answers%s\n",
              clients, total, elapsed, total / elapsed, by_status.c_str());
  std::printf(
      "flood: bjobs calls %d; bplaced VmRSS %ld -> %ld KiB; state dir %ju -> %ju bytes; "
      "tracked_jobs rows %s -> %s; load average %s\n",
      sim.Counts().value("bjobs", 0) - bjobs_before, rss_before, RssKib(pid), bytes_before,
      DirBytes(state), rows_before.c_str(), StoredRows(state).c_str(), LoadAverage().c_str());
  return 0;
}

// ------------------------------------------------------------------- week

// LSF for the week: jobs that pend a minute, run, finish (DONE or EXIT) and
// are cleaned an hour later, or are lost while running; it answers
// `bjobs -a -o ... -json ID...` (LSF 10.1's layout, docs/lsf-formats.md "bjobs -o -json") on the
// io_context, as the real runner's callbacks arrive. Not thread-safe: the
// bench drives it from one thread.
class SimulatedLsf final : public bplace::lsf::CommandRunner {
 public:
  SimulatedLsf(boost::asio::any_io_executor executor, bplace::ManualClock& clock)
      : executor_(std::move(executor)), clock_(clock) {}

  // A job submitted now that runs `run_for` after a minute pending and ends
  // with `exit_code`, or is lost by mbatchd after half its run when `lost`.
  std::int64_t Submit(std::chrono::seconds run_for, int exit_code, bool lost) {
    const auto now = clock_.SystemNow();
    jobs_[next_id_] = {now + 60s, now + 60s + run_for, exit_code, lost};
    return next_id_++;
  }

  void Run(bplace::lsf::CommandSpec spec, Callback done) override {
    ++calls_;
    json records = json::array();
    bool unknown = false;
    for (std::size_t i = 5; i < spec.argv.size(); ++i) {
      const std::string& id = spec.argv[i];
      const std::string status = StatusOf(std::stoll(id));
      ++ids_;
      if (status.empty()) {
        unknown = true;
        records.push_back({{"JOBID", id}, {"ERROR", "Job <" + id + "> is not found"}});
      } else {
        records.push_back(
            {{"JOBID", id},
             {"JOBINDEX", "0"},
             {"USER", "alice"},
             {"STAT", status},
             {"QUEUE", "normal"},
             {"EXIT_CODE", status == "EXIT" ? std::to_string(Job(id).exit_code) : std::string()}});
      }
    }
    bplace::lsf::CommandResult result;
    result.exit_code = unknown ? 255 : 0;
    result.out =
        json{{"COMMAND", "bjobs"}, {"JOBS", records.size()}, {"RECORDS", records}}.dump(2) + "\n";
    boost::asio::post(executor_, [done = std::move(done), result = std::move(result)] {
      done(std::move(result));
    });
  }

  long long calls() const { return calls_; }
  long long ids() const { return ids_; }

 private:
  struct SimJob {
    bplace::SystemTime starts, ends;
    int exit_code = 0;
    bool lost = false;
  };
  const SimJob& Job(const std::string& id) const { return jobs_.at(std::stoll(id)); }

  // LSF's STAT now, or "" for a job it does not know.
  std::string StatusOf(std::int64_t id) const {
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) return "";
    const SimJob& job = it->second;
    const auto now = clock_.SystemNow();
    if (now < job.starts) return "PEND";
    if (job.lost && now >= job.starts + (job.ends - job.starts) / 2) return "";
    if (now < job.ends) return "RUN";
    if (now >= job.ends + 1h) return "";  // CLEAN_PERIOD
    return job.exit_code == 0 ? "DONE" : "EXIT";
  }

  boost::asio::any_io_executor executor_;
  bplace::ManualClock& clock_;
  std::map<std::int64_t, SimJob> jobs_;
  std::int64_t next_id_ = 1;
  long long calls_ = 0;
  long long ids_ = 0;
};

// Rows of the table by what bplace knows of them.
std::string TableCounts(const bplace::JobTable& table) {
  int live = 0, terminal = 0, left = 0, missing = 0, other = 0;
  for (const auto& [key, view] : table.jobs) {
    if (view->terminal) {
      ++terminal;
    } else if (view->left_lsf) {
      ++left;
    } else if (view->missing_since) {
      ++missing;
    } else if (view->last_seen_in_lsf) {
      ++live;
    } else {
      ++other;
    }
  }
  std::ostringstream out;
  out << table.jobs.size() << " (live " << live << ", finished " << terminal << ", left LSF "
      << left << ", missing " << missing << ", other " << other << ")";
  return out.str();
}

// The parts of a simulated week: a jobs tier with its state store in a
// temporary directory, on one io_context and a ManualClock, against
// SimulatedLsf. Driven from one thread.
class Week {
 public:
  Week(int refresh_s, int seed) : rng_(static_cast<std::uint64_t>(seed)) {
    std::string pattern = std::filesystem::temp_directory_path().string() + "/bplace-week-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    auto store = bplace::JobStore::Open(dir_.string());
    if (!store) throw std::runtime_error(store.error().message);
    journal_ = std::make_unique<bplace::JobJournal>(std::move(*store));
    clock_.SetSystemTime(std::chrono::sys_days(std::chrono::year(2027) / 1 / 4));
    bplace::JobTrackerOptions options;
    options.interval = std::chrono::seconds(refresh_s);
    tracker_ = std::make_unique<bplace::JobTracker>(io_.get_executor(), lsf_, clock_, snapshots_,
                                                    invoker_, journal_.get(), options, dialect_);
    tracker_->Start();
  }

  ~Week() {
    tracker_->Stop();
    tracker_.reset();
    journal_.reset();
    std::filesystem::remove_all(dir_);
  }

  // One job submitted through bplace now: runs 1-20 h, a quarter EXIT, 2%
  // lost by mbatchd while running.
  void Submit() {
    const auto run_for = std::chrono::seconds(3600 + rng_() % (19 * 3600));
    const std::int64_t id = lsf_.Submit(run_for, rng_() % 4 == 0 ? 1 : 0, rng_() % 50 == 0);
    bplace::JobView view;
    view.lsf.job_id = std::to_string(id);
    view.lsf.status = bplace::kSubmittedStatus;
    view.lsf.user = "alice";
    view.submitted_by_bplace = true;
    view.submitted_at = clock_.SystemNow();
    view.updated_at = clock_.SystemNow();
    tracker_->AddSubmitted({id, 0}, view);
  }

  // `count` lookups by one caller of ids LSF never gave, as GET
  // /v1/jobs/{id} makes them (JobLookups, then Watch).
  void Attack(int count) {
    std::vector<bplace::lsf::JobId> asked;
    for (int i = 0; i < count; ++i) {
      const auto verdict =
          tracker_->lookups().Begin("mallory", {unknown_id_, 0}, clock_.SystemNow());
      if (verdict.admission == bplace::JobLookups::Admission::kLookUp) {
        asked.push_back({std::to_string(unknown_id_++), 0});
        ++admitted_;
      } else {
        ++(verdict.admission == bplace::JobLookups::Admission::kTooMany ? refused_ : remembered_);
      }
    }
    if (asked.empty()) return;
    tracker_->Watch(asked, [this, asked](bplace::Result<void>) {
      const auto table = snapshots_.Current()->jobs;
      for (const auto& id : asked) {
        const bplace::JobKey key{std::stoll(id.job_id), 0};
        const bplace::JobView* view = table ? table->Find(key) : nullptr;
        tracker_->lookups().Finish("mallory", key, view != nullptr && view->not_found,
                                   clock_.SystemNow());
      }
    });
  }

  // Runs what is due, then moves time on by `step` and runs what that made due.
  void Pass(std::chrono::seconds step) {
    io_.restart();
    io_.poll();
    clock_.Advance(step);
    io_.restart();
    io_.poll();
  }

  // One row of the table of figures.
  void Report(int day) {
    std::promise<std::size_t> stored;
    journal_->Post([&](bplace::JobStore& store) {
      bplace::JobFilter filter;
      filter.limit = 1000;
      std::size_t rows = 0;
      for (;;) {
        auto page = store.ListJobs(filter);
        if (!page) break;
        rows += page->jobs.size();
        if (page->next_cursor.empty()) break;
        filter.cursor = page->next_cursor;
      }
      stored.set_value(rows);
    });
    const std::size_t rows = stored.get_future().get();
    const auto table = snapshots_.Current()->jobs;
    std::printf(
        "| %d | %s | %zu | %ju | %zu callers, %zu ids | %ld | %lld | %lld | %lld / %lld / %lld |\n",
        day, table ? TableCounts(*table).c_str() : "0", rows, DirBytes(dir_),
        tracker_->lookups().Callers(), tracker_->lookups().NotFoundEntries(), RssKib("self"),
        lsf_.calls(), lsf_.ids(), admitted_, refused_, remembered_);
  }

 private:
  std::filesystem::path dir_;
  boost::asio::io_context io_;
  bplace::ManualClock clock_;
  SimulatedLsf lsf_{io_.get_executor(), clock_};
  bplace::SnapshotStore snapshots_;
  bplace::lsf::LsfInvoker invoker_{"", "", 30000ms, {}};
  std::unique_ptr<bplace::JobJournal> journal_;
  bplace::BjobsDialect dialect_;
  std::unique_ptr<bplace::JobTracker> tracker_;
  std::mt19937_64 rng_;
  std::int64_t unknown_id_ = 100'000'000;
  long long admitted_ = 0, refused_ = 0, remembered_ = 0;
};

int WeekMode(Flags& flags) {
  const int days = flags.Int("days", 9);
  const int jobs_per_hour = flags.Int("jobs-per-hour", 60);
  const int lookups_per_s = flags.Int("lookups-per-s", 40);
  const int refresh_s = flags.Int("refresh-s", 60);
  const int seed = flags.Int("seed", 1);
  flags.CheckAllKnown();
  std::printf(
      "jobs_bounds_bench week, %s: %d days, %d jobs an hour, %d lookups a second of unknown "
      "ids by one caller, refresh every %d s, seed %d\n",
      Timestamp().c_str(), days, jobs_per_hour, lookups_per_s, refresh_s, seed);
  const auto start = std::chrono::steady_clock::now();
  Week week(refresh_s, seed);
  std::printf(
      "| day | rows in memory | rows in the store | store bytes | lookup entries | "
      "VmRSS KiB | bjobs calls | ids asked | lookups admitted / 429 / answered from memory "
      "|\n|---|---|---|---|---|---|---|---|---|\n");
  double submit_credit = 0;
  for (int day = 1; day <= days; ++day) {
    for (int tick = 0; tick < 86400 / refresh_s; ++tick) {
      for (submit_credit += jobs_per_hour * refresh_s / 3600.0; submit_credit >= 1;
           submit_credit -= 1) {
        week.Submit();
      }
      week.Attack(lookups_per_s * refresh_s);
      week.Pass(std::chrono::seconds(refresh_s));
    }
    week.Report(day);
  }
  std::printf("week: %.1f s of wall time\n", SecondsSince(start));
  return 0;
}

int RunMode(int (*mode)(Flags&), std::vector<std::string> args) {
  Flags flags(args);
  return mode(flags);
}

// Both modes at tiny sizes (the ctest jobs_bounds_bench_smoke): proves the
// bench still runs; it judges no figure.
int Smoke(Flags& flags) {
  flags.CheckAllKnown();
  RunMode(WeekMode, {"--days", "1", "--refresh-s", "600", "--lookups-per-s", "1"});
  return RunMode(Flood, {"--clients", "2", "--window-s", "2"});
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: jobs_bounds_bench flood|week|smoke [--flag value ...] (see bench/README.md)\n";
  if (argc < 2) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string mode = argv[1];
  try {
    Flags flags(std::vector<std::string>(argv + 2, argv + argc));
    if (mode == "flood") return Flood(flags);
    if (mode == "week") return WeekMode(flags);
    if (mode == "smoke") return Smoke(flags);
    std::fputs(usage.c_str(), stderr);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jobs_bounds_bench %s: %s\n", mode.c_str(), e.what());
    return 1;
  }
}
