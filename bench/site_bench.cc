// Every row of the table "Performance at site scale" in one run
// (bench/README.md "Site scale (issue 12): every row in one run"): the real
// bplaced against the LSF simulator on 127.0.0.1, started with the
// integration harness (tests/integration/harness.cc); HTTP load from wrk
// (bench/site_wrk.lua); Debian's nginx serving the same response bytes as a
// static file for the rows that compare with it.
//
//   site_bench all   [--queues 300] [--hosts 5000] [--big-hosts 20000] [--host-groups 200]
//                    [--window-s 20] [--load-refresh-s 2] [--wrk-s 10] [--connections 64]
//                    [--cycle-hosts 64] [--submissions 200] [--submitters 8] [--nginx 1]
//   site_bench smoke (every row at tiny sizes: the ctest site_bench_smoke; judges no
//                    timing, fails when a row produced no number)
//
// Prints each row's details as it runs, then a Markdown table (row, figure,
// goal, what was measured, load average) to paste into bench/README.md.
// Every server listens on 127.0.0.1 only. Every child (bplaced, nginx and its
// workers, wrk) is killed when the bench ends, fails, or gets SIGINT/SIGTERM/
// SIGHUP. Run as root (the harness then runs bplaced as bplace-sys;
// tools/test-users.sh makes that user) or as an ordinary user; wrk must be
// on PATH; without /usr/sbin/nginx the nginx comparisons are skipped.

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
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

namespace fs = std::filesystem;
using bplace::testing::DaemonProcess;
using bplace::testing::DaemonSettings;
using bplace::testing::Http;
using bplace::testing::HttpReply;
using bplace::testing::ProcessOutput;
using bplace::testing::RunProcess;
using bplace::testing::SimCluster;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

constexpr const char* kNginx = "/usr/sbin/nginx";

// ------------------------------------------------------- children and exit

// Process groups (negative) and pids (positive) to SIGKILL when the bench is
// interrupted: destructors do not run on a signal. Slots are written by the
// main thread and read by the handler; 0 is free.
std::array<std::atomic<pid_t>, 64> g_victims{};

void AddVictim(pid_t target) {
  for (auto& slot : g_victims) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, target)) return;
  }
}

void RemoveVictim(pid_t target) {
  for (auto& slot : g_victims) {
    pid_t expected = target;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

extern "C" void KillVictimsAndDie(int signal_number) {
  for (auto& slot : g_victims) {
    const pid_t target = slot.load();
    if (target != 0) kill(target, SIGKILL);
  }
  ::signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// A child process in its own process group (so that nginx's workers go
// with it), with stdout and stderr in a file, SIGKILLed if the bench dies
// (PR_SET_PDEATHSIG). The destructor sends SIGTERM to the group, waits up
// to 5 s, then SIGKILLs the group.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& out_path,
        const std::map<std::string, std::string>& extra_env = {}) {
    std::vector<std::string> args = argv;
    std::vector<char*> arg_pointers;
    for (auto& arg : args) arg_pointers.push_back(arg.data());
    arg_pointers.push_back(nullptr);
    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
    for (const auto& [name, value] : extra_env) env.push_back(name + "=" + value);
    std::vector<char*> env_pointers;
    for (auto& entry : env) env_pointers.push_back(entry.data());
    env_pointers.push_back(nullptr);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      // Only async-signal-safe calls between fork and exec.
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      const int in = open("/dev/null", O_RDONLY);
      const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || out < 0) _exit(127);
      dup2(in, 0);
      dup2(out, 1);
      dup2(out, 2);
      execvpe(arg_pointers[0], arg_pointers.data(), env_pointers.data());
      _exit(127);
    }
    setpgid(pid_, pid_);  // also here: no window in which the group does not exist
    AddVictim(-pid_);
  }
  ~Child() { Stop(seconds(5)); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  void Signal(int signal_number) const {
    if (pid_ > 0) kill(pid_, signal_number);
  }
  // Whether it has exited (reaped then).
  bool Exited() {
    if (pid_ <= 0) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
    Reaped(status);
    return true;
  }
  // Waits for the exit (then SIGKILLs the group after `timeout`); the exit
  // status, -1 when killed by a signal.
  int Wait(seconds timeout) {
    const auto deadline = SteadyClock::now() + timeout;
    while (!Exited()) {
      if (SteadyClock::now() > deadline) {
        kill(-pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
        Reaped(status);
        break;
      }
      std::this_thread::sleep_for(milliseconds(20));
    }
    return exit_status_;
  }
  // SIGTERM to the group, then SIGKILL after `grace`; also kills what the
  // group left behind (nginx workers) once the leader is gone.
  void Stop(seconds grace) {
    if (pid_ <= 0) return;
    const pid_t group = pid_;
    kill(-group, SIGTERM);
    Wait(grace);
    kill(-group, SIGKILL);
  }

 private:
  void Reaped(int status) {
    RemoveVictim(-pid_);
    kill(-pid_, SIGKILL);  // anything left in the group (a worker of nginx)
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    pid_ = -1;
  }
  pid_t pid_ = -1;
  int exit_status_ = -1;
};

// The harness's DaemonProcess, registered for the signal handler.
class Daemon {
 public:
  Daemon(const SimCluster& sim, const DaemonSettings& settings)
      : process_(std::make_unique<DaemonProcess>(sim, settings)), pid_(process_->pid()) {
    AddVictim(pid_);
  }
  ~Daemon() {
    process_.reset();
    RemoveVictim(pid_);
  }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;
  const DaemonProcess& operator*() const { return *process_; }
  const DaemonProcess* operator->() const { return process_.get(); }

 private:
  std::unique_ptr<DaemonProcess> process_;
  pid_t pid_;
};

// ---------------------------------------------------------------- helpers

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// A temporary directory (mode 755: nginx's workers may run as another user),
// removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    std::string pattern = "/tmp/site-bench-" + tag + "-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
    fs::permissions(path_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// CPU seconds (user + system, every thread) of a live process, from
// /proc/PID/stat fields 14 and 15 (clock ticks); its children are not in it.
double ProcessCpuSeconds(pid_t pid) {
  const std::string text = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const auto close = text.rfind(')');  // the command name may hold blanks
  if (close == std::string::npos) throw std::runtime_error("cannot read /proc/PID/stat");
  std::stringstream fields(text.substr(close + 2));
  std::vector<std::string> f;
  for (std::string word; fields >> word;) f.push_back(word);
  if (f.size() < 13) throw std::runtime_error("short /proc/PID/stat");
  // f[0] is field 3 (state): utime is field 14, stime 15.
  return (std::stod(f[11]) + std::stod(f[12])) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// VmHWM (peak resident set) of a live process in MiB, from /proc/PID/status.
double VmHwmMiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  }
  throw std::runtime_error("no VmHWM in /proc/PID/status");
}

// Successful refresh runs of `tier` so far: bplace_refresh_runs_total of
// GET /metrics (docs/api.md "GET /metrics").
long long RefreshRuns(int port, const std::string& tier) {
  const HttpReply reply = Http(port, "GET", "/metrics");
  if (reply.status != 200)
    throw std::runtime_error("GET /metrics: " + std::to_string(reply.status));
  std::stringstream lines(reply.body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("bplace_refresh_runs_total{", 0) == 0 &&
        line.find("tier=\"" + tier + "\"") != std::string::npos &&
        line.find("outcome=\"success\"") != std::string::npos) {
      return std::stoll(line.substr(line.rfind(' ') + 1));
    }
  }
  return 0;
}

