#pragma once

// A real LSF-compatible scheduler for tests: a one-host volclava 2.2 cluster
// (OpenLava's descendant), built from shared/volclava and run by
// tools/volclava.sh. See tests/realsched/README.md for what it runs, how long
// it takes and what its commands print.
//
// Depends on nothing of bplace's own code (only the C++ standard library and
// POSIX), so a test of the real daemon can use it as well as a test of the
// scheduler itself:
//
//   VolclavaCluster cluster(VolclavaOptions::ForBuildTree(kScript, kCacheDir));
//   if (std::string why = VolclavaCluster::SkipReason(kScript); !why.empty()) GTEST_SKIP() << why;
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

struct VolclavaOptions {
  // tools/volclava.sh of the checkout.
  std::string script;
  // Where volclava is installed; built there on the first Start (about a
  // minute or two), reused while its stamp matches the tarball.
  std::string prefix;
  // The cluster's directory (config, logs, lsb.events). Empty: a fresh one
  // named state.XXXXXX beside `prefix`, removed by Stop unless
  // keep_state_dir. Start first stops and removes such siblings left by a
  // test process that died without stopping its cluster.
  std::string state_dir;
  bool keep_state_dir = false;
  // Extra environment for tools/volclava.sh (VOLCLAVA_CLEAN_PERIOD,
  // VOLCLAVA_QUEUE_USER, VOLCLAVA_PORT_BASE, BPLACE_VOLCLAVA_TARBALL...).
  std::map<std::string, std::string> script_env;
  std::chrono::seconds build_timeout{1800};
  std::chrono::seconds start_timeout{120};

  // The usual layout: the install in CACHE_DIR/prefix, state dirs beside it.
  static VolclavaOptions ForBuildTree(const std::string& script, const std::string& cache_dir);
};

// One running one-host cluster: lim, res, sbatchd and mbatchd as root, with
// the queues of tests/realsched/README.md (normal default, short, tiny with
// MAX 1 and JL/U 1, userq for one user, closedq closed, inactq inactive).
// Not thread-safe to Start/Stop; the const members (Env, Run, ...) may be
// called from several threads once Start returned.
class VolclavaCluster {
 public:
  explicit VolclavaCluster(VolclavaOptions options);
  ~VolclavaCluster();  // Stop()
  VolclavaCluster(const VolclavaCluster&) = delete;
  VolclavaCluster& operator=(const VolclavaCluster&) = delete;

  // Why the tier cannot run on this machine, or "" when it can: not root
  // (the daemons must run as root), or no volclava source (the message says
  // where to put it). Runs `script source`; does not build.
  static std::string SkipReason(const std::string& script);

  // Builds volclava when needed, then starts the cluster and waits (up to
  // start_timeout) until `bhosts -w` shows the host ok and `bqueues -w`
  // answers. Returns "" on success, else what went wrong (with the
  // script's stderr). Blocks; may edit /etc/hosts (see tools/volclava.sh).
  std::string Start();

  // Stops the daemons and the cluster's leftover jobs; removes the state dir
  // unless kept. Idempotent; safe when Start failed.
  void Stop();

  bool running() const { return running_; }
  // Whether Stop leaves a state dir made by Start in place (for its logs).
  void set_keep_state_dir(bool keep) { options_.keep_state_dir = keep; }

  // The variables a client of the cluster needs, as tools/volclava.sh
  // printed them: LSF_ENVDIR, LSF_BINDIR, LSF_SERVERDIR, PATH (the install's
  // bin first), LSB_NTRIES=1 (without it batch commands retry forever while
  // mbatchd is down).
  const std::map<std::string, std::string>& Env() const { return env_; }
  // A complete child environment: Env() plus HOME, USER, LOGNAME, LANG=C
  // for `user` (root when empty). For execve or a CommandSpec.
  std::vector<std::string> EnvStrings(const std::string& user = "") const;
  // The install's bin directory (bsub, bjobs, bkill, bqueues, ...).
  std::string BinDir() const;
  std::string StateDir() const { return state_dir_; }
  // The host name the cluster knows its only host by.
  std::string HostName() const;
  // Seconds the build (0 when reused) and the start took.
  double build_seconds() const { return build_seconds_; }
  double start_seconds() const { return start_seconds_; }

  // Runs an LSF command of the cluster (a bare name is taken from BinDir())
  // as root with EnvStrings(), in /tmp. See RunCommand.
  CommandResult Run(const std::string& command, const std::vector<std::string>& args,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
  // The same as `user` (who must exist; the result is exit 127 otherwise).
  CommandResult RunAs(const std::string& user, const std::string& command,
                      const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;

 private:
  CommandResult Script(const std::vector<std::string>& args, std::chrono::seconds timeout) const;
  void RemoveStaleStateDirs() const;

  VolclavaOptions options_;
  std::string state_dir_;
  bool made_state_dir_ = false;
  bool running_ = false;
  std::map<std::string, std::string> env_;
  double build_seconds_ = 0;
  double start_seconds_ = 0;
};

}  // namespace bplace::realsched
