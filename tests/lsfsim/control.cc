#include "tests/lsfsim/control.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <numeric>

#include <nlohmann/json.hpp>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/event_log.h"
#include "tests/lsfsim/generate.h"
#include "tests/lsfsim/job_control.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/resolver.h"
#include "tests/lsfsim/run_control.h"
#include "tests/lsfsim/state.h"
#include "tests/lsfsim/util.h"
#include "tests/lsfsim/view.h"

namespace bplace::lsfsim {
namespace {

// Removes `--state DIR` from args and returns the state directory (or
// $LSF_ENVDIR when absent). Empty when neither is given.
std::string TakeStateDir(std::vector<std::string>* args) {
  std::string dir;
  for (size_t i = 0; i < args->size(); ++i) {
    if ((*args)[i] == "--state" && i + 1 < args->size()) {
      dir = (*args)[i + 1];
      args->erase(args->begin() + static_cast<long>(i), args->begin() + static_cast<long>(i) + 2);
      break;
    }
    if ((*args)[i].rfind("--state=", 0) == 0) {
      dir = (*args)[i].substr(8);
      args->erase(args->begin() + static_cast<long>(i));
      break;
    }
  }
  if (dir.empty()) {
    const char* env = std::getenv("LSF_ENVDIR");
    if (env != nullptr) dir = env;
  }
  return dir;
}

std::string SelfBinDir() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.parent_path().string();
}

// A new, empty lsb.events (and no rotations) in LSB_SHAREDIR/<cluster>/logdir.
// Every user the tests submit as appends to it: mode 0666 and directories
// 0777, like the state directory (a test fixture, not a security boundary).
tl::expected<void, std::string> StartEventLog(const StateDir& state) {
  const EventLogConfig log = EventLogOf(state);
  if (log.format == EventLogFormat::kNone) return {};
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path logdir = fs::path(log.path).parent_path();
  fs::create_directories(logdir, ec);
  if (ec) return tl::unexpected("mkdir " + logdir.string() + ": " + ec.message());
  // logdir, <cluster> and work: the three levels below the state directory.
  fs::path dir = logdir;
  for (int level = 0; level < 3; ++level, dir = dir.parent_path()) ::chmod(dir.c_str(), 0777);
  for (int k = 1; fs::exists(log.path + "." + std::to_string(k)); ++k) {
    fs::remove(log.path + "." + std::to_string(k), ec);
  }
  if (auto written = AtomicWriteFile(log.path, EventLogHeader(EventLogHeader(0).size()));
      !written) {
    return written;
  }
  ::chmod(log.path.c_str(), 0666);
  return {};
}

int Init(const StateDir& state, std::vector<std::string> args) {
  std::string cluster_file;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--cluster" && i + 1 < args.size()) {
      cluster_file = args[++i];
    } else {
      return ControlUsageError("init: unexpected argument '" + args[i] + "'");
    }
  }
  if (cluster_file.empty()) return ControlUsageError("init needs --cluster FILE");
  auto text = ReadFile(cluster_file);
  if (!text) return ControlError(text.error());
  auto cluster = ParseClusterDef(*text, cluster_file);
  if (!cluster) return ControlError(cluster.error());

  std::error_code ec;
  std::filesystem::create_directories(state.path(), ec);
  if (ec) return ControlError("mkdir " + state.path() + ": " + ec.message());
  // The directory is shared by every user the tests submit as; files are
  // replaced by rename, so directory write permission is what they need.
  // Not sticky (1777): with the sticky bit bob could not rename over a
  // jobs.json that alice wrote. A test fixture, not a security boundary.
  struct stat st {};
  if (::stat(state.path().c_str(), &st) != 0 || (st.st_mode & 07777) != 0777) {
    if (::chmod(state.path().c_str(), 0777) != 0) {
      return ControlError("chmod " + state.path() + ": " + std::strerror(errno));
    }
  }
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  // The job spool (job_spool.h) of an earlier table goes with it.
  std::filesystem::remove_all(state.path() + "/info", ec);
  if (::mkdir((state.path() + "/info").c_str(), 0777) != 0 ||
      ::chmod((state.path() + "/info").c_str(), 0777) != 0) {
    return ControlError("mkdir " + state.path() + "/info: " + std::strerror(errno));
  }
  // Readable by all is enough: StateLock opens it read-only.
  ::chmod(state.LockPath().c_str(), 0644);
  std::string conf = "# Written by lsfsim init: marks this directory as an LSF_ENVDIR.\n";
  conf += "LSF_CLUSTER_NAME=" + cluster->name + "\n";
  conf += "LSF_VERSION=10.1\n";
  // Engines read these from lsf.conf directly (Toil, dask, Nextflow).
  conf += "LSF_UNIT_FOR_LIMITS=" + cluster->lsf_unit_for_limits + "\n";
  // LSF keeps its event log in LSB_SHAREDIR/<cluster>/logdir/lsb.events.
  const std::string absolute_state =
      std::filesystem::absolute(state.path()).lexically_normal().string();
  conf += "LSB_SHAREDIR=" + absolute_state + "/work\n";
  conf += "LSFSIM_EVENT_LOG=" + cluster->event_log + "\n";
  for (auto result :
       {AtomicWriteFile(state.ClusterPath(), *text), AtomicWriteFile(state.LsfConfPath(), conf)}) {
    if (!result) return ControlError(result.error());
  }
  if (auto log = StartEventLog(state); !log) return ControlError(log.error());
  for (auto result : {state.SaveJobs(JobTable{}), state.SaveOverrides(Overrides{}),
                      state.SaveFaults(FaultTable{}), state.SaveCounts(Counts{})}) {
    if (!result) return ControlError(result.error());
  }
  std::string absolute = std::filesystem::absolute(state.path()).lexically_normal().string();
  std::cout << "export LSF_ENVDIR=" << absolute << "\n";
  std::string bin = SelfBinDir();
  if (!bin.empty()) std::cout << "export PATH=" << bin << ":$PATH\n";
  return 0;
}