// Waits until `tier` has run more than `seen` times (polling /metrics every
// 50 ms); returns the new count. Throws after `timeout`.
long long WaitForRunAfter(int port, const std::string& tier, long long seen, seconds timeout) {
  const auto deadline = SteadyClock::now() + timeout;
  while (SteadyClock::now() < deadline) {
    const long long runs = RefreshRuns(port, tier);
    if (runs > seen) return runs;
    std::this_thread::sleep_for(milliseconds(50));
  }
  throw std::runtime_error("no " + tier + " refresh within " + std::to_string(timeout.count()) +
                           " s");
}

// The definition `lsfsim generate` prints for this size, in `dir`.
fs::path GenerateCluster(const fs::path& dir, int queues, int hosts, int host_groups) {
  const ProcessOutput out = RunProcess(
      {std::string(LSFSIM_BIN_DIR) + "/lsfsim", "generate", "--queues", std::to_string(queues),
       "--hosts", std::to_string(hosts), "--host-groups", std::to_string(host_groups)});
  if (out.exit_code != 0) throw std::runtime_error("lsfsim generate: " + out.err);
  const fs::path path =
      dir / ("cluster-" + std::to_string(queues) + "q-" + std::to_string(hosts) + "h.toml");
  WriteFile(path, out.out);
  return path;
}

// The daemon as the rows run it: [lsf] intervals given, [limits] raised so
// that the submission row is never throttled, [server] threads given.
DaemonSettings Settings(int threads, int load_refresh_s, int topology_refresh_s,
                        const std::string& ib_source = "none") {
  DaemonSettings settings;
  settings.command_timeout_s = 60;
  settings.load_refresh_s = load_refresh_s;
  settings.topology_refresh_s = topology_refresh_s;
  settings.max_staleness_s = 7200;
  settings.server_config = "threads = " + std::to_string(threads);
  settings.extra_config = "[ib]\nsource = \"" + ib_source + "\"\n";
  settings.limits =
      "submit_burst = 100000\nsubmit_per_minute = 1000000\nlsf_calls_burst = 100000\n"
      "lsf_calls_per_minute = 1000000";
  return settings;
}

// ------------------------------------------------------------------- wrk

// The summary line of bench/site_wrk.lua.
struct WrkFigures {
  std::map<std::string, long long> values;
  long long Get(const std::string& key) const {
    const auto it = values.find(key);
    return it == values.end() ? -1 : it->second;
  }
  double PerSecond() const {
    const long long us = Get("duration_us");
    return us > 0 ? static_cast<double>(Get("requests")) * 1e6 / static_cast<double>(us) : 0;
  }
  double Ms(const std::string& key) const { return static_cast<double>(Get(key)) / 1000.0; }
  long long Errors() const {
    return Get("non2xx") + Get("connect_errors") + Get("read_errors") + Get("write_errors") +
           Get("timeouts");
  }
  std::string Describe() const {
    return Format(
        "%lld requests, %.0f/s, %.1f KiB/response, p50 %.2f ms, p99 %.2f ms, max %.2f "
        "ms, errors or non-2xx %lld",
        Get("requests"), PerSecond(),
        Get("requests") > 0
            ? static_cast<double>(Get("bytes")) / 1024.0 / static_cast<double>(Get("requests"))
            : 0.0,
        Ms("p50_us"), Ms("p99_us"), Ms("max_us"), Errors());
  }
};

