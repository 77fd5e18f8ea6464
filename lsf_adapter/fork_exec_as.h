#pragma once

#include <sys/types.h>

#include <string>

#include "common/result.h"
#include "lsf_adapter/command_runner.h"

namespace bplace::lsf {

// The descriptors a new child gets as its stdin, stdout and stderr. The
// caller keeps owning them; they may be O_CLOEXEC (the child's copies on 0-2
// are not).
struct ChildStdio {
  int in = -1;
  int out = -1;
  int err = -1;
};

// Starts `path` (used as given, not looked up) with `argv` and exactly `envp`
// (NULL-terminated arrays, as execve(2) takes them) as the user `run_as`.
// posix_spawn cannot change ids, so this forks; the child, before exec:
// - resets every signal disposition to the default and unblocks all signals;
// - leads a new process group (its pgid is its pid);
// - makes `stdio` its descriptors 0-2 and closes every other one;
// - sets its supplementary groups, then real/effective/saved gid, then
//   real/effective/saved uid, with raw syscalls so that only its own
//   credentials change (skipped when this process already has exactly those
//   ids and groups, so running as oneself needs no privilege);
// - checks that setuid(0) now fails, and enters run_as.work_dir ("/" when
//   empty).
// Blocks until exec succeeded or a step before it failed (a failed child is
// reaped here). Returns the pid, which the caller must reap.
// Returns kCommandFailed "pipe2: ..." or "fork: ..." with the errno text, or
// the failed step named by its call and followed by whom it was for:
// "setgroups: Operation not permitted (as alice, uid 1001)" (and likewise
// sigaction, sigprocmask, setpgid, dup2, close_range, setresgid, setresuid),
// "chdir: No such file or directory (as alice, uid 1001, work_dir /x)",
// "execve /usr/bin/bsub: Permission denied (as ...)", or "setuid(0):
// succeeded after dropping root; refusing to run (as ...)".
// No string may contain a NUL byte (the caller checks). Thread-safe: the
// parent's own ids, signal mask and descriptors are left as they were.
Result<pid_t> ForkExecAs(const RunAs& run_as, const std::string& path, char* const* argv,
                         char* const* envp, ChildStdio stdio);

}  // namespace bplace::lsf
