// bparams, lsadmin showconf lim and bacct -l: the configuration and
// accounting queries engines make (Toil runs the first two on every
// submission, lsfHelper.py; bacct is its last resort for a job's end).
// LSF 10.1 forms; the OpenLava dialect answers as volclava 2.2, which has
// no `bparams -a`, no `lsadmin showconf` and no bacct (its bparams.c and
// lsadmin.c).

#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

std::string DefaultQueues(const ClusterDef& cluster) {
  std::optional<size_t> q = cluster.DefaultQueue();
  return q ? cluster.queues[*q].name : "";
}

std::string KeyValue(const std::string& key, const std::string& value) {
  return "    " + key + " = " + value + "\n";
}

// `bparams -a`: the lsb.params values of the definition, LSF's defaults
// for the rest.
std::string AllParams(const Context& ctx) {
  const ClusterDef& cluster = *ctx.cluster;
  std::string out = "lsb.params configuration at " + FormatLocalTime(ctx.now, kCTime) + "\n";
  out += KeyValue("DEFAULT_QUEUE", DefaultQueues(cluster));
  out += KeyValue("MBD_SLEEP_TIME", "10");
  out += KeyValue("SBD_SLEEP_TIME", "7");
  out += KeyValue("JOB_ACCEPT_INTERVAL", "0");
  out += KeyValue("CLEAN_PERIOD", std::to_string(cluster.clean_period_s));
  out += KeyValue("MAX_JOB_ARRAY_SIZE", std::to_string(cluster.max_job_array_size));
  if (cluster.max_pend_jobs)
    out += KeyValue("MAX_PEND_JOBS", std::to_string(*cluster.max_pend_jobs));
  if (cluster.max_pend_slots) {
    out += KeyValue("MAX_PEND_SLOTS", std::to_string(*cluster.max_pend_slots));
  }
  out += KeyValue("SUB_TRY_INTERVAL", std::to_string(cluster.sub_try_interval_s));
  out += KeyValue("JOB_TERMINATE_INTERVAL", std::to_string(cluster.job_terminate_interval_s));
  out += KeyValue("RESOURCE_RESERVE_PER_TASK", cluster.resource_reserve_per_task ? "Y" : "N");
  return out;
}

std::string LsadminUsage() {
  static const std::pair<const char*, const char*> kCommands[] = {
      {"reconfig", "Reconfigure LSF"},
      {"ckconfig", "Check configuration files"},
      {"limrestart", "Restart LIM (Load Information Manager)"},
      {"limstartup", "Startup LIM (Load Information Manager)"},
      {"limshutdown", "Shut down LIM (Load Information Manager)"},
      {"limlock", "Lock LIM on local host"},
      {"limunlock", "Unlock LIM on local host"},
      {"resrestart", "Restart RES (Remote Execution Server)"},
      {"resstartup", "Startup RES (Remote Execution Server)"},
      {"resshutdown", "Shut down RES (Remote Execution Server)"},
      {"reslogon", "Log tasks executed by RES"},
      {"reslogoff", "RES log off"},
      {"limdebug", "Debug LIM"},
      {"limtime", "Debug LIM timing message"},
      {"resdebug", "Debug RES"},
      {"restime", "Debug RES timing message"},
      {"help", "Get help on commands"},
      {"?", "Get help on commands"},
      {"quit", "Quit"}};
  std::string out = "\nUsage: lsadmin [-h] [-V] [command] [command_options] [command_args]\n\n";
  out += "    where 'command' is:\n\n";
  for (auto [name, info] : kCommands) out += StrPrintf("    %-12.12s%s\n", name, info);
  return out;
}

// One job's block of `bacct -l` (LSF 10.1).
std::string AccountingBlock(const Job& job) {
  auto when = [](long long t) { return FormatLocalTime(t, kEventTime); };
  bool done = job.status == "DONE";
  std::string out = "\nJob <" + JobIdText(job) + ">, User <" + job.user + ">, Project <" +
                    job.project + ">, Status <" + job.status + ">, Queue <" + job.queue +
                    ">, Command <" + CommandAsShown(job) + ">\n";
  out += when(job.submit_time) + "Submitted from host <" + job.from_host + ">, CWD <" +
         (job.cwd.empty() ? "/tmp" : job.cwd) + ">;\n";
  if (job.start_time != 0) out += when(job.start_time) + "Dispatched to <" + job.exec_host + ">;\n";
  out += when(job.end_time) + (done ? "Completed <done>." : "Completed <exit>.") + "\n";
  long long wait = job.start_time != 0 ? job.start_time - job.submit_time : 0;
  long long turnaround = job.end_time - job.submit_time;
  out += "\nAccounting information about this job:\n";
  out += "     CPU_T     WAIT     TURNAROUND   STATUS     HOG_FACTOR    MEM    SWAP\n";
  double hog = turnaround > 0 ? job.cpu_s / static_cast<double>(turnaround) : 0;
  long long mem_mb = job.max_mem_kb > 0 ? (job.max_mem_kb + 512) / 1024 : 0;
  out += StrPrintf("%10.2f %8lld %14lld %8s %14.4f %5lldM %6dM\n", job.cpu_s, wait, turnaround,
                   done ? "done" : "exit", hog, mem_mb, 0);
  return out + std::string(78, '-') + "\n";
}

}  // namespace