// Runs wrk for `duration_s` against `url` (127.0.0.1), re-reading its target
// or, with `targets_file`, cycling over the targets in it. Throws when wrk
// printed no summary or any request failed.
WrkFigures RunWrk(const fs::path& work_dir, const std::string& url, int threads, int connections,
                  int duration_s, const fs::path& targets_file = {}) {
  const fs::path out = work_dir / "wrk.out";
  std::map<std::string, std::string> env;
  if (!targets_file.empty()) env["SITE_BENCH_TARGETS"] = targets_file.string();
  Child wrk({"wrk", "-t", std::to_string(threads), "-c", std::to_string(connections), "-d",
             std::to_string(duration_s) + "s", "--timeout", "10s", "-s", SITE_WRK_LUA, url},
            out.string(), env);
  const int status = wrk.Wait(seconds(duration_s + 30));
  const std::string text = ReadFile(out);
  const auto at = text.find("site_bench_wrk ");
  if (status != 0 || at == std::string::npos) {
    throw std::runtime_error("wrk " + url + " (exit " + std::to_string(status) + "): " + text);
  }
  std::stringstream line(text.substr(at + 15, text.find('\n', at) - at - 15));
  WrkFigures figures;
  for (std::string item; line >> item;) {
    const auto eq = item.find('=');
    if (eq != std::string::npos)
      figures.values[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
  }
  if (figures.Get("requests") <= 0 || figures.Errors() != 0) {
    throw std::runtime_error("wrk " + url + ": " + figures.Describe());
  }
  return figures;
}

// ------------------------------------------------------ a latency client

// What one connection saw, request by request.
struct Latencies {
  std::vector<double> ms;  // each request's time to its whole answer, in order
  // The smallest value with at least p% of the values at or below it.
  double Percentile(double p) const {
    if (ms.empty()) return 0;
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * sorted.size()));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
  }
  double Max() const { return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()); }
  std::string Describe() const {
    return Format("%zu requests, p50 %.3f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms", ms.size(),
                  Percentile(50), Percentile(99), Percentile(99.9), Max());
  }
};

// GETs `target` from 127.0.0.1:port over one keep-alive connection, one
// request after the other, for `duration`, timing each from its write to the
// end of its answer (steady clock). Throws when an answer is not 200 or the
// connection fails (10 s limit per request). wrk's own percentiles are not
// used for this: with -c1 they added up to more time than the window held
// (a p99 of 70 ms over 300,000 requests in 20 s).
Latencies TimeRequests(int port, const std::string& target, seconds duration) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  boost::asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(seconds(10));
  stream.connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"),
                                                static_cast<unsigned short>(port)));
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.keep_alive(true);
  beast::flat_buffer buffer;
  Latencies result;
  result.ms.reserve(1 << 20);
  const auto end = SteadyClock::now() + duration;
  while (SteadyClock::now() < end) {
    const auto sent = SteadyClock::now();
    stream.expires_after(seconds(10));
    http::write(stream, request);
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    result.ms.push_back(
        std::chrono::duration<double, std::milli>(SteadyClock::now() - sent).count());
    if (response.result_int() != 200) {
      throw std::runtime_error("GET " + target + ": " + std::to_string(response.result_int()));
    }
  }
  return result;
}

// ----------------------------------------------------------------- nginx

// A free TCP port on 127.0.0.1 (bound to port 0, then closed: nginx takes it
// right after; Nginx retries on the rare collision).
int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    throw std::runtime_error("cannot bind 127.0.0.1:0");
  }
  const int port = ntohs(address.sin_port);
  close(fd);
  return port;
}

// Debian's nginx in the foreground serving `root` (files named like the
// request paths, query strings ignored) as application/json on 127.0.0.1
// only, with `workers` worker processes (1: master_process off, one
// process; more: a master and its workers), pid, error log and temp files
// in `dir`, no access log. Stopped (the whole process group) in the
// destructor.
class Nginx {
 public:
  Nginx(const fs::path& dir, const fs::path& root, int workers) {
    for (int attempt = 1;; ++attempt) {
      port_ = FreeLoopbackPort();
      const fs::path config = dir / "nginx.conf";
      WriteFile(config,
                Format("daemon off;\nmaster_process %s;\nworker_processes %d;\n"
                       "pid %s/nginx.pid;\nerror_log %s/error.log warn;\n"
                       "events { worker_connections 1024; }\n"
                       "http {\n  access_log off;\n  types { }\n"
                       "  default_type application/json;\n"
                       "  client_body_temp_path %s/client_body;\n"
                       "  proxy_temp_path %s/proxy;\n  fastcgi_temp_path %s/fastcgi;\n"
                       "  uwsgi_temp_path %s/uwsgi;\n  scgi_temp_path %s/scgi;\n"
                       "  server {\n    listen 127.0.0.1:%d;\n    root %s;\n  }\n}\n",
                       workers > 1 ? "on" : "off", workers, dir.c_str(), dir.c_str(), dir.c_str(),
                       dir.c_str(), dir.c_str(), dir.c_str(), dir.c_str(), port_, root.c_str()));
      const fs::path log = dir / "nginx.out";
      child_ = std::make_unique<Child>(
          std::vector<std::string>{kNginx, "-p", dir.string(), "-c", config.string(), "-e",
                                   (dir / "error.log").string()},
          log.string());
      if (WaitUntilServing()) return;
      const std::string why = ReadFile(log) + ReadFile(dir / "error.log");
      child_.reset();
      if (attempt == 3 || why.find("Address already in use") == std::string::npos) {
        throw std::runtime_error("nginx did not start: " + why);
      }
    }
  }
  int port() const { return port_; }

