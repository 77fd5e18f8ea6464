#include "tests/lsfsim/run_control.h"

#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <iostream>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/control.h"
#include "tests/lsfsim/job_runner.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/scheduler.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

struct TurnResult {
  int dispatched = 0;
  int finished = 0;
  int started = 0;
};

// One dispatch turn under the lock; the runners start after it is released.
tl::expected<TurnResult, std::string> ScheduleTurn(const StateDir& state, bool finish, bool run) {
  if (!state.HasLsfConf()) {
    return tl::unexpected(state.path() + ": not an lsfsim state directory (run lsfsim init)");
  }
  auto cluster = LoadClusterDef(state.ClusterPath());
  if (!cluster) return tl::unexpected(cluster.error());
  TurnResult result;
  std::vector<JobKey> to_run;
  {
    StateLock lock(state);
    if (!lock.ok()) return tl::unexpected(lock.error());
    auto overrides = state.LoadOverrides();
    if (!overrides) return tl::unexpected(overrides.error());
    auto jobs = state.LoadJobs();
    if (!jobs) return tl::unexpected(jobs.error());
    long long now = NowSeconds();
    if (finish) {
      for (Job& job : jobs->jobs) {
        // A job that runs for real ends when its process does.
        if (job.status != "RUN" || job.executed) continue;
        job.status = "DONE";
        job.exit_code = 0;
        job.end_time = now;
        ++result.finished;
      }
    }
    result.dispatched = DispatchPendingJobs(*cluster, *overrides, &*jobs, now);
    if (run) to_run = TakeJobsToRun(&*jobs);
    if (auto saved = state.SaveJobs(*jobs); !saved) return tl::unexpected(saved.error());
  }
  if (auto launched = LaunchJobRunners(state, to_run); !launched) {
    return tl::unexpected(launched.error());
  }
  result.started = static_cast<int>(to_run.size());
  return result;
}

// Parses "--NAME N" at args[*i] into *value (milliseconds).
bool TakeMillis(const std::vector<std::string>& args, size_t* i, const char* name,
                long long* value) {
  if (args[*i] != name || *i + 1 >= args.size()) return false;
  return ParseInt(args[++*i], value);
}

// True when every job `refs` names is in the table and over; sets
// *missing to the first id the table does not hold.
// With `running`, a job counts once its process runs (or it has ended).
bool AllReached(const JobTable& table, const std::vector<JobRef>& refs, bool running,
                std::string* missing) {
  bool done = true;
  for (const JobRef& ref : refs) {
    bool found = false;
    for (const Job& job : table.jobs) {
      if (!JobRefMatches(ref, job)) continue;
      found = true;
      // A job that ran for real is over once its runner recorded the end.
      bool over = IsFinished(job) && job.pgid == 0;
      done = done && (over || (running && job.pgid > 0));
    }
    if (!found) {
      *missing = ref.text;
      return false;
    }
  }
  return done;
}

}  // namespace

int ScheduleCommand(const StateDir& state, const std::vector<std::string>& args) {
  bool finish = false;
  bool run = false;
  for (const std::string& arg : args) {
    if (arg == "--finish") {
      finish = true;
    } else if (arg == "--run") {
      run = true;
    } else {
      return ControlUsageError("schedule: unexpected argument '" + arg + "'");
    }
  }
  auto turn = ScheduleTurn(state, finish, run);
  if (!turn) return ControlError(turn.error());
  std::cout << "dispatched " << turn->dispatched << " job(s), finished " << turn->finished
            << " job(s)";
  if (run) std::cout << ", started " << turn->started << " job(s)";
  std::cout << "\n";
  return 0;
}

int DaemonCommand(const StateDir& state, const std::vector<std::string>& args) {
  long long interval_ms = 200;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!TakeMillis(args, &i, "--interval-ms", &interval_ms) || interval_ms < 1) {
      return ControlUsageError("daemon: expected --interval-ms N (N >= 1)");
    }
  }
  // SIGTERM and SIGINT are taken synchronously, between turns.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  ::sigprocmask(SIG_BLOCK, &stop, nullptr);
  struct timespec pause = {static_cast<time_t>(interval_ms / 1000),
                           static_cast<long>(interval_ms % 1000) * 1000000L};
  for (;;) {
    auto turn = ScheduleTurn(state, false, true);
    if (!turn) return ControlError(turn.error());
    int sig = ::sigtimedwait(&stop, nullptr, &pause);
    if (sig == SIGTERM || sig == SIGINT) return 0;
  }
}

int WaitCommand(const StateDir& state, const std::vector<std::string>& args) {
  long long timeout_ms = 30000;
  bool running = false;
  std::vector<JobRef> refs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--running") {
      running = true;
    } else if (args[i] == "--timeout-ms") {
      if (!TakeMillis(args, &i, "--timeout-ms", &timeout_ms)) {
        return ControlUsageError("wait: --timeout-ms takes milliseconds");
      }
    } else if (auto ref = ParseJobRef(args[i])) {
      refs.push_back(*ref);
    } else {
      return ControlUsageError("wait: not a job id: " + args[i]);
    }
  }
  if (refs.empty()) return ControlUsageError("usage: wait JOBID... [--running] [--timeout-ms N]");
  if (!state.HasLsfConf()) return ControlError(state.path() + ": not an lsfsim state directory");
  int watch = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (watch < 0 || ::inotify_add_watch(watch, state.path().c_str(), IN_MOVED_TO) < 0) {
    return ControlError("inotify on " + state.path() + " failed");
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int result = 1;
  for (;;) {
    std::string missing;
    {
      StateLock lock(state);
      auto table = state.LoadJobs();
      if (!lock.ok() || !table) break;
      if (AllReached(*table, refs, running, &missing)) {
        result = 0;
        break;
      }
    }
    if (!missing.empty()) {
      std::cerr << "lsfsim: wait: no job " << missing << "\n";
      break;
    }
    auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      std::cerr << "lsfsim: wait: timed out after " << timeout_ms << " ms\n";
      break;
    }
    struct pollfd pfd = {watch, POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(left.count())) > 0) {
      char buffer[4096];
      while (::read(watch, buffer, sizeof buffer) > 0) {
      }
    }
  }
  ::close(watch);
  return result;
}

}  // namespace bplace::lsfsim
