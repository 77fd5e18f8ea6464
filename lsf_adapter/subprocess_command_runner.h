#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <thread>

#include <boost/asio/any_io_executor.hpp>

#include "lsf_adapter/command_runner.h"

namespace bplace::lsf {

// Tuning of SubprocessCommandRunner. The defaults suit LSF commands.
struct SubprocessRunnerOptions {
  // Per stream: stdout and stderr are each kept up to this many bytes; the
  // rest is read and discarded and CommandResult::output_truncated is set.
  std::size_t output_limit_bytes = std::size_t{64} << 20;
  // How long the pipes may stay open after the child was reaped (a
  // grandchild that inherited them) before the group is killed and the pipes
  // are closed.
  std::chrono::milliseconds pipe_grace{100};
  // Watch for the child's exit with pidfd_open(2) (Linux >= 5.3). When false,
  // or when pidfd_open fails, waitpid(WNOHANG) is polled on a timer instead
  // (1 ms doubling to 100 ms). False is for tests of that fallback.
  bool use_pidfd = true;
};

// Runs commands as child processes, driven by Asio so that no io_context
// thread waits on a child:
// - argv only, never a shell; argv[0] without '/' is looked up in the PATH
//   of spec.env (not ours), and the environment is exactly spec.env;
// - the child leads a new process group; at the timeout the whole group gets
//   SIGKILL, so helpers forked by a hung `bqueues` die too (LSF commands
//   retry forever while mbatchd is down: docs/lsf-formats.md "Rules for
//   every parser", 6);
// - stdout and stderr are separate pipes drained concurrently; stdin is
//   /dev/null, or one end of an AF_UNIX stream socketpair when
//   spec.stdin_data is set. Writing to a socket uses MSG_NOSIGNAL, so a child
//   that exits without reading its stdin gives us EPIPE, never SIGPIPE: the
//   runner needs no process-wide SIGPIPE setting. Children see their stdin as
//   a socket, not a pipe; LSF commands only read() it;
// - the child only gets fds 0-2 (all our fds are O_CLOEXEC, and the rest are
//   closed in the child), an empty signal mask and default dispositions;
// - every child is reaped (pidfd, else polling waitpid), whatever happens;
// - with spec.run_as the child is forked (posix_spawn cannot change ids) and,
//   before exec, sets its supplementary groups, then real/effective/saved
//   gid, then real/effective/saved uid (raw syscalls: only the child's own
//   credentials change), checks that setuid(0) now fails, and enters
//   run_as->work_dir. If the process already has exactly those ids and
//   groups the changes are skipped, so running as oneself needs no
//   privilege. Everything else (process group, signals, fds, timeout,
//   reaping) is as without run_as.
//
// The spawn (PATH lookup, then posix_spawn or fork, each waiting for exec)
// runs on one internal thread, not on the caller's: a binary or a work_dir on
// a hung NFS mount blocks that thread, and the affected calls then end at
// their timeout.
//
// Thread-safe: Run and Shutdown may be called from any thread, concurrently.
// Each child's state lives on its own strand of the executor.
class SubprocessCommandRunner final : public CommandRunner {
 public:
  // Callbacks and all I/O of the children run on `executor` (through one
  // strand per child). The executor's io_context must outlive this object.
  // Does not start any thread or process yet; never fails.
  explicit SubprocessCommandRunner(boost::asio::any_io_executor executor,
                                   SubprocessRunnerOptions options = {});

  // Calls Shutdown(), then joins the internal spawn thread, which is idle
  // unless a spawn is in progress (it waits only for exec, normally
  // well under a millisecond; unbounded only if exec hangs on a dead
  // filesystem). Children still running have been sent SIGKILL; their
  // callbacks still run on the executor if it keeps running. If instead the
  // io_context is destroyed with their handlers pending, each child is
  // killed and reaped (a blocking waitpid after SIGKILL) as its state is
  // destroyed: no zombie is left behind either way.
  ~SubprocessCommandRunner() override;

  SubprocessCommandRunner(const SubprocessCommandRunner&) = delete;
  SubprocessCommandRunner& operator=(const SubprocessCommandRunner&) = delete;

  // Starts `spec` and returns at once, without blocking on the child (see
  // CommandRunner::Run). `done` must not be empty; it is called exactly once,
  // on the executor, never inside Run. It gets:
  // - a CommandResult once the child is reaped and both pipes reached EOF
  //   (or were closed `pipe_grace` after the child was reaped);
  //   exit_code/term_signal decode the wait status; elapsed is measured from
  //   the call to Run;
  // - a CommandResult with timed_out set when spec.timeout passed first: the
  //   process group got SIGKILL, the child was reaped, and out/err hold what
  //   was read until then. If the spawn itself had not finished by then, the
  //   callback comes at the timeout (exit_code -1, term_signal 0) and the
  //   child, if it still starts, is killed and reaped in the background;
  // - kCommandFailed when nothing could be run: empty argv, a NUL byte in
  //   argv or env, "NAME: not found in PATH=..." (or no PATH in spec.env),
  //   a failing pipe2/socketpair/posix_spawn (named, with the errno text),
  //   or Run after Shutdown();
  // - with spec.run_as, also kCommandFailed when a step in the child before
  //   exec failed, named by the call and followed by whom it was for:
  //   "setgroups: Operation not permitted (as alice, uid 1001)" (and likewise
  //   setresgid, setresuid), "chdir: No such file or directory (as alice, uid
  //   1001, work_dir /home/alice)", "execve /usr/bin/bsub: Permission denied
  //   (as ...)", or "setuid(0): succeeded after dropping root; refusing to
  //   run (as ...)". A runner without CAP_SETUID/CAP_SETGID asked for
  //   another user gets the setgroups or setresuid error: it never runs the
  //   command as itself instead. PATH lookup is done as us, not as the user.
  // A command that exits by itself and whose pipes close is not killed:
  // anything it left running with other stdout/stderr is left alone.
  void Run(CommandSpec spec, Callback done) override;

  // Sends SIGKILL to the process group of every child not yet finished and
  // makes later Run calls fail with kCommandFailed. Does not block. The
  // killed children still complete normally: their callbacks get a
  // CommandResult with term_signal SIGKILL (timed_out stays false). Calls
  // queued but not yet spawned are not started and fail with kCommandFailed.
  // Idempotent.
  void Shutdown();

 private:
  class Child;
  struct Shared;

  boost::asio::any_io_executor executor_;
  SubprocessRunnerOptions options_;
  std::shared_ptr<Shared> shared_;
  std::thread spawner_;  // started by the first Run; guarded by shared_->mu
};

}  // namespace bplace::lsf