 private:
  bool WaitUntilServing() {
    const auto deadline = SteadyClock::now() + seconds(10);
    while (SteadyClock::now() < deadline && !child_->Exited()) {
      try {
        Http(port_, "GET", "/");
        return true;  // any answer: it is listening
      } catch (const std::exception&) {
        std::this_thread::sleep_for(milliseconds(20));
      }
    }
    return false;
  }
  int port_ = 0;
  std::unique_ptr<Child> child_;
};

// ------------------------------------------------------------------ rows

// One line of the final table.
struct Row {
  std::string row;       // "1", "1 (ib none)", ...
  std::string figure;    // the number(s) measured; empty: not measured
  std::string goal;      // the goal of bench/README.md's table
  std::string measured;  // what was measured
  std::string load;      // load average during it (before -> after)
};

// What a run judges and prints.
struct Options {
  int queues = 300;
  int hosts = 5000;
  int big_hosts = 20000;
  int host_groups = 200;
  int window_s = 20;
  int load_refresh_s = 2;
  int wrk_s = 10;
  int connections = 64;
  int cycle_hosts = 64;
  int submissions = 200;
  int submitters = 8;
  bool nginx = true;
};

// Rows 1 and 2: bplaced's CPU per load refresh and its VmHWM.
struct RefreshCpu {
  double ms_per_refresh = 0;
  long long load_runs = 0;
  long long ib_runs = 0;
  double cpu_s = 0;
  double elapsed_s = 0;
  double vm_hwm_mib = 0;
};

RefreshCpu MeasureRefreshCpu(const Options& o, const fs::path& definition,
                             const std::string& ib_source) {
  SimCluster sim(definition.string());
  // The topology tier waits an hour: only load (and IB) refreshes run.
  Daemon daemon(sim, Settings(2, o.load_refresh_s, 3600, ib_source));
  const int port = daemon->port();
  const pid_t pid = daemon->pid();
  const seconds timeout(60 + 10 * o.load_refresh_s);
  // Past start-up: one timed refresh, then start at the end of the next.
  long long runs = WaitForRunAfter(port, "load", RefreshRuns(port, "load"), timeout);
  runs = WaitForRunAfter(port, "load", runs, timeout);
  const long long ib_before = RefreshRuns(port, "ib");
  const double cpu_before = ProcessCpuSeconds(pid);
  const auto start = SteadyClock::now();
  std::this_thread::sleep_for(seconds(o.window_s));
  const long long runs_after = WaitForRunAfter(port, "load", RefreshRuns(port, "load"), timeout);
  RefreshCpu result;
  result.cpu_s = ProcessCpuSeconds(pid) - cpu_before;
  result.elapsed_s = SecondsSince(start);
  result.load_runs = runs_after - runs;
  result.ib_runs = RefreshRuns(port, "ib") - ib_before;
  result.vm_hwm_mib = VmHwmMiB(pid);
  result.ms_per_refresh = result.cpu_s * 1000 / static_cast<double>(result.load_runs);
  return result;
}

void RefreshRows(const Options& o, const fs::path& work, std::vector<Row>& rows) {
  struct Size {
    int hosts;
    const char* row;
    const char* goal;
  };
  const Size sizes[] = {{o.hosts, "1", "<= 20 ms"}, {o.big_hosts, "2", "<= 80 ms"}};
  std::map<int, double> hwm;
  for (const Size& size : sizes) {
    const fs::path definition = GenerateCluster(work, o.queues, size.hosts, o.host_groups);
    for (const std::string source : {"lsload", "none"}) {
      const std::string load = LoadAverage();
      const RefreshCpu r = MeasureRefreshCpu(o, definition, source);
      const std::string what = Format(
          "%d queues x %d hosts, [ib] source = \"%s\", load_refresh_s = %d: bplaced "
          "utime+stime (all threads, not its LSF children) %.3f s over %.1f s / %lld load "
          "refreshes (%lld IB refreshes in the same window; /metrics polls at its edges)",
          o.queues, size.hosts, source.c_str(), o.load_refresh_s, r.cpu_s, r.elapsed_s, r.load_runs,
          r.ib_runs);
      std::printf("row %s: %.1f ms CPU per load refresh; VmHWM %.1f MiB; %s\n", size.row,
                  r.ms_per_refresh, r.vm_hwm_mib, what.c_str());
      rows.push_back({std::string(size.row) + " (ib " + source + ")",
                      Format("%.1f ms", r.ms_per_refresh), size.goal,
                      Format("%d x %d, [ib] source = \"%s\": CPU %.2f s / %lld load refreshes "
                             "(%lld IB) in %.0f s",
                             o.queues, size.hosts, source.c_str(), r.cpu_s, r.load_runs, r.ib_runs,
                             r.elapsed_s),
                      load + " -> " + LoadAverage()});
      if (source == "lsload") hwm[size.hosts] = r.vm_hwm_mib;
    }
  }
  const double ratio = hwm[o.big_hosts] / hwm[o.hosts];
  rows.push_back({"2 (memory)",
                  Format("VmHWM %.1f MiB at %d hosts, %.1f MiB at %d: %.2fx for %.1fx the hosts",
                         hwm[o.hosts], o.hosts, hwm[o.big_hosts], o.big_hosts, ratio,
                         static_cast<double>(o.big_hosts) / o.hosts),
                  "grows linearly",
                  "VmHWM (/proc/PID/status) after the row's window, [ib] source = \"lsload\"",
                  LoadAverage()});
}

