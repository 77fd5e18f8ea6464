// Figures of the jobs tier and of exactly-once submission (bench/README.md
// "Jobs: one bjobs for everyone, and exactly once under kill -9"): the real
// bplaced against the LSF simulator on 127.0.0.1, started with the integration
// harness (tests/integration/harness.cc), HTTP load from wrk
// (bench/jobs_read.lua).
//
//   jobs_bench polling [--jobs 1000] [--clients 1,200] [--window-s 60] [--refresh-s 10]
//   jobs_bench storm   [--jobs 1000] [--submissions 200] [--submitters 20] [--readers 20]
//                      [--bsub-slow-ms 0] [--refresh-s 10]
//   jobs_bench cpu     [--tracked 1000,10000] [--refresh-s 10] [--window-s 60]
//   jobs_bench smoke   (every mode at tiny sizes: the ctest jobs_bench_smoke)
//   jobs_bench crash   [--loops 10] [--submissions 200] [--clients 20] [--kills 3]
//                      [--bsub-slow-ms 200] [--refresh-s 2] [--seed S]
//
// polling: mbatchd's bjobs per minute (the simulator's count over a measured
//   window, and a counting wrapper's, with ids and argv bytes per call) while
//   N clients poll GET /v1/jobs/{id} over the submitted jobs; their latency.
// cpu:     bplaced's CPU per jobs refresh (/proc/PID/stat over a window with
//   only the jobs tier on a timer) for N followed jobs.
// storm:   GET /v1/jobs/{id} latency (wrk) alone, then while submitters fire
//   keyed POST /v1/jobs.
// crash:   kill -9 of bplaced at random points during keyed submissions,
//   restarted on the same [state] dir; every client retries with its key
//   until a 201; then LSF must hold exactly one job per key, the one the
//   client was given. Exit status 1 when it does not.
// Run as root (the harness then runs bplaced as bplace-sys; tools/test-users.sh
// makes that user) or as an ordinary user. wrk must be on PATH.

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_util.h"
#include "tests/integration/harness.h"

extern char** environ;

