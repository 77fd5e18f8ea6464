#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace bplace::lsf {

// Who a command runs as, when the runner runs it as another user (the daemon
// runs as root and runs `bsub` as the calling user). The runner takes these
// values as given and looks nothing up: build one with RunAsFor
// (lsf_adapter/lsf_invoker.h), which fills it from the passwd and group
// databases.
struct RunAs {
  // The login name; only used in error messages.
  std::string user;
  // The real, effective and saved user id of the child.
  uid_t uid = 0;
  // The real, effective and saved group id of the child.
  gid_t gid = 0;
  // The complete supplementary group list of the child, as getgrouplist(3)
  // returns it (it includes `gid`). Empty means no supplementary groups.
  std::vector<gid_t> groups;
  // The child's working directory, entered after the ids changed (so a home
  // directory on root-squashed NFS is entered as the user). Empty means "/".
  std::string work_dir;
  // The child's file creation mask (umask(2)), set before exec; unset: the
  // daemon's. bsub hands the submitter's umask to the job.
  std::optional<mode_t> umask;
};

// One command to run: argv[0] is an absolute path or a name resolved by the
// runner against PATH in `env`; no shell is ever involved.
struct CommandSpec {
  std::vector<std::string> argv;
  // The complete environment of the child ("NAME=value"). The runner adds
  // nothing: the caller sets PATH, LSF_ENVDIR and the like.
  std::vector<std::string> env;
  // Fed to the child's stdin, which is then closed; without it stdin is /dev/null.
  std::optional<std::string> stdin_data;
  // Wall-clock limit; on expiry the child's whole process group gets SIGKILL.
  std::chrono::milliseconds timeout{30000};
  // Run the child as this user instead of as ourselves: it drops to the ids
  // and groups given before exec, proves it cannot regain root, and starts
  // in run_as->work_dir. Without it the child has our ids and working
  // directory. Changing to another uid needs CAP_SETUID and CAP_SETGID; a
  // runner without them reports kCommandFailed rather than run the command
  // as itself.
  std::optional<RunAs> run_as;
  // Called once with the child's pid (also its process group id) as soon as
  // it is started, on the runner's spawn thread, before `done`; not called
  // when it could not start. For a caller that must find the child again
  // should it outlive the caller (bplaced records a bsub's pid durably).
  // Must not block or throw.
  std::function<void(pid_t pid)> on_spawned;
};

// What a finished (or killed) command did.
struct CommandResult {
  int exit_code = -1;      // exit status, or -1 when killed by a signal
  int term_signal = 0;     // the signal that ended it, 0 if it exited
  bool timed_out = false;  // killed by us at `timeout`
  std::string out;         // all of stdout
  std::string err;         // all of stderr
  std::chrono::milliseconds elapsed{0};
  // `out` or `err` reached the runner's size limit and was cut there; the
  // rest was read and discarded so the child never blocked on a full pipe.
  bool output_truncated = false;
};

// Runs external commands without blocking the caller. Implementations are
// thread-safe: Run may be called from any thread, concurrently.
class CommandRunner {
 public:
  using Callback = std::function<void(Result<CommandResult>)>;

  virtual ~CommandRunner() = default;

  // Starts `spec` and returns at once. `done` is called exactly once, on an
  // executor thread of the runner, with the result; a command that times out
  // is a CommandResult with timed_out set (not an error). The error side is
  // kCommandFailed when the child could not be started at all (e.g. argv[0]
  // not found, fork failure, or the change to spec.run_as refused), with the
  // failing call and errno text.
  virtual void Run(CommandSpec spec, Callback done) = 0;
};

}  // namespace bplace::lsf