// `lsfsim switch-events`: the event log switch mbatchd makes at MAX_JOB_NUM.
int SwitchEvents(const StateDir& state, const std::vector<std::string>& args) {
  if (!args.empty())
    return ControlUsageError("switch-events: unexpected argument '" + args[0] + "'");
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  auto jobs = state.LoadJobs();
  if (!jobs) return ControlError(jobs.error());
  const EventLogConfig log = EventLogOf(state);
  if (auto switched = SwitchEventLog(log, *jobs); !switched) return ControlError(switched.error());
  ::chmod(log.path.c_str(), 0666);
  std::cout << "switched " << log.path << "\n";
  return 0;
}

tl::expected<ClusterDef, std::string> LoadCluster(const StateDir& state) {
  if (!state.HasLsfConf()) {
    return tl::unexpected(state.path() + ": not an lsfsim state directory (run lsfsim init)");
  }
  return LoadClusterDef(state.ClusterPath());
}

int SetHost(const StateDir& state, const std::vector<std::string>& args) {
  if (args.size() != 2) return ControlUsageError("usage: set-host HOST STATUS");
  auto cluster = LoadCluster(state);
  if (!cluster) return ControlError(cluster.error());
  if (!cluster->FindHost(args[0])) return ControlError("no such host: " + args[0]);
  if (!IsValidHostStatus(args[1])) return ControlError("unknown host status: " + args[1]);
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  auto overrides = state.LoadOverrides();
  if (!overrides) return ControlError(overrides.error());
  overrides->host_status[args[0]] = args[1];
  if (auto saved = state.SaveOverrides(*overrides); !saved) return ControlError(saved.error());
  return 0;
}

int SetQueue(const StateDir& state, const std::vector<std::string>& args) {
  if (args.size() != 2)
    return ControlUsageError("usage: set-queue QUEUE open|closed|active|inact_adm|inact_win");
  auto cluster = LoadCluster(state);
  if (!cluster) return ControlError(cluster.error());
  if (!cluster->FindQueue(args[0])) return ControlError("no such queue: " + args[0]);
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  auto overrides = state.LoadOverrides();
  if (!overrides) return ControlError(overrides.error());
  const std::string& value = args[1];
  if (value == "open" || value == "closed") {
    overrides->queue_open[args[0]] = value == "open";
  } else if (value == "active") {
    overrides->queue_activity[args[0]] = QueueActivity::kActive;
  } else if (value == "inact_adm") {
    overrides->queue_activity[args[0]] = QueueActivity::kInactAdm;
  } else if (value == "inact_win") {
    overrides->queue_activity[args[0]] = QueueActivity::kInactWin;
  } else {
    return ControlUsageError("set-queue: unknown state '" + value + "'");
  }
  if (auto saved = state.SaveOverrides(*overrides); !saved) return ControlError(saved.error());
  return 0;
}