// Row 3: /healthz latency (one client, one request at a time) while load
// and topology refreshes run, server.threads = 1; beside it the same with no
// refresh in the window.
void HealthzLatencyRows(const Options& o, const fs::path& work, std::vector<Row>& rows) {
  for (const int hosts : {o.hosts, o.big_hosts}) {
    const fs::path definition = GenerateCluster(work, o.queues, hosts, o.host_groups);
    // The same machine with no refresh in the window (both tiers wait an
    // hour): what the machine's own noise (other processes) gives.
    Latencies quiet;
    {
      SimCluster sim(definition.string());
      Daemon daemon(sim, Settings(1, 3600, 3600, "lsload"));
      quiet = TimeRequests(daemon->port(), "/healthz", seconds(o.window_s));
    }
    SimCluster sim(definition.string());
    // A topology refresh every half window: at least one inside it.
    const int topology_s = std::max(o.load_refresh_s, o.window_s / 2);
    Daemon daemon(sim, Settings(1, o.load_refresh_s, topology_s, "lsload"));
    const int port = daemon->port();
    WaitForRunAfter(port, "load", RefreshRuns(port, "load"), seconds(120));
    const long long load_before = RefreshRuns(port, "load");
    const long long topology_before = RefreshRuns(port, "topology");
    const std::string load = LoadAverage();
    const Latencies busy = TimeRequests(port, "/healthz", seconds(o.window_s));
    const long long load_runs = RefreshRuns(port, "load") - load_before;
    const long long topology_runs = RefreshRuns(port, "topology") - topology_before;
    const std::string what = Format(
        "%d queues x %d hosts, server.threads = 1, [ib] source = \"lsload\", one keep-alive "
        "client timing each GET /healthz for %d s, spanning %lld load and %lld topology refreshes "
        "(load_refresh_s = %d, topology_refresh_s = %d): %s; without refreshes: %s",
        o.queues, hosts, o.window_s, load_runs, topology_runs, o.load_refresh_s, topology_s,
        busy.Describe().c_str(), quiet.Describe().c_str());
    std::printf("row 3: max %.2f ms, p99 %.2f ms; %s\n", busy.Max(), busy.Percentile(99),
                what.c_str());
    if (load_runs == 0) throw std::runtime_error("row 3: no load refresh in the window");
    rows.push_back(
        {"3 (" + std::to_string(hosts) + " hosts)",
         Format("max %.1f ms, p99 %.2f ms (no refresh: max %.1f ms, p99 %.2f ms)", busy.Max(),
                busy.Percentile(99), quiet.Max(), quiet.Percentile(99)),
         "<= 10 ms",
         Format("%d x %d, threads = 1, 1 client %d s: %zu requests over %lld load + %lld "
                "topology refreshes",
                o.queues, hosts, o.window_s, busy.ms.size(), load_runs, topology_runs),
         load + " -> " + LoadAverage()});
  }
}

// Writes `body` where nginx serves `target` (its path; the query is ignored)
// under `root`.
void PlaceForNginx(const fs::path& root, const std::string& path, const std::string& body) {
  const fs::path file = root / path.substr(1);
  fs::create_directories(file.parent_path());
  WriteFile(file, body);
}

// A 200 answer of `target`, or an exception naming it.
std::string Fetch(int port, const std::string& target) {
  const HttpReply reply = Http(port, "GET", target);
  if (reply.status != 200) {
    throw std::runtime_error("GET " + target + ": " + std::to_string(reply.status) + " " +
                             reply.body.substr(0, 300));
  }
  return reply.body;
}

// bplaced's req/s over nginx's (same bytes), or "" when nginx is skipped.
std::string Ratio(double bplaced, std::optional<double> nginx) {
  return nginx ? Format("%.3fx nginx (%.0f vs %.0f req/s)", bplaced / *nginx, bplaced, *nginx)
               : Format("%.0f req/s (nginx skipped)", bplaced);
}