namespace {

using bplace::bench::Flags;
using bplace::bench::LoadAverage;
using bplace::bench::OnPath;
using bplace::bench::ReadFile;
using bplace::bench::SecondsSince;
using bplace::bench::Timestamp;

using bplace::testing::DaemonProcess;
using bplace::testing::DaemonSettings;
using bplace::testing::Http;
using bplace::testing::HttpReply;
using bplace::testing::ProcessOutput;
using bplace::testing::SimCluster;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

// The bearer token every request of the bench sends (read, submit, admin for
// the daemon's service user).
constexpr const char* kToken = "bpl_jobs_bench_0123456789abcdef";
// bjobs ids per call (lsf_adapter/bjobs_command.h kBjobsMaxIdsPerCall).
constexpr int kIdsPerBjobs = 500;

// The user bplaced runs as (and submits as): DaemonProcess's choice.
std::string ServiceUser() {
  if (geteuid() == 0) return "bplace-sys";
  const passwd* pw = getpwuid(geteuid());
  return pw != nullptr ? pw->pw_name : "nobody";
}

// The simulator's LSF commands as bplaced's [lsf] bin_dir, with bjobs
// behind a counting wrapper: each call appends "<ids> <argv bytes>" to
// BjobsLog(sim) (ids: the words that start with a digit; bytes: every
// argument with its NUL) and then runs the simulator's bjobs with the same
// arguments. So the bench counts mbatchd's jobs queries itself, call by call,
// besides the simulator's own count (`lsfsim counts`). Returns the directory.
std::filesystem::path BjobsLog(const SimCluster& sim) { return sim.dir() / "bjobs_calls"; }

std::string CountingBinDir(const SimCluster& sim) {
  namespace fs = std::filesystem;
  const fs::path bin = sim.dir() / "bin";
  fs::create_directories(bin);
  for (const auto& entry : fs::directory_iterator(LSFSIM_BIN_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name != "bjobs") fs::create_symlink(entry.path(), bin / name);
  }
  const fs::path log = BjobsLog(sim);
  std::ofstream(log).close();
  // bplaced may run as another user (bplace-sys): it appends to the log.
  fs::permissions(log, fs::perms::all & ~(fs::perms::owner_exec | fs::perms::group_exec |
                                          fs::perms::others_exec));
  {
    std::ofstream wrapper(bin / "bjobs");
    wrapper << "#!/bin/sh\n"
            << "# jobs_bench: count this call, then run the simulator's bjobs.\n"
            << "n=0; b=0\n"
            << "for a; do b=$((b + ${#a} + 1)); case $a in [0-9]*) n=$((n + 1));; esac; done\n"
            << "printf '%s %s\\n' \"$n\" \"$b\" >> '" << log.string() << "'\n"
            << "exec '" << LSFSIM_BIN_DIR << "/bjobs' \"$@\"\n";
  }
  fs::permissions(bin / "bjobs", fs::perms::owner_all | fs::perms::group_read |
                                     fs::perms::group_exec | fs::perms::others_read |
                                     fs::perms::others_exec);
  fs::permissions(bin, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  return bin.string();
}

// The bjobs calls the wrapper logged, in order: ids and argv bytes of each.
struct BjobsCall {
  long long ids = 0;
  long long bytes = 0;
};

std::vector<BjobsCall> ReadBjobsLog(const SimCluster& sim) {
  std::ifstream in(BjobsLog(sim));
  std::vector<BjobsCall> calls;
  for (BjobsCall call; in >> call.ids >> call.bytes;) calls.push_back(call);
  return calls;
}

// "N calls, at most I ids and B argv bytes in one" over calls[from, end).
std::string DescribeCalls(const std::vector<BjobsCall>& calls, std::size_t from) {
  long long ids = 0, max_ids = 0, max_bytes = 0;
  for (std::size_t i = from; i < calls.size(); ++i) {
    ids += calls[i].ids;
    max_ids = std::max(max_ids, calls[i].ids);
    max_bytes = std::max(max_bytes, calls[i].bytes);
  }
  char text[160];
  std::snprintf(text, sizeof text,
                "%zu bjobs calls, %lld ids in all, at most %lld ids and %lld "
                "argv bytes in one",
                calls.size() - std::min(from, calls.size()), ids, max_ids, max_bytes);
  return text;
}

// The pid of the bplaced that serves `sim` (found by its --config argument
// in /proc; setpriv execs it, so the pid is the one the harness started).
pid_t DaemonPid(const SimCluster& sim) {
  const std::string config = (sim.dir() / "bplaced.toml").string();
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    std::stringstream words(cmdline);
    for (std::string arg; std::getline(words, arg, '\0');) args.push_back(arg);
    if (!args.empty() && args[0] == BPLACED_PATH &&
        std::find(args.begin(), args.end(), config) != args.end()) {
      return static_cast<pid_t>(std::stol(name));
    }
  }
  throw std::runtime_error("no bplaced process with --config " + config);
}

// CPU seconds of a process (/proc/PID/stat, clock ticks): its own threads,
// and its reaped children (the bjobs processes it ran).
struct CpuTimes {
  double self_s = 0;
  double children_s = 0;
};

CpuTimes ReadCpu(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name in parentheses, which may hold blanks.
  const auto close = text.rfind(')');
  if (close == std::string::npos) throw std::runtime_error("cannot read /proc/PID/stat");
  std::stringstream fields(text.substr(close + 2));
  std::vector<std::string> f;
  for (std::string word; fields >> word;) f.push_back(word);
  // f[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
  if (f.size() < 15) throw std::runtime_error("short /proc/PID/stat");
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  CpuTimes cpu;
  cpu.self_s = (std::stod(f[11]) + std::stod(f[12])) / tick;
  cpu.children_s = (std::stod(f[13]) + std::stod(f[14])) / tick;
  return cpu;
}

// bplaced as the README's figures run it: [lsf] and [jobs] at their defaults
// unless a figure says otherwise, [limits] raised so that the bench's
// submissions all go through; LSF commands from `bin_dir` (CountingBinDir)
// when not empty.
DaemonSettings Settings(int jobs_refresh_s, int command_timeout_s,
                        const std::string& bin_dir = "") {
  DaemonSettings settings;
  settings.bin_dir = bin_dir;
  settings.command_timeout_s = command_timeout_s;
  settings.load_refresh_s = 15;
  settings.topology_refresh_s = 300;
  settings.max_staleness_s = 120;
  settings.jobs_refresh_s = jobs_refresh_s;
  settings.limits =
      "submit_burst = 100000\nsubmit_per_minute = 1000000\nlsf_calls_burst = 100000\n"
      "lsf_calls_per_minute = 1000000";
  settings.token_lines = {bplace::testing::TokenHash(kToken) + " " + ServiceUser() +
                          " read,submit,admin"};
  return settings;
}

std::string Bearer() { return std::string("Bearer ") + kToken; }

std::string JobBody(const std::string& command) {
  return json{{"host", "node007"}, {"queues", {"short"}}, {"command", command}}.dump();
}

HttpReply PostJob(int port, const std::string& body, const std::string& key = "") {
  std::map<std::string, std::string> headers;
  if (!key.empty()) headers["Idempotency-Key"] = key;
  return Http(port, "POST", "/v1/jobs", body, "application/json", Bearer(), headers);
}

int Count(const json& counts, const std::string& command) {
  return counts.is_object() ? counts.value(command, 0) : 0;
}

// `n` jobs through bplaced (POST /v1/jobs, no key), `concurrency` at a time;
// their ids in submission order. Throws when one is refused.
std::vector<std::string> SubmitMany(int port, int n, int concurrency) {
  std::vector<std::string> ids(static_cast<std::size_t>(n));
  std::atomic<int> next{0};
  std::mutex mutex;
  std::string failure;
  std::vector<std::thread> threads;
  for (int t = 0; t < concurrency; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < n; i = next++) {
        HttpReply reply;
        try {
          reply = PostJob(port, JobBody("sleep 3600"));
        } catch (const std::exception& e) {
          reply.body = e.what();
        }
        if (reply.status != 201) {
          std::lock_guard lock(mutex);
          failure = "POST /v1/jobs: " + std::to_string(reply.status) + " " + reply.body;
          next = n;
          return;
        }
        ids[static_cast<std::size_t>(i)] = reply.Json().value("job_id", "");
      }
    });
  }
  for (auto& thread : threads) thread.join();
  if (!failure.empty()) throw std::runtime_error(failure);
  return ids;
}