int SetIb(const StateDir& state, const std::vector<std::string>& args) {
  if (args.size() != 2 || (args[1] != "0" && args[1] != "1")) {
    return ControlUsageError("usage: set-ib HOST 0|1");
  }
  auto cluster = LoadCluster(state);
  if (!cluster) return ControlError(cluster.error());
  if (!cluster->FindHost(args[0])) return ControlError("no such host: " + args[0]);
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  auto overrides = state.LoadOverrides();
  if (!overrides) return ControlError(overrides.error());
  overrides->ib_ok[args[0]] = args[1] == "1" ? 1 : 0;
  if (auto saved = state.SaveOverrides(*overrides); !saved) return ControlError(saved.error());
  return 0;
}

int Fault(const StateDir& state, const std::vector<std::string>& args) {
  std::string command = "all";
  bool clear = false;
  std::optional<std::string> down;
  std::optional<int> slow_ms;
  std::optional<bool> truncate;
  std::optional<bool> garbage;
  std::optional<long long> chaos;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    bool has_value = i + 1 < args.size();
    if (arg == "--command" && has_value) {
      command = args[++i];
      if (command != "all" && !IsLsfCommand(command)) {
        return ControlUsageError("fault: unknown command '" + command + "'");
      }
    } else if (arg == "--down" && has_value) {
      down = args[++i];
      if (*down != "hang" && *down != "fail" && *down != "off") {
        return ControlUsageError("fault: --down takes hang, fail or off");
      }
    } else if (arg == "--slow-ms" && has_value) {
      long long value = 0;
      if (!ParseInt(args[++i], &value))
        return ControlUsageError("fault: --slow-ms takes milliseconds");
      slow_ms = static_cast<int>(value);
    } else if (arg == "--truncate" || arg == "--no-truncate") {
      truncate = arg == "--truncate";
    } else if (arg == "--garbage" || arg == "--no-garbage") {
      garbage = arg == "--garbage";
    } else if (arg == "--chaos" && has_value) {
      long long seed = -1;
      if (!ParseInt(args[++i], &seed) || seed < 0) {
        return ControlUsageError("fault: --chaos takes a seed (0 or more)");
      }
      chaos = seed;
    } else if (arg == "--no-chaos") {
      chaos = -1;
    } else if (arg == "--clear") {
      clear = true;
    } else {
      return ControlUsageError("fault: unexpected argument '" + arg + "'");
    }
  }
  if (!clear && !down && !slow_ms && !truncate && !garbage && !chaos) {
    return ControlUsageError("fault: nothing to do");
  }
  if (!state.HasLsfConf()) return ControlError(state.path() + ": not an lsfsim state directory");
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  auto faults = state.LoadFaults();
  if (!faults) return ControlError(faults.error());
  if (clear) {
    // `--clear` alone clears everything; with --command only that entry.
    bool explicit_command = std::find(args.begin(), args.end(), "--command") != args.end();
    if (explicit_command) {
      faults->erase(command);
    } else {
      faults->clear();
    }
  }
  if (down || slow_ms || truncate || garbage || chaos) {
    FaultSpec& spec = (*faults)[command];
    if (chaos) spec.chaos_seed = *chaos;
    if (down) spec.down = *down == "off" ? "" : *down;
    if (slow_ms) spec.slow_ms = *slow_ms;
    if (truncate) spec.truncate = *truncate;
    if (garbage) spec.garbage = *garbage;
  }
  if (auto saved = state.SaveFaults(*faults); !saved) return ControlError(saved.error());
  return 0;
}

int CountsCommand(const StateDir& state, const std::vector<std::string>& args) {
  bool reset = false;
  for (const std::string& arg : args) {
    if (arg == "--reset") {
      reset = true;
    } else {
      return ControlUsageError("counts: unexpected argument '" + arg + "'");
    }
  }
  if (!state.HasLsfConf()) return ControlError(state.path() + ": not an lsfsim state directory");
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  if (reset) {
    if (auto saved = state.SaveCounts(Counts{}); !saved) return ControlError(saved.error());
    return 0;
  }
  auto counts = state.LoadCounts();
  if (!counts) return ControlError(counts.error());
  nlohmann::json out = nlohmann::json::object();
  for (const char* name : kLsfCommands) out[name] = 0;
  for (auto& [name, count] : *counts) out[name] = count;
  std::cout << out.dump() << "\n";
  return 0;
}

int JobsCommand(const StateDir& state, const std::vector<std::string>& args) {
  if (!args.empty()) return ControlUsageError("jobs takes no arguments");
  if (!state.HasLsfConf()) return ControlError(state.path() + ": not an lsfsim state directory");
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  auto jobs = state.LoadJobs();
  if (!jobs) return ControlError(jobs.error());
  std::cout << JobTableToJsonText(*jobs);
  return 0;
}