// Rows 4 and 5: GET /v1/placement?host=H, bplaced vs nginx serving the same
// bytes, one host re-read and a cycle over hosts.
void PlacementRow(const Options& o, const fs::path& work, const std::string& row,
                  const std::string& definition, const std::string& cluster_name,
                  const std::string& goal, std::vector<Row>& rows) {
  SimCluster sim(definition);
  // The product's intervals (docs/configuration.md "Keys"); 2 threads each
  // side.
  Daemon daemon(sim, Settings(2, 15, 300));
  const int port = daemon->port();
  const json hosts = json::parse(Fetch(port, "/v1/hosts"), nullptr, false);
  std::vector<std::string> names;
  for (const json& host : hosts.value("hosts", json::array())) {
    if (host.value("status", "") == "ok") names.push_back(host.value("host", ""));
  }
  if (names.empty()) throw std::runtime_error("no host with status ok in /v1/hosts");
  // The README's example host of the demo cluster first, when there.
  const auto example = std::find(names.begin(), names.end(), "node007");
  if (example != names.end()) std::rotate(names.begin(), example, example + 1);
  TempDir nginx_dir("nginx");
  const fs::path root = nginx_dir.path() / "www";
  const std::string one = "/v1/placement?host=" + names.front();
  const std::string answer = Fetch(port, one);
  PlaceForNginx(root, "/v1/placement", answer);
  // The cycle: bplaced's targets and nginx's files of the same answers.
  const std::size_t cycle = std::min(names.size(), static_cast<std::size_t>(o.cycle_hosts));
  std::ofstream bplaced_targets(work / "bplaced_targets");
  std::ofstream nginx_targets(work / "nginx_targets");
  std::size_t cycle_bytes = 0;
  for (std::size_t i = 0; i < cycle; ++i) {
    const std::string target = "/v1/placement?host=" + names[i];
    const std::string body = Fetch(port, target);
    cycle_bytes += body.size();
    PlaceForNginx(root, "/p/" + names[i], body);
    bplaced_targets << target << "\n";
    nginx_targets << "/p/" << names[i] << "\n";
  }
  bplaced_targets.close();
  nginx_targets.close();
  const std::string load = LoadAverage();
  const std::string bplaced_url = "http://127.0.0.1:" + std::to_string(port);
  const WrkFigures b_one = RunWrk(work, bplaced_url + one, 2, o.connections, o.wrk_s);
  const WrkFigures b_cycle =
      RunWrk(work, bplaced_url, 2, o.connections, o.wrk_s, work / "bplaced_targets");
  std::optional<double> n_one_rate, n_cycle_rate;
  std::string nginx_text = "nginx skipped";
  if (o.nginx) {
    Nginx nginx(nginx_dir.path(), root, 2);
    const std::string nginx_url = "http://127.0.0.1:" + std::to_string(nginx.port());
    const WrkFigures n_one = RunWrk(work, nginx_url + one, 2, o.connections, o.wrk_s);
    const WrkFigures n_cycle =
        RunWrk(work, nginx_url, 2, o.connections, o.wrk_s, work / "nginx_targets");
    n_one_rate = n_one.PerSecond();
    n_cycle_rate = n_cycle.PerSecond();
    nginx_text = "nginx (2 workers) same host: " + n_one.Describe() +
                 "; nginx cycling: " + n_cycle.Describe();
  }
  const std::string what = Format(
      "%s, bplaced server.threads = 2 vs nginx worker_processes 2, wrk -t2 -c%d %d s each; "
      "one host (%s, %zu-byte answer) re-read: bplaced %s; cycling over %zu hosts (%.1f KB "
      "answers on average): bplaced %s; %s",
      cluster_name.c_str(), o.connections, o.wrk_s, names.front().c_str(), answer.size(),
      b_one.Describe().c_str(), cycle, static_cast<double>(cycle_bytes) / 1000.0 / cycle,
      b_cycle.Describe().c_str(), nginx_text.c_str());
  std::printf("row %s: one host %s; cycling %s; %s\n", row.c_str(),
              Ratio(b_one.PerSecond(), n_one_rate).c_str(),
              Ratio(b_cycle.PerSecond(), n_cycle_rate).c_str(), what.c_str());
  rows.push_back({row,
                  Format("one host: %s; cycling: %s", Ratio(b_one.PerSecond(), n_one_rate).c_str(),
                         Ratio(b_cycle.PerSecond(), n_cycle_rate).c_str()),
                  goal,
                  Format("%s, H = %s (%zu-byte answer), cycle over %zu hosts; 2 threads / 2 "
                         "workers, wrk -t2 -c%d %d s",
                         cluster_name.c_str(), names.front().c_str(), answer.size(), cycle,
                         o.connections, o.wrk_s),
                  load + " -> " + LoadAverage()});
}

