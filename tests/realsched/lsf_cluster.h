#pragma once

// The LSF (or LSF-compatible) cluster the realsched tier runs against, named
// by the environment (tests/realsched/README.md "Naming the cluster"):
//   BPLACE_REALSCHED_LSF_ENVDIR       an existing cluster's LSF_ENVDIR; its
//                                     commands in BPLACE_REALSCHED_LSF_BINDIR,
//                                     else LSF_BINDIR of its lsf.conf. It is
//                                     neither started nor stopped here.
//   BPLACE_REALSCHED_VOLCLAVA_PREFIX  an installed volclava: a one-host cluster
//                                     of it is started for the run with
//                                     tools/volclava.sh start (as root) and
//                                     stopped after it.
//   BPLACE_REALSCHED_USER             the user LSF commands run as (Run);
//                                     default: the user running the test.
// Without either cluster variable the tier skips, saying how to name one.
//
// Depends on nothing of bplace's own code (only the C++ standard library and
// POSIX), so a test of the real daemon can use it as well as a test of the
// scheduler itself:
//
//   LsfClusterOptions options = LsfClusterOptions::FromEnvironment(kScript, kStateParent);
//   if (std::string why = LsfCluster::SkipReason(options); !why.empty()) GTEST_SKIP() << why;
//   LsfCluster cluster(options);
//   ASSERT_EQ(cluster.Start(), "");
//   CommandResult r = cluster.Run("bsub", {"-q", "short", "sleep", "1"});
//   // start bplaced with cluster.EnvStrings() (LSF_ENVDIR, PATH, LSB_NTRIES...)

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bplace::realsched {

// What a finished (or killed) command did. Field names follow
// lsf_adapter/command_runner.h.
struct CommandResult {
  int exit_code = -1;      // exit status; -1 when killed by a signal or not started
  int term_signal = 0;     // the signal that ended it, 0 if it exited
  bool timed_out = false;  // killed (SIGKILL to its process group) at the timeout
  std::string out;         // all of stdout
  std::string err;         // all of stderr
  std::chrono::milliseconds elapsed{0};

  // "exit 255 / stdout: ... / stderr: ...", for assertion messages.
  std::string Describe() const;
};

// A user to run a command as (see RunCommand). Fill it with UserByName.
struct RunAsUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string home;
};

// The passwd entry of `name`, or nullopt when there is no such user.
std::optional<RunAsUser> UserByName(const std::string& name);

// Runs argv (no shell; argv[0] a path, or a name looked up in PATH of `env`)
// with exactly the environment `env` ("NAME=value"), stdin /dev/null, in its
// own process group, working directory `work_dir`. Blocks until it exits or
// `timeout` passes; then its whole process group gets SIGKILL and the result
// has timed_out set. With `as`, the child drops to that user's uid, gid and
// supplementary groups before exec (needs root). A child that cannot exec
// exits 127 with the reason on stderr. Thread-safe.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         std::chrono::milliseconds timeout, const std::string& work_dir = "/tmp",
                         const std::optional<RunAsUser>& as = std::nullopt);

// Where the cluster comes from and who runs its commands.
struct LsfClusterOptions {
  // An existing cluster: its LSF_ENVDIR, and the directory of its commands
  // (empty: LSF_BINDIR of env_dir/lsf.conf).
  std::string env_dir;
  std::string bin_dir;
  // Or an installed volclava (bin/, sbin/ under it) to start a one-host
  // cluster of; used only when env_dir is empty.
  std::string volclava_prefix;
  // tools/volclava.sh of the checkout, which starts and stops that cluster.
  std::string script;
  // Where a started cluster's state dirs go (state.XXXXXX, made by Start,
  // removed by Stop unless keep_state_dir). Start first stops and removes
  // such siblings left by a test process that died without stopping its
  // cluster.
  std::string state_parent;
  bool keep_state_dir = false;
  // Extra environment for tools/volclava.sh (VOLCLAVA_CLEAN_PERIOD,
  // VOLCLAVA_QUEUE_USER, VOLCLAVA_PORT_BASE...).
  std::map<std::string, std::string> script_env;
  std::chrono::seconds start_timeout{120};
  // The user Run runs LSF commands as; empty: the user running the test.
  std::string user;

