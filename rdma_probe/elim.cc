#include "rdma_probe/elim.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "rdma_probe/link_rate.h"
#include "rdma_probe/watchdog.h"

extern char** environ;

namespace bplace::rdma {
namespace {

using Steady = std::chrono::steady_clock;

constexpr std::size_t kMaxReportBytes = 4 << 20;
const char kFailLine[] = "1 ib_ok 0\n";

bool WriteAll(int fd, std::string_view text) { return WriteAllToFd(fd, text); }

int RemainingMs(Steady::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 60000));
}

// Whether `signal_fd` has a signal pending; reads it if so.
bool SignalArrived(int signal_fd) {
  signalfd_siginfo info{};
  return ::read(signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info);
}

// Reaps what it can of `pids` without blocking.
void ReapSome(std::vector<pid_t>& pids) {
  std::erase_if(pids, [](pid_t pid) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    return r == pid || (r < 0 && errno == ECHILD);
  });
}

enum class CycleEnd { kDone, kSignal, kSpawnFailed };

// Runs one child probe; fills `output` with its stdout.
CycleEnd RunChild(const ElimSettings& settings, int signal_fd, std::string& output,
                  std::vector<pid_t>& unreaped) {
  output.clear();
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return CycleEnd::kSpawnFailed;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attr, &empty);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv;
  for (const std::string& arg : settings.child_args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, settings.exe.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(pipe_fds[1]);
  if (rc != 0) {
    ::close(pipe_fds[0]);
    return CycleEnd::kSpawnFailed;
  }

  const auto deadline = Steady::now() + settings.child_deadline;
  bool eof = false;
  bool exited = false;
  CycleEnd end = CycleEnd::kDone;
  while (!exited) {
    if (Steady::now() >= deadline) break;
    pollfd fds[2] = {{signal_fd, POLLIN, 0}, {pipe_fds[0], POLLIN, 0}};
    // After EOF the child is about to exit: poll the signal fd only, in short
    // steps, and check waitpid between them.
    const int timeout = eof ? std::min(RemainingMs(deadline), 10) : RemainingMs(deadline);
    const int n = ::poll(fds, eof ? 1 : 2, timeout);
    if (n < 0 && errno != EINTR) break;
    if (n > 0 && (fds[0].revents & POLLIN) && SignalArrived(signal_fd)) {
      end = CycleEnd::kSignal;
      break;
    }
    if (!eof && n > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      char buf[8192];
      const ssize_t got = ::read(pipe_fds[0], buf, sizeof buf);
      if (got > 0) {
        if (output.size() < kMaxReportBytes) output.append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        eof = true;
      }
    }
    if (eof) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) exited = true;
    }
  }
  ::close(pipe_fds[0]);
  if (!exited) {
    // Past the deadline, or told to stop: the child may be stuck in a verbs
    // call. SIGKILL; if it is in the driver it only dies when the call
    // returns, so it is reaped later rather than waited for.
    ::kill(pid, SIGKILL);
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) != pid) unreaped.push_back(pid);
    if (end == CycleEnd::kDone) output.clear();
  }
  return end;
}

}  // namespace

std::string ElimLineForReport(std::string_view report_json) {
  const nlohmann::json doc = nlohmann::json::parse(report_json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return kFailLine;
  auto verdict = doc.find("verdict");
  auto rate = doc.find("rate_gbps");
  if (verdict == doc.end() || *verdict != "healthy" || rate == doc.end() || !rate->is_number()) {
    return kFailLine;
  }
  return "2 ib_ok 1 ib_rate " + FormatGbps(rate->get<double>()) + "\n";
}

int RunElim(const ElimSettings& settings) {
  // LIM closing our stdout must show up as EPIPE from write, not kill us
  // silently with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  ::sigprocmask(SIG_BLOCK, &stop, nullptr);
  const int signal_fd = ::signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0) {
    const std::string message = std::string("rdma_probe: signalfd: ") + std::strerror(errno) + "\n";
    WriteAll(STDERR_FILENO, message);
    return 2;
  }

  std::vector<pid_t> unreaped;
  std::string output;
  auto next = Steady::now();
  for (;;) {
    ReapSome(unreaped);
    const CycleEnd end = RunChild(settings, signal_fd, output, unreaped);
    if (end == CycleEnd::kSignal) {
      ::close(signal_fd);
      return 0;
    }
    const std::string line =
        end == CycleEnd::kSpawnFailed ? std::string(kFailLine) : ElimLineForReport(output);
    if (!WriteAll(settings.out_fd, line)) {
      const std::string message =
          std::string("rdma_probe: writing to stdout: ") + std::strerror(errno) + "; exiting\n";
      WriteAll(STDERR_FILENO, message);
      ::close(signal_fd);
      return 2;
    }
    if (end == CycleEnd::kSpawnFailed) {
      WriteAll(STDERR_FILENO, "rdma_probe: cannot start " + settings.exe + "\n");
    }
    next += settings.interval;
    if (next < Steady::now()) next = Steady::now();
    // Sleep until the next cycle, waking for a signal.
    while (Steady::now() < next) {
      pollfd fd = {signal_fd, POLLIN, 0};
      const int n = ::poll(&fd, 1, std::max(1, RemainingMs(next)));
      if (n > 0 && SignalArrived(signal_fd)) {
        ::close(signal_fd);
        return 0;
      }
    }
  }
}

}  // namespace bplace::rdma