// Row 6: /healthz req/s with server.threads 2 vs 1 (nginx 2 workers vs 1).
void HealthzScalingRow(const Options& o, const fs::path& work, std::vector<Row>& rows) {
  const std::string load = LoadAverage();
  std::map<int, WrkFigures> bplaced;
  std::string healthz;
  for (const int threads : {1, 2}) {
    SimCluster sim(DEMO_CLUSTER);
    Daemon daemon(sim, Settings(threads, 15, 300));
    healthz = Fetch(daemon->port(), "/healthz");
    bplaced[threads] =
        RunWrk(work, "http://127.0.0.1:" + std::to_string(daemon->port()) + "/healthz", 2,
               o.connections, o.wrk_s);
  }
  const double ratio = bplaced[2].PerSecond() / bplaced[1].PerSecond();
  std::string figure = Format("bplaced %.2fx (%.0f vs %.0f req/s)", ratio, bplaced[2].PerSecond(),
                              bplaced[1].PerSecond());
  std::string nginx_text = "nginx skipped";
  if (o.nginx) {
    std::map<int, WrkFigures> nginx;
    for (const int workers : {1, 2}) {
      TempDir dir("nginx");
      PlaceForNginx(dir.path() / "www", "/healthz", healthz);
      Nginx server(dir.path(), dir.path() / "www", workers);
      nginx[workers] =
          RunWrk(work, "http://127.0.0.1:" + std::to_string(server.port()) + "/healthz", 2,
                 o.connections, o.wrk_s);
    }
    figure += Format("; nginx %.2fx (%.0f vs %.0f)", nginx[2].PerSecond() / nginx[1].PerSecond(),
                     nginx[2].PerSecond(), nginx[1].PerSecond());
    nginx_text = "nginx 1 worker (master_process off): " + nginx[1].Describe() +
                 "; 2 workers: " + nginx[2].Describe();
  }
  const std::string what = Format(
      "demo cluster, GET /healthz (%zu bytes), wrk -t2 -c%d %d s each: bplaced threads = 1: %s; "
      "threads = 2: %s; %s",
      healthz.size(), o.connections, o.wrk_s, bplaced[1].Describe().c_str(),
      bplaced[2].Describe().c_str(), nginx_text.c_str());
  std::printf("row 6: %s; %s\n", figure.c_str(), what.c_str());
  rows.push_back({"6", figure, ">= 1.6x",
                  Format("demo cluster, GET /healthz, wrk -t2 -c%d %d s; nginx 1 worker "
                         "(master_process off) vs 2",
                         o.connections, o.wrk_s),
                  load + " -> " + LoadAverage()});
}