CommandResult RunBparams(const Context& ctx, const std::vector<std::string>& args) {
  const ClusterDef& cluster = *ctx.cluster;
  bool all = args.size() == 1 && args[0] == "-a";
  if (cluster.dialect == Dialect::kOpenlava) {
    if (!args.empty()) {
      std::string bad = args[0].size() > 1 ? std::string(1, args[0][1]) : "-";
      return Fail("bparams: invalid option -- '" + bad + "'\nUsage: bparams [-h] [-V] [-l]");
    }
    return CommandResult{.exit_code = 0,
                         .out = "Default Queues:  " + DefaultQueues(cluster) +
                                "\nJob Dispatch Interval:  5 seconds\nJob Checking Interval:  5 "
                                "seconds\nJob Accepting Interval:  0 seconds\n",
                         .err = ""};
  }
  if (!args.empty() && !all) return Fail("Usage: bparams [-a] [-l]\n       bparams [-h | -V]");
  if (all) return CommandResult{.exit_code = 0, .out = AllParams(ctx), .err = ""};
  return CommandResult{.exit_code = 0,
                       .out = "Default Queues:  " + DefaultQueues(cluster) +
                              "\nMBD_SLEEP_TIME used for calculations:  10 seconds\nJob Checking "
                              "Interval:  7 seconds\nJob Accepting Interval:  0 seconds\n",
                       .err = ""};
}

CommandResult RunLsadmin(const Context& ctx, const std::vector<std::string>& args) {
  const ClusterDef& cluster = *ctx.cluster;
  if (cluster.dialect == Dialect::kOpenlava) {
    std::string command = args.empty() ? "" : args[0];
    return CommandResult{.exit_code = 255,
                         .out = "",
                         .err = "Invalid command <" + command + "> \n" + LsadminUsage()};
  }
  if (args.size() != 2 || args[0] != "showconf" || args[1] != "lim") {
    return Fail("lsadmin: the simulator answers only `lsadmin showconf lim`");
  }
  std::string out = "LIM configuration at " + FormatLocalTime(ctx.now, kCTime) + "\n";
  out += KeyValue("LSF_ENVDIR", ctx.state->path());
  out += KeyValue("LSF_LIM_PORT", "7869");
  out += KeyValue("LSF_RES_PORT", "6878");
  out += KeyValue("LSB_MBD_PORT", "6881");
  out += KeyValue("LSB_SBD_PORT", "6882");
  out += KeyValue("LSF_UNIT_FOR_LIMITS", cluster.lsf_unit_for_limits);
  return CommandResult{.exit_code = 0, .out = out, .err = ""};
}

CommandResult RunBacct(const Context& ctx, const std::vector<std::string>& args) {
  if (ctx.cluster->dialect == Dialect::kOpenlava) {
    return CommandResult{.exit_code = 127, .out = "", .err = "bacct: command not found\n"};
  }
  std::vector<JobRef> refs;
  for (const std::string& arg : args) {
    if (arg == "-l") continue;
    std::optional<JobRef> ref = ParseJobRef(arg);
    if (!ref) return Fail(arg + ": Illegal job ID.");
    refs.push_back(*ref);
  }
  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  lock.Release();
  // lsb.acct holds every finished job, cleaned from mbatchd's memory or not.
  std::string blocks;
  int done = 0;
  int exited = 0;
  for (const Job& job : loaded->jobs.jobs) {
    bool named = refs.empty() ? job.user == ctx.user : false;
    for (const JobRef& ref : refs) named = named || JobRefMatches(ref, job);
    if (!named || !IsFinished(job)) continue;
    blocks += AccountingBlock(job);
    ++(job.status == "DONE" ? done : exited);
  }
  if (blocks.empty()) return Fail("No matching job found");
  std::string out =
      "Accounting information about jobs that are: \n  - submitted by all users.\n  - accounted "
      "on all projects.\n  - completed normally or exited\n  - executed on all hosts.\n  - "
      "submitted to all queues.\n  - accounted on all service classes.\n" +
      std::string(78, '-') + "\n" + blocks;
  out += StrPrintf(
      "\nSUMMARY:      ( time unit: second ) \n Total number of done jobs: %7d      Total number "
      "of exited jobs: %5d\n",
      done, exited);
  return CommandResult{.exit_code = 0, .out = out, .err = ""};
}

}  // namespace bplace::lsfsim
