// bkill (LSF 10.1 messages and exit statuses; see docs/lsf-formats.md
// "bkill").

#include <algorithm>
#include <csignal>
#include <cstring>

#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/job_runner.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

constexpr const char* kBkillUsage =
    "Usage: bkill [-h] [-V] [-r | -d] [-s signal_value] [-J job_name] [jobId ...]";

// By default bkill sends SIGINT, then SIGTERM, then SIGKILL; a job that
// ends on the first one exits with 128 + SIGINT.
constexpr int kDefaultSignal = SIGINT;

// Returns the number of a signal given as a number, "KILL" or "SIGKILL";
// 0 when unknown.
int SignalNumber(const std::string& text) {
  long long number = 0;
  if (ParseInt(text, &number)) return number > 0 && number < 65 ? static_cast<int>(number) : 0;
  std::string name = text.rfind("SIG", 0) == 0 ? text.substr(3) : text;
  static const std::pair<const char*, int> kSignals[] = {
      {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"KILL", SIGKILL},
      {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"ALRM", SIGALRM},
      {"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"CONT", SIGCONT}, {"XCPU", SIGXCPU}};
  for (auto& [n, value] : kSignals) {
    if (name == n) return value;
  }
  return 0;
}

struct Killer {
  const Context& ctx;
  int signal = kDefaultSignal;
  bool as_done = false;  // -d: recorded DONE (exit 0) instead of EXIT
  // Process groups of killed jobs that run for real; signalled once the
  // table is saved (sbatchd's part of the kill).
  std::vector<int>* groups = nullptr;

  // The owner, an LSF administrator or an administrator of the job's queue
  // may kill a job (mbatchd's rule); root is an ordinary user unless listed.
  bool MayKill(const Job& job) const {
    const ClusterDef& cluster = *ctx.cluster;
    if (job.user == ctx.user || cluster.IsLsfAdmin(ctx.user)) return true;
    std::optional<size_t> q = cluster.FindQueue(job.queue);
    if (!q) return false;
    for (const std::string& admin : cluster.queues[*q].administrators) {
      if (admin == ctx.user) return true;
    }
    return false;
  }

  // Terminates one unfinished job as mbatchd records it: EXIT with a
  // TERM_OWNER or TERM_ADMIN reason; a dispatched job exits with 128 + the
  // signal, a pending one has no exit status. An UNKWN job cannot be
  // reached: it becomes ZOMBI until its sbatchd answers.
  void Kill(Job* job) const {
    if (job->status == "UNKWN") {
      job->status = "ZOMBI";
      return;
    }
    if (job->status == "ZOMBI") return;
    if (job->pgid > 0 && groups != nullptr) groups->push_back(job->pgid);
    job->exit_code = HoldsSlots(*job) && !as_done ? 128 + signal : 0;
    job->status = as_done ? "DONE" : "EXIT";
    job->end_time = ctx.now;
    job->exit_reason = job->user == ctx.user
                           ? "TERM_OWNER: job killed by owner"
                           : "TERM_ADMIN: job killed by root or LSF administrator";
  }
};

// `bkill 0` (and `bkill -J NAME`, `name` set): every unfinished job of the
// caller (of that name), one line each.
void KillAllOfCaller(const Killer& killer, const std::optional<std::string>& name, JobTable* table,
                     CommandResult* result) {
  int killed = 0;
  for (Job& job : table->jobs) {
    if (job.user != killer.ctx.user || IsFinished(job)) continue;
    if (name && !GlobMatch(*name, DisplayName(job)) && !GlobMatch(*name, job.name)) continue;
    killer.Kill(&job);
    result->out += "Job <" + JobIdText(job) + "> is being terminated\n";
    ++killed;
  }
  if (killed == 0) {
    result->err += "No unfinished job found\n";
    result->exit_code = 255;
  }
}

// Kills the jobs one id argument names (a job, a whole array or some
// elements). Returns false when it fails, with LSF's line on stderr.
bool KillRef(const Killer& killer, const std::string& text, JobTable* table,
             CommandResult* result) {
  std::optional<JobRef> ref = ParseJobRef(text);
  if (!ref) {
    result->err += text + ": Illegal job ID.\n";
    return false;
  }
  std::vector<Job*> jobs;
  for (Job& job : table->jobs) {
    if (JobRefMatches(*ref, job) &&
        !IsCleaned(job, killer.ctx.now, killer.ctx.cluster->clean_period_s)) {
      jobs.push_back(&job);
    }
  }
  std::string error;
  if (jobs.empty()) {
    error = "No matching job found";
  } else if (!killer.MayKill(*jobs.front())) {
    error = "User permission denied";
  } else if (std::all_of(jobs.begin(), jobs.end(), [](Job* j) { return IsFinished(*j); })) {
    error = "Job has already finished";
  }
  if (!error.empty()) {
    result->err += "Job <" + text + ">: " + error + "\n";
    return false;
  }
  for (Job* job : jobs) {
    if (!IsFinished(*job)) killer.Kill(job);
  }
  result->out += "Job <" + text + "> is being terminated\n";
  return true;
}

}  // namespace

CommandResult RunBkill(const Context& ctx, const std::vector<std::string>& args) {
  std::vector<int> groups;
  Killer killer{.ctx = ctx, .groups = &groups};
  std::vector<std::string> ids;
  std::optional<std::string> name;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    bool missing = false;
    if (auto value = TakeOptionValue(args, &i, "-s", &missing)) {
      if (missing) return Fail(kBkillUsage);
      killer.signal = SignalNumber(*value);
      if (killer.signal == 0) return Fail(*value + ": Illegal signal value");
    } else if (auto pattern = TakeOptionValue(args, &i, "-J", &missing)) {
      if (missing) return Fail(kBkillUsage);
      name = *pattern;
    } else if (arg == "-d") {
      killer.as_done = true;
    } else if (arg == "-r") {
      // Forced removal: recorded as killed at once, as here anyway.
    } else if (!arg.empty() && arg[0] == '-') {
      return Fail(kBkillUsage);
    } else {
      ids.push_back(arg);
    }
  }
  // -J alone names jobs among all of the caller's, as `bkill 0 -J NAME`.
  if (name && ids.empty()) ids.push_back("0");
  if (ids.empty()) return Fail(kBkillUsage);

  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  JobTable& table = loaded->jobs;
  CommandResult result;
  for (const std::string& text : ids) {
    if (text == "0") {
      KillAllOfCaller(killer, name, &table, &result);
    } else if (!KillRef(killer, text, &table, &result)) {
      result.exit_code = 255;
    }
  }
  if (!result.out.empty()) {
    if (auto saved = ctx.state->SaveJobs(table); !saved) return InternalError(saved.error());
  }
  lock.Release();
  for (int pgid : groups) {
    SignalJobGroup(pgid, killer.signal, ctx.cluster->job_terminate_interval_s);
  }
  return result;
}

}  // namespace bplace::lsfsim
