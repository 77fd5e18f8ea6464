#include "tests/lsfsim/job_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "tests/lsfsim/job_exec.h"
#include "tests/lsfsim/job_report.h"
#include "tests/lsfsim/job_spool.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

constexpr const char* kRunLimitReason =
    "TERM_RUNLIMIT: job killed after reaching LSF run time limit";

volatile sig_atomic_t g_alarm = 0;

void OnAlarm(int) { g_alarm = 1; }

Job* FindJob(JobTable* table, const JobKey& key) {
  for (Job& job : table->jobs) {
    if (job.id == key.id && job.index == key.index) return &job;
  }
  return nullptr;
}

// Makes the calling process a detached daemon child: its own session,
// stdio on /dev/null, no other descriptors, default signal handling.
void Detach() {
  ::setsid();
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  ::close_range(3, ~0U, 0);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD}) ::signal(sig, SIG_DFL);
}

// Runs `body` in a grandchild detached by Detach(); returns once the
// intermediate child has exited (so no zombie is left). Error: a fork failed.
template <typename Body>
tl::expected<void, std::string> SpawnDetached(Body body) {
  pid_t child = ::fork();
  if (child < 0) return tl::unexpected(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    Detach();
    pid_t grandchild = ::fork();
    if (grandchild == 0) {
      int code = 1;
      try {
        code = body();
      } catch (...) {
      }
      ::_exit(code);
    }
    ::_exit(grandchild < 0 ? 1 : 0);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return tl::unexpected(std::string("fork of a runner failed"));
  }
  return {};
}

// Step 1: under the lock, starts the job process. Returns its pid, 0 when
// there is nothing to run (ended meanwhile), or an error.
tl::expected<pid_t, std::string> StartJob(const StateDir& state, const ClusterDef& cluster,
                                          const JobKey& key, Job* started) {
  StateLock lock(state);
  if (!lock.ok()) return tl::unexpected(lock.error());
  auto table = state.LoadJobs();
  if (!table) return tl::unexpected(table.error());
  Job* job = FindJob(&*table, key);
  if (job == nullptr || job->status != "RUN" || job->pgid != 0) return 0;
  auto spool = LoadJobSpool(state, key.id);
  if (!spool) return tl::unexpected(spool.error());
  auto plan = MakeExecPlan(*job, *spool, cluster);
  pid_t pid = plan ? ::fork() : -1;
  if (pid < 0) {
    // sbatchd could not start the job (no such user, no process): it exits
    // at once, as a job whose start fails does in LSF.
    job->status = "EXIT";
    job->exit_code = 1;
    job->end_time = NowSeconds();
    if (auto saved = state.SaveJobs(*table); !saved) return tl::unexpected(saved.error());
    return 0;
  }
  if (pid == 0) ExecJobChild(*plan);
  ::setpgid(pid, pid);  // also in the child: whichever runs first
  job->pgid = pid;
  *started = *job;
  if (auto saved = state.SaveJobs(*table); !saved) return tl::unexpected(saved.error());
  return pid;
}

struct Ended {
  int status = 0;
  struct rusage usage {};
  bool run_limit = false;
};

// Step 2: waits for the job, enforcing its run limit (-W).
Ended WaitForJob(pid_t pid, long long run_limit_s, int terminate_interval_s) {
  Ended ended;
  struct sigaction action {};
  action.sa_handler = OnAlarm;  // no SA_RESTART: wait4 returns EINTR
  ::sigaction(SIGALRM, &action, nullptr);
  if (run_limit_s > 0) ::alarm(static_cast<unsigned>(run_limit_s));
  while (::wait4(pid, &ended.status, 0, &ended.usage) < 0) {
    if (errno != EINTR) break;
    if (!g_alarm) continue;
    g_alarm = 0;
    ::kill(-pid, ended.run_limit ? SIGKILL : SIGINT);
    if (!ended.run_limit) ::alarm(static_cast<unsigned>(std::max(1, terminate_interval_s)));
    ended.run_limit = true;
  }
  ::alarm(0);
  return ended;
}

// Appends the job report to the -o file (nothing without -o: LSF mails it).
void AppendReport(const Job& job, const ClusterDef& cluster) {
  JobOutputFile out = StdoutFile(job);
  if (out.path.empty()) return;
  JobReportFacts facts{.cluster = cluster.name,
                       .admin = cluster.admins.empty() ? "lsfadmin" : cluster.admins.front(),
                       .home = HomeDirectoryOf(job.user),
                       .exec_cwd = ExecCwd(job),
                       .stderr_file = StderrFile(job).as_given};
  if (facts.home.empty()) facts.home = "/";
  std::string report = JobReport(job, facts);
  int fd = ::open(out.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  size_t done = 0;
  while (done < report.size()) {
    ssize_t n = ::write(fd, report.data() + done, report.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

// Step 3: records the end under the lock.
tl::expected<void, std::string> FinishJob(const StateDir& state, const ClusterDef& cluster,
                                          const JobKey& key, const Ended& ended) {
  StateLock lock(state);
  if (!lock.ok()) return tl::unexpected(lock.error());
  auto table = state.LoadJobs();
  if (!table) return tl::unexpected(table.error());
  Job* job = FindJob(&*table, key);
  if (job == nullptr) return {};  // the state was re-initialised meanwhile
  if (!IsFinished(*job)) {
    int code = WIFEXITED(ended.status)     ? WEXITSTATUS(ended.status)
               : WIFSIGNALED(ended.status) ? 128 + WTERMSIG(ended.status)
                                           : 1;
    job->status = code == 0 ? "DONE" : "EXIT";
    job->exit_code = code;
    job->exit_reason = ended.run_limit ? kRunLimitReason : "";
    job->end_time = NowSeconds();
  }
  const struct rusage& ru = ended.usage;
  job->cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  job->max_mem_kb = ru.ru_maxrss;
  job->pgid = 0;
  AppendReport(*job, cluster);
  return state.SaveJobs(*table);
}

int RunJob(const StateDir& state, const JobKey& key) {
  auto cluster = LoadClusterDef(state.ClusterPath());
  if (!cluster) return 1;
  Job job;
  auto pid = StartJob(state, *cluster, key, &job);
  if (!pid || *pid == 0) return pid ? 0 : 1;
  Ended ended = WaitForJob(*pid, job.run_limit_s, cluster->job_terminate_interval_s);
  return FinishJob(state, *cluster, key, ended) ? 0 : 1;
}

}  // namespace

std::vector<JobKey> TakeJobsToRun(JobTable* table) {
  std::vector<JobKey> out;
  for (Job& job : table->jobs) {
    if (job.status != "RUN" || job.executed) continue;
    job.executed = true;
    out.push_back(JobKey{job.id, job.index});
  }
  return out;
}

tl::expected<void, std::string> LaunchJobRunners(const StateDir& state,
                                                 const std::vector<JobKey>& jobs) {
  for (const JobKey& key : jobs) {
    auto spawned = SpawnDetached([&] { return RunJob(state, key); });
    if (!spawned) return spawned;
  }
  return {};
}

void SignalJobGroup(int pgid, int signal, int kill_after_s) {
  if (pgid <= 0) return;
  ::kill(-pgid, signal);
  if (signal == SIGKILL || kill_after_s <= 0) return;
  auto spawned = SpawnDetached([&] {
    std::this_thread::sleep_for(std::chrono::seconds(kill_after_s));
    if (::kill(-pgid, 0) == 0) ::kill(-pgid, SIGKILL);
    return 0;
  });
  (void)spawned;
}

}  // namespace bplace::lsfsim