int Generate(const std::vector<std::string>& args) {
  GenerateOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    long long value = 0;
    if (i + 1 >= args.size() || !ParseInt(args[i + 1], &value)) {
      return ControlUsageError("generate: " + args[i] + " needs a number");
    }
    const std::string& arg = args[i++];
    if (arg == "--queues") {
      options.queues = static_cast<int>(value);
    } else if (arg == "--hosts") {
      options.hosts = static_cast<int>(value);
    } else if (arg == "--host-groups") {
      options.host_groups = static_cast<int>(value);
    } else if (arg == "--depth") {
      options.depth = static_cast<int>(value);
    } else if (arg == "--seed") {
      options.seed = static_cast<unsigned>(value);
    } else {
      return ControlUsageError("generate: unexpected argument '" + arg + "'");
    }
  }
  if (options.hosts > 99999) return ControlUsageError("generate: at most 99999 hosts");
  std::cout << GenerateCluster(options);
  return 0;
}

}  // namespace

int ControlUsageError(const std::string& message) {
  std::cerr << "lsfsim: " << message << "\n";
  PrintControlUsage();
  return 2;
}

int ControlError(const std::string& message) {
  std::cerr << "lsfsim: " << message << "\n";
  return 1;
}

void PrintControlUsage() {
  std::cerr
      << "usage: lsfsim <subcommand> [--state DIR] ...   (DIR defaults to $LSF_ENVDIR)\n"
         "  init --cluster FILE             create the state directory from a definition\n"
         "  schedule [--finish] [--run]     dispatch pending jobs (--finish: RUN -> DONE "
         "first;\n"
         "                                  --run: start dispatched jobs as real processes)\n"
         "  daemon [--interval-ms N]        schedule --run every N ms until SIGTERM\n"
         "  wait JOBID... [--running] [--timeout-ms N]\n"
         "                                  until the jobs are DONE or EXIT (--running: run)\n"
         "  set-host HOST STATUS            ok, closed_Adm, closed_Lock, unavail, unreach, ...\n"
         "  set-queue QUEUE STATE           open, closed, active, inact_adm, inact_win\n"
         "  set-ib HOST 0|1                 value of the ib_ok load index\n"
         "  finish JOBID [--exit N] [--reason TEXT]   a dispatched job ends: DONE, or EXIT N\n"
         "  set-job JOBID STAT              PEND PSUSP RUN USUSP SSUSP UNKWN ZOMBI\n"
         "  fault [--command NAME|all] [--down hang|fail|off] [--slow-ms N] [--chaos "
         "SEED|--no-chaos]\n"
         "        [--truncate|--no-truncate] [--garbage|--no-garbage] | --clear\n"
         "  counts [--reset]                invocations per LSF command (JSON)\n"
         "  jobs                            the job table (JSON)\n"
         "  switch-events                   switch lsb.events as mbatchd does at MAX_JOB_NUM\n"
         "  generate [--queues N] [--hosts N] [--host-groups N] [--depth D] [--seed S]\n"
         "  <lsf-command> ARGS...           run bqueues, bsub, ... without the symlinks\n";
}

int RunControlCommand(const std::string& name, const std::vector<std::string>& input_args) {
  std::vector<std::string> args = input_args;
  if (name == "generate") return Generate(args);
  if (name == "help" || name == "--help" || name == "-h") {
    PrintControlUsage();
    return 0;
  }
  std::string dir = TakeStateDir(&args);
  if (dir.empty())
    return ControlUsageError("no state directory: pass --state DIR or set LSF_ENVDIR");
  StateDir state(dir);
  if (name == "init") return Init(state, args);
  if (name == "schedule") return ScheduleCommand(state, args);
  if (name == "daemon") return DaemonCommand(state, args);
  if (name == "wait") return WaitCommand(state, args);
  if (name == "set-host") return SetHost(state, args);
  if (name == "set-queue") return SetQueue(state, args);
  if (name == "set-ib") return SetIb(state, args);
  if (name == "finish") return FinishJobCommand(state, args);
  if (name == "set-job") return SetJobCommand(state, args);
  if (name == "fault") return Fault(state, args);
  if (name == "counts") return CountsCommand(state, args);
  if (name == "jobs") return JobsCommand(state, args);
  if (name == "switch-events") return SwitchEvents(state, args);
  return ControlUsageError("unknown subcommand '" + name + "'");
}

}  // namespace bplace::lsfsim