// A child process (wrk) with its output in a file.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& out_path) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<std::string> args = argv;
    std::vector<char*> pointers;
    for (auto& arg : args) pointers.push_back(arg.data());
    pointers.push_back(nullptr);
    const int rc =
        posix_spawnp(&pid_, args[0].c_str(), &actions, nullptr, pointers.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void Signal(int signal) const {
    if (pid_ > 0) kill(pid_, signal);
  }
  // Waits for the exit (SIGKILL after `timeout`); the exit status, -1 if killed.
  int Wait(seconds timeout) {
    const auto deadline = SteadyClock::now() + timeout;
    int status = 0;
    while (pid_ > 0) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      if (SteadyClock::now() > deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
        return -1;
      }
      std::this_thread::sleep_for(milliseconds(20));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
};

// The summary line of bench/jobs_read.lua, key by key.
struct WrkFigures {
  std::map<std::string, long long> values;
  long long operator[](const std::string& key) const {
    const auto it = values.find(key);
    return it == values.end() ? -1 : it->second;
  }
  double PerSecond() const {
    const long long us = (*this)["duration_us"];
    return us > 0 ? static_cast<double>((*this)["requests"]) * 1e6 / static_cast<double>(us) : 0;
  }
  std::string Latency() const {
    char text[160];
    std::snprintf(text, sizeof text, "p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
                  static_cast<double>((*this)["p50_us"]) / 1000,
                  static_cast<double>((*this)["p90_us"]) / 1000,
                  static_cast<double>((*this)["p99_us"]) / 1000,
                  static_cast<double>((*this)["max_us"]) / 1000);
    return text;
  }
  long long Errors() const {
    return (*this)["non2xx"] + (*this)["connect_errors"] + (*this)["read_errors"] +
           (*this)["write_errors"] + (*this)["timeouts"];
  }
};

WrkFigures ParseWrk(const std::filesystem::path& path) {
  const std::string text = ReadFile(path);
  const auto at = text.find("jobs_bench_wrk ");
  if (at == std::string::npos)
    throw std::runtime_error("no wrk summary in " + path.string() + ":\n" + text);
  std::stringstream line(text.substr(at + 15, text.find('\n', at) - at - 15));
  WrkFigures figures;
  for (std::string item; line >> item;) {
    const auto eq = item.find('=');
    if (eq != std::string::npos)
      figures.values[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
  }
  return figures;
}

// wrk reading every id of `ids_file` through bench/jobs_read.lua, for
// `duration_s` (or until interrupted with SIGINT, which makes wrk print its
// summary at once).
std::unique_ptr<Child> StartWrk(int port, int connections, int duration_s,
                                const std::filesystem::path& ids_file,
                                const std::filesystem::path& out) {
  const int threads = std::min(2, connections);
  return std::make_unique<Child>(
      std::vector<std::string>{
          "wrk", "-t", std::to_string(threads), "-c", std::to_string(connections), "-d",
          std::to_string(duration_s) + "s", "--timeout", "10s", "-s", JOBS_READ_LUA,
          "http://127.0.0.1:" + std::to_string(port), "--", ids_file.string(), kToken},
      out.string());
}

std::filesystem::path WriteIds(const SimCluster& sim, const std::vector<std::string>& ids) {
  const auto path = sim.dir() / "job_ids";
  std::ofstream out(path);
  for (const std::string& id : ids) out << id << "\n";
  return path;
}

std::string Percentile(std::vector<double> values, double p) {
  if (values.empty()) return "-";
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(p / 100.0 * static_cast<double>(values.size() - 1));
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", values[index]);
  return text;
}

// Starts the simulator and bplaced, and submits `jobs` through it.
struct Setup {
  Setup(int jobs, int refresh_s, int command_timeout_s)
      : sim(DEMO_CLUSTER),
        bin_dir(CountingBinDir(sim)),
        daemon(sim, Settings(refresh_s, command_timeout_s, bin_dir)) {
    std::printf("bplaced on 127.0.0.1:%d, [jobs] refresh_s = %d, state in %s\n", daemon.port(),
                refresh_s, sim.dir().c_str());
    const auto start = SteadyClock::now();
    ids = SubmitMany(daemon.port(), jobs, 8);
    std::printf("submitted %d jobs through POST /v1/jobs in %.1f s (8 at a time)\n", jobs,
                SecondsSince(start));
    ids_file = WriteIds(sim, ids);
    // Every job is followed from its 201 on; wait for a jobs refresh that
    // asked about all of them, so that the figures start in a steady state.
    std::this_thread::sleep_for(seconds(refresh_s + 2));
    std::fflush(stdout);
  }
  SimCluster sim;
  std::string bin_dir;
  DaemonProcess daemon;
  std::vector<std::string> ids;
  std::filesystem::path ids_file;
};

// ---------------------------------------------------------------- polling

int Polling(Flags& flags) {
  const int jobs = flags.Int("jobs", 1000);
  const int refresh_s = flags.Int("refresh-s", 10);
  const int window_s = flags.Int("window-s", 60);
  const int warmup_s = flags.Int("warmup-s", 5);
  const std::vector<int> clients = flags.Ints("clients", "1,200");
  flags.CheckAllKnown();
  std::printf("jobs_bench polling, %s, load average %s\n", Timestamp().c_str(),
              LoadAverage().c_str());
  Setup setup(jobs, refresh_s, 30);
  const int chunks = (jobs + kIdsPerBjobs - 1) / kIdsPerBjobs;
  std::printf("followed jobs: %d, so %d bjobs per jobs refresh (%d ids per bjobs)\n", jobs, chunks,
              kIdsPerBjobs);
  std::vector<std::pair<int, double>> results;
  for (const int n : clients) {
    std::unique_ptr<Child> wrk;
    const auto out = setup.sim.dir() / ("wrk_polling_" + std::to_string(n));
    if (n > 0) {
      wrk = StartWrk(setup.daemon.port(), n, warmup_s + window_s + 30, setup.ids_file, out);
      std::this_thread::sleep_for(seconds(warmup_s));
    }
    const std::string load_before = LoadAverage();
    const json before = setup.sim.Counts();
    const std::size_t logged_before = ReadBjobsLog(setup.sim).size();
    const auto start = SteadyClock::now();
    std::this_thread::sleep_for(seconds(window_s));
    const json after = setup.sim.Counts();
    const std::vector<BjobsCall> logged = ReadBjobsLog(setup.sim);
    const double elapsed = SecondsSince(start);
    const std::string load_after = LoadAverage();
    const int bjobs = Count(after, "bjobs") - Count(before, "bjobs");
    const double per_minute = bjobs * 60.0 / elapsed;
    std::string others;
    for (const auto& [command, value] : after.items()) {
      const int delta = value.get<int>() - Count(before, command);
      if (command != "bjobs" && delta != 0) others += " " + command + " " + std::to_string(delta);
    }
    std::printf(
        "clients %3d: bjobs %d in %.1f s = %.1f per minute (%.1f jobs refreshes a minute); "
        "other LSF commands in the window:%s; load average %s -> %s\n",
        n, bjobs, elapsed, per_minute, per_minute / chunks,
        others.empty() ? " none" : others.c_str(), load_before.c_str(), load_after.c_str());
    std::printf("             counting wrapper: %s\n",
                DescribeCalls(logged, logged_before).c_str());
    if (wrk) {
      wrk->Signal(SIGINT);
      wrk->Wait(seconds(30));
      const WrkFigures figures = ParseWrk(out);
      std::printf(
          "             GET /v1/jobs/{id}: %lld requests, %.0f/s, errors or non-2xx %lld, %s\n",
          figures["requests"], figures.PerSecond(), figures.Errors(), figures.Latency().c_str());
    }
    std::fflush(stdout);
    results.emplace_back(n, per_minute);
  }
  std::printf("mbatchd bjobs per minute:");
  for (const auto& [n, per_minute] : results) std::printf("  %d clients: %.1f", n, per_minute);
  // A window of whole intervals holds the same number of refreshes give or
  // take one (where the window's edges fall, and timer jitter).
  bool equal = true;
  for (const auto& [n, per_minute] : results) {
    const double tolerance = (chunks + 0.5) * 60.0 / window_s;
    equal = equal && std::abs(per_minute - results.front().second) <= tolerance;
  }
  std::printf("  -> %s (within one jobs refresh per window)\n", equal ? "equal" : "NOT equal");
  return 0;
}

// -------------------------------------------------------------------- cpu

// Makes `tracked` jobs in the simulator (arrays of at most 1,000 elements,
// LSF's default MAX_JOB_ARRAY_SIZE, submitted there directly by the bench's
// user, so that ten thousand cost ten bsubs) and has bplaced follow every
// element: GET /v1/jobs/ID[i] of an id it does not follow yet follows it
// from then on. Returns the element ids. Throws when an answer is not 200.
std::vector<std::string> FollowArrayElements(const SimCluster& sim, int port, int tracked) {
  std::vector<std::string> ids;
  for (int made = 0, array = 0; made < tracked; ++array) {
    const int n = std::min(1000, tracked - made);
    const ProcessOutput out = sim.Lsf(
        {"bsub", "-q", "short", "-J",
         "bench" + std::to_string(array) + "[1-" + std::to_string(n) + "]", "sleep", "3600"});
    // "Job <1234> is submitted to queue <short>."
    const auto open = out.out.find('<');
    const auto close = out.out.find('>', open);
    if (out.exit_code != 0 || open == std::string::npos || close == std::string::npos) {
      throw std::runtime_error("bsub of an array: " + out.out + out.err);
    }
    const std::string id = out.out.substr(open + 1, close - open - 1);
    for (int i = 1; i <= n; ++i) ids.push_back(id + "[" + std::to_string(i) + "]");
    made += n;
  }
  // 200 callers at once (below [server] max_connections, 256): each unknown
  // id waits for the next lookup, and one lookup serves every caller waiting.
  // A 503 is retried (for up to 2 minutes) and counted: a caller whose first
  // ask arrives while a jobs refresh is running is answered when that
  // refresh ends, and that refresh did not ask about its id (see
  // bench/README.md). So is a 429, after half a second: one user has at most
  // 64 lookups of unknown ids in flight (JobLookupOptions), and these 200
  // callers are one user.
  std::atomic<std::size_t> next{0};
  std::atomic<int> retried{0};
  std::mutex mutex;
  std::string failure;
  std::vector<std::thread> threads;
  for (int t = 0; t < 200; ++t) {
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < ids.size(); i = next++) {
        HttpReply reply;
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
        while (std::chrono::steady_clock::now() < give_up) {
          try {
            reply = Http(port, "GET", "/v1/jobs/" + ids[i], "", "application/json", Bearer());
          } catch (const std::exception& e) {
            reply.status = 0;
            reply.body = e.what();
          }
          if (reply.status != 503 && reply.status != 429) break;
          ++retried;
          if (reply.status == 429) std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
        if (reply.status != 200) {
          std::lock_guard lock(mutex);
          failure = "GET /v1/jobs/" + ids[i] + ": " + std::to_string(reply.status) + " " +
                    reply.body.substr(0, 300);
          next = ids.size();
          return;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  if (!failure.empty()) throw std::runtime_error(failure);
  std::printf(
      "following %d ids: %d first asks answered 503 \"could not be looked up\" and "
      "were asked again\n",
      tracked, retried.load());
  return ids;
}

// Waits until the wrapper logged at least one whole jobs refresh (calls whose
// ids add up to `tracked`) that started after this call; throws after
// `timeout`.
void WaitForWholeRefresh(const SimCluster& sim, long long tracked, seconds timeout) {
  const std::size_t from = ReadBjobsLog(sim).size();
  const auto deadline = SteadyClock::now() + timeout;
  while (SteadyClock::now() < deadline) {
    const std::vector<BjobsCall> calls = ReadBjobsLog(sim);
    long long ids = 0;
    // Twice the tracked ids since `from`: at least one whole refresh
    // started after it, whatever part of a running one came first.
    for (std::size_t i = from; i < calls.size(); ++i) ids += calls[i].ids;
    if (ids >= 2 * tracked) return;
    std::this_thread::sleep_for(milliseconds(200));
  }
  throw std::runtime_error("no whole jobs refresh within " + std::to_string(timeout.count()) +
                           " s");
}

int Cpu(Flags& flags) {
  const std::vector<int> tracked_list = flags.Ints("tracked", "1000,10000");
  const int refresh_s = flags.Int("refresh-s", 10);
  const int window_s = flags.Int("window-s", 60);
  flags.CheckAllKnown();
  std::printf("jobs_bench cpu, %s, load average %s\n", Timestamp().c_str(), LoadAverage().c_str());
  for (const int tracked : tracked_list) {
    SimCluster sim(DEMO_CLUSTER);
    const std::string bin_dir = CountingBinDir(sim);
    DaemonSettings settings = Settings(refresh_s, 60, bin_dir);
    // Only the jobs tier on a timer in the window: the load and topology
    // tiers ran at start-up and wait an hour.
    settings.load_refresh_s = 3600;
    settings.topology_refresh_s = 3600;
    settings.max_staleness_s = 7200;
    DaemonProcess daemon(sim, settings);
    const pid_t pid = DaemonPid(sim);
    const auto start = SteadyClock::now();
    const std::vector<std::string> ids = FollowArrayElements(sim, daemon.port(), tracked);
    std::printf(
        "tracked %d: bplaced (pid %d) follows %zu array elements after %.1f s of "
        "GET /v1/jobs/ID[i] by 200 callers\n",
        tracked, static_cast<int>(pid), ids.size(), SecondsSince(start));
    WaitForWholeRefresh(sim, tracked, seconds(10 * refresh_s + 120));
    const std::size_t logged_before = ReadBjobsLog(sim).size();
    const CpuTimes cpu_before = ReadCpu(pid);
    const std::string load_before = LoadAverage();
    const auto window_start = SteadyClock::now();
    std::this_thread::sleep_for(seconds(window_s));
    const CpuTimes cpu_after = ReadCpu(pid);
    const double elapsed = SecondsSince(window_start);
    const std::vector<BjobsCall> calls = ReadBjobsLog(sim);
    long long ids_asked = 0;
    for (std::size_t i = logged_before; i < calls.size(); ++i) ids_asked += calls[i].ids;
    // Refreshes in the window, counted in ids: a refresh asks about each
    // tracked id once.
    const double refreshes = static_cast<double>(ids_asked) / tracked;
    const double self_s = cpu_after.self_s - cpu_before.self_s;
    const double children_s = cpu_after.children_s - cpu_before.children_s;
    std::printf(
        "tracked %5d: %.1f s window, %.2f jobs refreshes (%s), load average %s -> %s\n"
        "               bplaced CPU %.3f s = %.1f ms per refresh (%.2f%% of a core); "
        "its bjobs children (simulator + wrapper) %.3f s = %.1f ms per refresh\n",
        tracked, elapsed, refreshes, DescribeCalls(calls, logged_before).c_str(),
        load_before.c_str(), LoadAverage().c_str(), self_s,
        refreshes > 0 ? self_s * 1000 / refreshes : 0.0, self_s * 100 / elapsed, children_s,
        refreshes > 0 ? children_s * 1000 / refreshes : 0.0);
    std::fflush(stdout);
  }
  return 0;
}

// ------------------------------------------------------------------ storm

int Storm(Flags& flags) {
  const int jobs = flags.Int("jobs", 1000);
  const int refresh_s = flags.Int("refresh-s", 10);
  const int submissions = flags.Int("submissions", 200);
  const int submitters = flags.Int("submitters", 20);
  const int readers = flags.Int("readers", 20);
  const int baseline_s = flags.Int("baseline-s", 10);
  const int slow_ms = flags.Int("bsub-slow-ms", 0);
  flags.CheckAllKnown();
  std::printf("jobs_bench storm, %s, load average %s\n", Timestamp().c_str(),
              LoadAverage().c_str());
  Setup setup(jobs, refresh_s, 30);
  const int port = setup.daemon.port();

  const auto quiet_out = setup.sim.dir() / "wrk_quiet";
  {
    const std::string load = LoadAverage();
    auto wrk = StartWrk(port, readers, baseline_s, setup.ids_file, quiet_out);
    wrk->Wait(seconds(baseline_s + 30));
    const WrkFigures quiet = ParseWrk(quiet_out);
    std::printf(
        "no submissions, %d wrk connections, %d s: %lld reads, %.0f/s, errors or non-2xx %lld, "
        "%s; load average %s -> %s\n",
        readers, baseline_s, quiet["requests"], quiet.PerSecond(), quiet.Errors(),
        quiet.Latency().c_str(), load.c_str(), LoadAverage().c_str());
  }

  if (slow_ms > 0) {
    const ProcessOutput fault = setup.sim.Lsf(
        {"lsfsim", "fault", "--command", "bsub", "--slow-ms", std::to_string(slow_ms)});
    if (fault.exit_code != 0) throw std::runtime_error("lsfsim fault: " + fault.err);
  }
  const auto storm_out = setup.sim.dir() / "wrk_storm";
  const std::string load = LoadAverage();
  auto wrk = StartWrk(port, readers, 600, setup.ids_file, storm_out);
  std::this_thread::sleep_for(seconds(1));
  std::mutex mutex;
  std::vector<double> latencies_ms;
  std::map<int, int> statuses;
  std::atomic<int> next{0};
  const auto start = SteadyClock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < submitters; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < submissions; i = next++) {
        const auto sent = SteadyClock::now();
        int status = 0;
        try {
          status = PostJob(port, JobBody("sleep 3600"), "storm-" + std::to_string(i)).status;
        } catch (const std::exception&) {
        }
        const double ms = SecondsSince(sent) * 1000;
        std::lock_guard lock(mutex);
        latencies_ms.push_back(ms);
        ++statuses[status];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const double storm_s = SecondsSince(start);
  wrk->Signal(SIGINT);
  wrk->Wait(seconds(30));
  const WrkFigures storm = ParseWrk(storm_out);
  std::string answers;
  for (const auto& [status, count] : statuses) {
    answers += " " + std::to_string(count) + "x" + std::to_string(status);
  }
  std::printf(
      "storm: %d keyed POST /v1/jobs by %d clients (bsub slow-ms %d) took %.1f s (%.0f/s); "
      "answers:%s; submission latency p50 %s, p99 %s\n",
      submissions, submitters, slow_ms, storm_s, submissions / storm_s, answers.c_str(),
      Percentile(latencies_ms, 50).c_str(), Percentile(latencies_ms, 99).c_str());
  std::printf(
      "during the storm (1 s before it to its end), %d wrk connections: %lld reads, %.0f/s, "
      "errors or non-2xx %lld, %s; load average %s -> %s\n",
      readers, storm["requests"], storm.PerSecond(), storm.Errors(), storm.Latency().c_str(),
      load.c_str(), LoadAverage().c_str());
  return 0;
}

// ------------------------------------------------------------------ crash

// What one key's client got in the end.
struct KeyOutcome {
  std::string key;
  int status = 0;  // 201, or the last status (0: no answer) when it gave up
  std::string job_id;
  std::string description;
  bool reconciled = false;
  bool replayed = false;
  int failed_tries = 0;  // tries without a 201 (no answer, 409, other)
  std::string last_body;
};

// Jobs of the simulator by description (all of them: several per
// description would be a duplicate).
std::multimap<std::string, std::string> JobsInLsf(const SimCluster& sim) {
  const ProcessOutput out =
      sim.Lsf({"bjobs", "-a", "-u", "all", "-o", "jobid job_description", "-json"});
  const json answer = json::parse(out.out, nullptr, false);
  std::multimap<std::string, std::string> jobs;
  if (!answer.is_object()) throw std::runtime_error("bjobs: " + out.out + out.err);
  for (const json& record : answer.value("RECORDS", json::array())) {
    if (record.contains("ERROR")) continue;
    jobs.emplace(record.value("JOB_DESCRIPTION", ""), record.value("JOBID", ""));
  }
  return jobs;
}

struct LoopResult {
  int kills = 0;
  int duplicates = 0;
  int lost = 0;
  int wrong = 0;
};

LoopResult CrashLoop(int loop, int loops, int submissions, int clients, int kills, int slow_ms,
                     int refresh_s, int command_timeout_s, int kill_min_ms, int kill_max_ms,
                     int client_timeout_s, std::mt19937& rng, const std::string& keep_prefix,
                     bool verbose) {
  const auto start = SteadyClock::now();
  SimCluster sim(DEMO_CLUSTER);
  const DaemonSettings settings = Settings(refresh_s, command_timeout_s);
  const ProcessOutput fault =
      sim.Lsf({"lsfsim", "fault", "--command", "bsub", "--slow-ms", std::to_string(slow_ms)});
  if (fault.exit_code != 0) throw std::runtime_error("lsfsim fault: " + fault.err);
  auto daemon = std::make_unique<DaemonProcess>(sim, settings);
  std::atomic<int> port{daemon->port()};
  std::atomic<int> answered{0};
  std::atomic<int> finished_keys{0};
  std::atomic<int> conflicts{0};
  std::atomic<int> no_answer{0};
  std::atomic<int> other_status{0};
  std::atomic<bool> stop{false};  // the bench itself failed: clients give up
  std::vector<KeyOutcome> outcomes(static_cast<std::size_t>(submissions));
  const std::string body = JobBody("sleep 3600");
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      for (int i = c; i < submissions; i += clients) {
        KeyOutcome& outcome = outcomes[static_cast<std::size_t>(i)];
        outcome.key = "crash-" + std::to_string(loop) + "-" + std::to_string(i);
        const auto deadline = SteadyClock::now() + seconds(client_timeout_s);
        while (SteadyClock::now() < deadline && !stop) {
          const int at = port.load();
          if (at == 0) {
            std::this_thread::sleep_for(milliseconds(20));
            continue;
          }
          HttpReply reply;
          try {
            reply = PostJob(at, body, outcome.key);
          } catch (const std::exception& e) {
            // The daemon died under the request, or is not back yet.
            ++no_answer;
            ++outcome.failed_tries;
            outcome.status = 0;
            outcome.last_body = e.what();
            std::this_thread::sleep_for(milliseconds(50));
            continue;
          }
          outcome.status = reply.status;
          outcome.last_body = reply.body;
          if (reply.status == 201) {
            const json answer = reply.Json();
            outcome.job_id = answer.value("job_id", "");
            outcome.description = answer.value("job_description", "");
            outcome.reconciled = answer.value("reconciled", false);
            outcome.replayed = reply.headers.contains("idempotency-replayed");
            ++answered;
            break;
          }
          // A stored refusal is replayed for ever: no 201 will come.
          if (reply.headers.contains("idempotency-replayed")) break;
          ++outcome.failed_tries;
          if (reply.status == 409) {
            ++conflicts;
          } else {
            ++other_status;
          }
          std::this_thread::sleep_for(milliseconds(reply.status == 409 ? 200 : 100));
        }
        ++finished_keys;
      }
    });
  }

  LoopResult result;
  std::vector<std::string> in_flight;
  const auto log = std::filesystem::path(daemon->log_path());
  try {
    for (int k = 0; k < kills; ++k) {
      std::uniform_int_distribution<int> delay(kill_min_ms, kill_max_ms);
      std::this_thread::sleep_for(milliseconds(delay(rng)));
      if (finished_keys.load() == submissions) break;
      const int bsubs = Count(sim.Counts(), "bsub");
      const int got = answered.load();
      daemon->Kill9();
      port = 0;
      ++result.kills;
      in_flight.push_back(std::to_string(bsubs) + "/" + std::to_string(got));
      std::filesystem::rename(log, log.string() + "." + std::to_string(result.kills));
      daemon = std::make_unique<DaemonProcess>(sim, settings);
      port = daemon->port();
    }
  } catch (...) {
    stop = true;
    for (auto& thread : threads) thread.join();
    const std::filesystem::path keep = keep_prefix + std::to_string(loop);
    std::filesystem::remove_all(keep);
    std::filesystem::copy(sim.dir(), keep, std::filesystem::copy_options::recursive);
    std::printf("loop %d/%d: the bench failed after %d kills; kept in %s\n", loop, loops,
                result.kills, keep.c_str());
    throw;
  }
  for (auto& thread : threads) thread.join();
  // A bsub the killed daemon left running lands within slow-ms: wait for it
  // before counting.
  std::this_thread::sleep_for(milliseconds(slow_ms + 1000));

  const auto in_lsf = JobsInLsf(sim);
  std::map<std::string, int> per_description;
  for (const auto& [description, id] : in_lsf) ++per_description[description];
  std::set<std::string> tags;
  std::vector<std::string> problems;
  int reconciled = 0;
  int replayed = 0;
  for (const KeyOutcome& outcome : outcomes) {
    if (outcome.status != 201) {
      ++result.lost;
      problems.push_back(outcome.key + ": no 201 (last " + std::to_string(outcome.status) + " " +
                         outcome.last_body.substr(0, 300) + ")");
      continue;
    }
    reconciled += outcome.reconciled ? 1 : 0;
    replayed += outcome.replayed ? 1 : 0;
    tags.insert(outcome.description);
    const auto [first, last] = in_lsf.equal_range(outcome.description);
    if (first == last) {
      ++result.lost;
      problems.push_back(outcome.key + ": job " + outcome.job_id + " (" + outcome.description +
                         ") is not in LSF");
    } else if (std::none_of(first, last,
                            [&](const auto& job) { return job.second == outcome.job_id; })) {
      ++result.wrong;
      problems.push_back(outcome.key + ": client holds job " + outcome.job_id + ", LSF has " +
                         first->second + " for " + outcome.description);
    }
  }
  for (const auto& [description, count] : per_description) {
    if (count > 1) {
      result.duplicates += count - 1;
      problems.push_back(std::to_string(count) + " jobs in LSF for " + description);
    }
    if (!tags.contains(description)) {
      result.duplicates += count;
      problems.push_back(std::to_string(count) + " job(s) in LSF for " + description +
                         ", which no client holds");
    }
  }
  std::string kills_text;
  for (const std::string& text : in_flight) kills_text += " " + text;
  std::printf(
      "loop %d/%d: %d kills (bsubs started/201s received at each:%s), %d/%d keys got 201 "
      "(%d reconciled, %d replayed), %zu jobs in LSF, %d bsub runs, duplicates %d, lost %d, "
      "wrong id %d; retries: %d no answer, %d x 409, %d other; %.1f s, load %s\n",
      loop, loops, result.kills, kills_text.c_str(), answered.load(), submissions, reconciled,
      replayed, in_lsf.size(), Count(sim.Counts(), "bsub"), result.duplicates, result.lost,
      result.wrong, no_answer.load(), conflicts.load(), other_status.load(), SecondsSince(start),
      LoadAverage().c_str());
  for (const std::string& problem : problems) std::printf("    %s\n", problem.c_str());
  if (verbose) {
    for (const KeyOutcome& o : outcomes) {
      if (o.failed_tries == 0) continue;
      std::printf("    %s: %d, job %s, %s, %d failed tries, reconciled %d, replayed %d\n",
                  o.key.c_str(), o.status, o.job_id.c_str(), o.description.c_str(), o.failed_tries,
                  o.reconciled, o.replayed);
    }
  }
  if (!problems.empty() || verbose) {
    // Keep the evidence: the simulator's state, bplaced's state store and
    // every bplaced log (one per incarnation; .N ended with the N-th kill).
    daemon->Terminate();
    const std::filesystem::path keep = keep_prefix + std::to_string(loop);
    std::filesystem::remove_all(keep);
    std::filesystem::copy(sim.dir(), keep, std::filesystem::copy_options::recursive);
    std::printf("    kept in %s (bplaced.log.N: the log up to kill N; lsf/jobs.json; state/)\n",
                keep.c_str());
  }
  std::fflush(stdout);
  return result;
}

int Crash(Flags& flags) {
  const int loops = flags.Int("loops", 10);
  const int submissions = flags.Int("submissions", 200);
  const int clients = flags.Int("clients", 20);
  const int kills = flags.Int("kills", 3);
  const int slow_ms = flags.Int("bsub-slow-ms", 200);
  const int refresh_s = flags.Int("refresh-s", 2);
  const int command_timeout_s = flags.Int("command-timeout-s", 5);
  const int kill_min_ms = flags.Int("kill-min-ms", 100);
  const int kill_max_ms = flags.Int("kill-max-ms", 1500);
  const int client_timeout_s = flags.Int("client-timeout-s", 120);
  const int seed = flags.Int("seed", static_cast<int>(std::time(nullptr) % 1000000));
  // 1: list every key that needed a retry, and keep every loop's evidence.
  const bool verbose = flags.Int("verbose", 0) != 0;
  flags.CheckAllKnown();
  std::printf(
      "jobs_bench crash --loops %d --submissions %d --clients %d --kills %d --bsub-slow-ms %d "
      "--refresh-s %d --command-timeout-s %d --kill-min-ms %d --kill-max-ms %d --seed %d\n"
      "%s, load average %s\n",
      loops, submissions, clients, kills, slow_ms, refresh_s, command_timeout_s, kill_min_ms,
      kill_max_ms, seed, Timestamp().c_str(), LoadAverage().c_str());
  std::fflush(stdout);
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
  const std::string keep_prefix = "/tmp/jobs_bench_crash_" + std::to_string(seed) + "_loop";
  LoopResult total;
  int failed_loops = 0;
  const auto start = SteadyClock::now();
  for (int loop = 1; loop <= loops; ++loop) {
    const LoopResult r =
        CrashLoop(loop, loops, submissions, clients, kills, slow_ms, refresh_s, command_timeout_s,
                  kill_min_ms, kill_max_ms, client_timeout_s, rng, keep_prefix, verbose);
    total.kills += r.kills;
    total.duplicates += r.duplicates;
    total.lost += r.lost;
    total.wrong += r.wrong;
    failed_loops += (r.duplicates + r.lost + r.wrong) > 0 ? 1 : 0;
  }
  std::printf(
      "crash: %d loops of %d keyed submissions, %d kill -9 in all: duplicates %d, lost %d, "
      "wrong job id %d, loops with a problem %d (%.0f s, seed %d, load average %s)\n",
      loops, submissions, total.kills, total.duplicates, total.lost, total.wrong, failed_loops,
      SecondsSince(start), seed, LoadAverage().c_str());
  return failed_loops == 0 ? 0 : 1;
}

// ------------------------------------------------------------------ smoke

// Runs `mode` with `args` as if given on the command line.
int RunMode(int (*mode)(Flags&), std::vector<std::string> args) {
  Flags flags(args);
  return mode(flags);
}

// Every mode at tiny sizes (the ctest jobs_bench_smoke): proves the bench
// still runs against today's bplaced and simulator. Fails only when a mode
// throws or the crash loop finds a duplicate, lost or wrong job; no timing
// is judged. 77 (skipped) without wrk.
int Smoke(Flags& flags) {
  flags.CheckAllKnown();
  if (!OnPath("wrk")) {
    std::printf("jobs_bench smoke: skipped, wrk is not on PATH (Debian package wrk)\n");
    return 77;
  }
  RunMode(Polling, {"--jobs", "30", "--clients", "0,20", "--window-s", "3", "--warmup-s", "1",
                    "--refresh-s", "1"});
  RunMode(Cpu, {"--tracked", "600", "--refresh-s", "1", "--window-s", "3"});
  RunMode(Storm, {"--jobs", "30", "--submissions", "20", "--submitters", "4", "--readers", "4",
                  "--baseline-s", "2", "--refresh-s", "1"});
  return RunMode(Crash, {"--loops", "1", "--submissions", "20", "--clients", "5", "--kills", "1",
                         "--bsub-slow-ms", "100", "--refresh-s", "1", "--kill-min-ms", "200",
                         "--kill-max-ms", "600", "--seed", "1"});
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: jobs_bench polling|cpu|storm|crash|smoke [--flag value ...] (see bench/README.md "
      "\"Jobs\")\n";
  if (argc < 2) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  signal(SIGPIPE, SIG_IGN);
  const std::string mode = argv[1];
  try {
    Flags flags(std::vector<std::string>(argv + 2, argv + argc));
    if (mode == "polling") return Polling(flags);
    if (mode == "storm") return Storm(flags);
    if (mode == "cpu") return Cpu(flags);
    if (mode == "smoke") return Smoke(flags);
    if (mode == "crash") return Crash(flags);
    std::fputs(usage.c_str(), stderr);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jobs_bench %s: %s\n", mode.c_str(), e.what());
    return 1;
  }
}