  // The options the environment names (see the top of this file), with
  // `script` and `state_parent` as given.
  static LsfClusterOptions FromEnvironment(const std::string& script,
                                           const std::string& state_parent);
};

// One cluster, existing or started for the run: for volclava, lim, res,
// sbatchd and mbatchd as root, with the queues of tests/realsched/README.md
// "The cluster" (normal default, short, tiny with MAX 1 and JL/U 1, userq for
// one user, closedq closed, inactq inactive). Not thread-safe to Start/Stop;
// the const members (Env, Run, ...) may be called from several threads once
// Start returned.
class LsfCluster {
 public:
  explicit LsfCluster(LsfClusterOptions options);
  ~LsfCluster();  // Stop()
  LsfCluster(const LsfCluster&) = delete;
  LsfCluster& operator=(const LsfCluster&) = delete;

  // Why the tier cannot run here, or "" when it can: no cluster named (the
  // message says how to name one), or a volclava to start without root
  // (its daemons must run as root). A cluster named but unusable is not a
  // reason to skip: Start says what is wrong with it.
  static std::string SkipReason(const LsfClusterOptions& options);

  // An existing cluster: checks its lsf.conf and commands and takes its
  // environment. volclava: starts the cluster and waits (up to
  // start_timeout) until `bhosts -w` shows the host ok and `bqueues -w`
  // answers. Returns "" on success, else what went wrong (with the
  // script's stderr). Blocks; starting volclava may edit /etc/hosts (see
  // tools/volclava.sh).
  std::string Start();

  // Stops a cluster Start started (the daemons and its leftover jobs) and
  // removes its state dir unless kept; leaves an existing cluster alone.
  // Idempotent; safe when Start failed.
  void Stop();

  bool running() const { return running_; }
  // Whether Stop leaves a state dir made by Start in place (for its logs).
  void set_keep_state_dir(bool keep) { options_.keep_state_dir = keep; }

  // The variables a client of the cluster needs: LSF_ENVDIR, LSF_BINDIR,
  // PATH (the commands' directory first), LSB_NTRIES=1 (without it batch
  // commands retry forever while mbatchd is down), and LSF_SERVERDIR when
  // known.
  const std::map<std::string, std::string>& Env() const { return env_; }
  // A complete child environment: Env() plus HOME, USER, LOGNAME, LANG=C
  // for `user` (empty: the options' user). For execve or a CommandSpec.
  std::vector<std::string> EnvStrings(const std::string& user = "") const;
  // The directory of the cluster's commands (bsub, bjobs, bkill, bqueues, ...).
  std::string BinDir() const;
  // A started cluster's state dir (its log/ holds the daemons' logs); ""
  // for an existing cluster.
  std::string StateDir() const { return state_dir_; }
  // Where the cluster came from, for log lines: "volclava (STATE)" or
  // "LSF_ENVDIR=...".
  std::string Description() const;
  // The host name the cluster knows this machine by.
  std::string HostName() const;
  // Seconds the start took (0 for an existing cluster).
  double start_seconds() const { return start_seconds_; }

  // Runs an LSF command of the cluster (a bare name is taken from BinDir())
  // as the options' user with EnvStrings(), in /tmp. See RunCommand.
  CommandResult Run(const std::string& command, const std::vector<std::string>& args,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
  // The same as `user` (who must exist, and the test must be root unless
  // `user` runs it; the result is exit 127 otherwise).
  CommandResult RunAs(const std::string& user, const std::string& command,
                      const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;

 private:
  std::string StartExisting();
  std::string StartVolclava();
  CommandResult Script(const std::vector<std::string>& args, std::chrono::seconds timeout) const;
  void RemoveStaleStateDirs() const;

  LsfClusterOptions options_;
  std::string state_dir_;
  bool started_ = false;
  bool running_ = false;
  std::map<std::string, std::string> env_;
  double start_seconds_ = 0;
};

}  // namespace bplace::realsched
