#pragma once

#include <sys/types.h>

#include "common/result.h"
#include "common/unique_fd.h"
#include "lsf_adapter/command_runner.h"

namespace bplace::lsf {

// A started child as its parent holds it: the pid and our ends of its stdio.
// Reaping `pid` is the holder's job. Every descriptor is O_CLOEXEC and in
// blocking mode. Movable, not copyable; not thread-safe (one owner).
struct SpawnedChild {
  pid_t pid = 0;
  UniqueFd out;    // read end of the child's stdout pipe
  UniqueFd err;    // read end of the child's stderr pipe
  UniqueFd in;     // our end of the child's stdin socket; invalid without spec.stdin_data
  UniqueFd pidfd;  // pidfd_open(2) of `pid`; invalid when not asked for or unavailable
};

// The blocking half of SubprocessCommandRunner: starts one child and hands
// back plain descriptors, with no event loop involved. The child:
// - runs spec.argv, argv[0] found by ResolveExecutable in the PATH of
//   spec.env, with exactly spec.env as its environment (no shell);
// - leads a new process group (its pgid is its pid), so that killing -pid
//   reaches whatever it forks;
// - has stdout and stderr on two separate pipes, and as stdin /dev/null or,
//   when spec.stdin_data is set, one end of an AF_UNIX stream socketpair
//   whose other end is `in` (nothing is written to it here);
// - holds only descriptors 0-2, an empty signal mask and default signal
//   dispositions;
// - without spec.run_as is started with posix_spawn(3); with it, by
//   ForkExecAs (lsf_adapter/fork_exec_as.h), which changes ids first.
// With `use_pidfd`, also opens a pidfd for it (Linux >= 5.3); its failure
// only leaves `pidfd` invalid.
// Blocks until exec succeeded or failed (a child that failed is reaped
// here), and on the PATH lookup: a binary on a hung NFS mount blocks it.
// Returns kCommandFailed: "empty argv"; "NAME: argv or env contains a NUL
// byte"; "NAME: run_as.work_dir contains a NUL byte"; ResolveExecutable's
// "not found" errors; "pipe2: ...", "socketpair: ...", "open /dev/null: ...",
// "posix_spawn_file_actions: ...", "posix_spawnattr: ..." or "posix_spawn
// /usr/bin/bqueues: No such file or directory" with the errno text; or
// ForkExecAs's errors.
// Thread-safe: every descriptor is O_CLOEXEC from its creation, so children
// spawned at the same time by other threads inherit none of them.
Result<SpawnedChild> SpawnChild(const CommandSpec& spec, bool use_pidfd);

}  // namespace bplace::lsf