// Runs `job(i)` for i in [0, n), `concurrency` at a time; returns the
// seconds it took. `job` returns an error text, "" when it went through.
double RunConcurrently(int n, int concurrency, const std::function<std::string(int)>& job,
                       std::string& failure) {
  std::atomic<int> next{0};
  std::mutex mutex;
  std::vector<std::thread> threads;
  const auto start = SteadyClock::now();
  for (int t = 0; t < concurrency; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < n; i = next++) {
        std::string error;
        try {
          error = job(i);
        } catch (const std::exception& e) {
          error = e.what();
        }
        if (!error.empty()) {
          std::lock_guard lock(mutex);
          if (failure.empty()) failure = error;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return SecondsSince(start);
}

int Count(const json& counts, const std::string& command) {
  return counts.is_object() ? counts.value(command, 0) : 0;
}

// Row 7: POST /v1/jobs without host vs plain bsub of the simulator, each on
// a fresh demo cluster.
void SubmissionRow(const Options& o, std::vector<Row>& rows) {
  const std::string load = LoadAverage();
  std::string failure;
  double bplaced_s = 0;
  int bplaced_bsubs = 0;
  {
    SimCluster sim(DEMO_CLUSTER);
    Daemon daemon(sim, Settings(2, 15, 300));
    const std::string body = json{{"command", "sleep 3600"}}.dump();
    bplaced_s = RunConcurrently(
        o.submissions, o.submitters,
        [&](int i) {
          const HttpReply reply = daemon->Call("POST", "/v1/jobs", body,
                                               {{"Idempotency-Key", "site-" + std::to_string(i)}});
          return reply.status == 201 ? std::string()
                                     : "POST /v1/jobs: " + std::to_string(reply.status) + " " +
                                           reply.body.substr(0, 300);
        },
        failure);
    bplaced_bsubs = Count(sim.Counts(), "bsub");
  }
  double bsub_s = 0;
  {
    SimCluster sim(DEMO_CLUSTER);
    // One exec per job, as bplaced runs its bsub (no setpriv in front), as
    // the bench's own user; the default queue (normal, USERS all) takes it.
    const std::map<std::string, std::string> env = {{"LSF_ENVDIR", (sim.dir() / "lsf").string()}};
    bsub_s = RunConcurrently(
        o.submissions, o.submitters,
        [&](int) {
          const ProcessOutput out =
              RunProcess({std::string(LSFSIM_BIN_DIR) + "/bsub", "sleep", "3600"}, env);
          return out.exit_code == 0 ? std::string() : "bsub: " + out.out + out.err;
        },
        failure);
  }
  if (!failure.empty()) throw std::runtime_error("row 7: " + failure);
  const double bplaced_rate = o.submissions / bplaced_s;
  const double bsub_rate = o.submissions / bsub_s;
  const std::string what = Format(
      "demo cluster, %d submissions %d at a time: POST /v1/jobs {\"command\": \"sleep 3600\"} "
      "with an Idempotency-Key through bplaced (%.1f s, %d bsub runs = %.2f per job) vs plain "
      "`bsub sleep 3600` of the simulator run by the bench (%.1f s), each on a fresh cluster",
      o.submissions, o.submitters, bplaced_s, bplaced_bsubs,
      static_cast<double>(bplaced_bsubs) / o.submissions, bsub_s);
  const std::string figure = Format("%.2fx plain bsub (%.1f vs %.1f jobs/s)",
                                    bplaced_rate / bsub_rate, bplaced_rate, bsub_rate);
  std::printf("row 7: %s; %s\n", figure.c_str(), what.c_str());
  rows.push_back({"7", figure, ">= 0.9x",
                  Format("demo cluster, %d POST /v1/jobs without host (%.2f bsub runs per job) "
                         "vs %d plain bsub, %d at a time",
                         o.submissions, static_cast<double>(bplaced_bsubs) / o.submissions,
                         o.submissions, o.submitters),
                  load + " -> " + LoadAverage()});
}

// The table to paste: pipes inside a cell would break it.
std::string Cell(std::string text) {
  std::replace(text.begin(), text.end(), '|', '/');
  return text;
}

int RunAll(const Options& o) {
  std::printf(
      "site_bench: %s, %u cores, load average %s, queues %d, hosts %d and %d, "
      "host groups %d, window %d s, load_refresh_s %d, wrk %d s -c%d\n",
      Timestamp().c_str(), std::thread::hardware_concurrency(), LoadAverage().c_str(), o.queues,
      o.hosts, o.big_hosts, o.host_groups, o.window_s, o.load_refresh_s, o.wrk_s, o.connections);
  if (!o.nginx) {
    std::printf(
        "nginx comparisons: skipped (%s)\n",
        access(kNginx, X_OK) == 0 ? "--nginx 0" : "no /usr/sbin/nginx: Debian package nginx-light");
  }
  TempDir work("work");
  std::vector<Row> rows;
  const auto start = SteadyClock::now();
  RefreshRows(o, work.path(), rows);
  HealthzLatencyRows(o, work.path(), rows);
  PlacementRow(o, work.path(), "4", DEMO_CLUSTER, "demo cluster", ">= 0.6x", rows);
  PlacementRow(o, work.path(), "5",
               GenerateCluster(work.path(), o.queues, o.hosts, o.host_groups).string(),
               Format("%d queues x %d hosts", o.queues, o.hosts), ">= 0.3x", rows);
  HealthzScalingRow(o, work.path(), rows);
  SubmissionRow(o, rows);
  std::printf("\nsite_bench: %.0f s, ended %s, load average %s\n\n", SecondsSince(start),
              Timestamp().c_str(), LoadAverage().c_str());
  std::printf(
      "| row | figure | goal | what was measured | load average before -> after |\n"
      "|---|---|---|---|---|\n");
  int missing = 0;
  for (const Row& row : rows) {
    std::printf("| %s | %s | %s | %s | %s |\n", Cell(row.row).c_str(), Cell(row.figure).c_str(),
                Cell(row.goal).c_str(), Cell(row.measured).c_str(), Cell(row.load).c_str());
    // A figure without a digit, or a NaN/inf from a zero count, is no number.
    const bool number = row.figure.find_first_of("0123456789") != std::string::npos &&
                        row.figure.find("nan") == std::string::npos &&
                        row.figure.find("inf") == std::string::npos;
    if (!number) ++missing;
  }
  if (missing > 0) {
    std::printf("site_bench: %d row(s) produced no number\n", missing);
    return 1;
  }
  return 0;
}

Options ReadOptions(Flags& flags, Options o) {
  o.queues = flags.Int("queues", o.queues);
  o.hosts = flags.Int("hosts", o.hosts);
  o.big_hosts = flags.Int("big-hosts", o.big_hosts);
  o.host_groups = flags.Int("host-groups", o.host_groups);
  o.window_s = flags.Int("window-s", o.window_s);
  o.load_refresh_s = flags.Int("load-refresh-s", o.load_refresh_s);
  o.wrk_s = flags.Int("wrk-s", o.wrk_s);
  o.connections = flags.Int("connections", o.connections);
  o.cycle_hosts = flags.Int("cycle-hosts", o.cycle_hosts);
  o.submissions = flags.Int("submissions", o.submissions);
  o.submitters = flags.Int("submitters", o.submitters);
  // --nginx 0 skips the nginx comparisons as if nginx were absent.
  const bool want_nginx = flags.Int("nginx", 1) != 0;
  flags.CheckAllKnown();
  if (o.hosts == 0 || o.big_hosts == 0 || o.queues == 0 || o.window_s == 0 ||
      o.load_refresh_s == 0 || o.wrk_s == 0 || o.connections == 0 || o.cycle_hosts == 0 ||
      o.submissions == 0 || o.submitters == 0) {
    throw std::invalid_argument("every count must be at least 1");
  }
  o.nginx = want_nginx && access(kNginx, X_OK) == 0;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: site_bench all|smoke [--flag value ...] (see bench/README.md \"Site scale\")\n";
  if (argc < 2) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  signal(SIGPIPE, SIG_IGN);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) signal(s, KillVictimsAndDie);
  const std::string mode = argv[1];
  try {
    Flags flags(std::vector<std::string>(argv + 2, argv + argc));
    if (!OnPath("wrk")) {
      std::printf("site_bench: skipped, wrk is not on PATH (Debian package wrk)\n");
      return 77;
    }
    if (mode == "all") return RunAll(ReadOptions(flags, Options{}));
    if (mode == "smoke") {
      // Tiny sizes: seconds, not minutes. Judges no timing.
      Options tiny;
      tiny.queues = 20;
      tiny.hosts = 200;
      tiny.big_hosts = 400;
      tiny.host_groups = 10;
      tiny.window_s = 3;
      tiny.load_refresh_s = 1;
      tiny.wrk_s = 1;
      tiny.connections = 8;
      tiny.cycle_hosts = 8;
      tiny.submissions = 10;
      tiny.submitters = 2;
      return RunAll(ReadOptions(flags, tiny));
    }
    std::fputs(usage.c_str(), stderr);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "site_bench %s: %s\n", mode.c_str(), e.what());
    return 1;
  }
}
