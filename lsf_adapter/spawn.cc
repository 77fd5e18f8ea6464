#include "lsf_adapter/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "common/sys_error.h"
#include "lsf_adapter/fork_exec_as.h"
#include "lsf_adapter/resolve_executable.h"

namespace bplace::lsf {
namespace {

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Result<Pipe> MakePipe() {
  int fds[2];
  // O_CLOEXEC from the start: a child spawned concurrently by another thread
  // must not inherit this pipe, or our EOF would wait for that child too.
  if (::pipe2(fds, O_CLOEXEC) != 0) return SysError("pipe2", errno, ErrorCode::kCommandFailed);
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// The child's stdin, and in `ours` the end we write spec.stdin_data to.
Result<UniqueFd> MakeStdin(const CommandSpec& spec, UniqueFd& ours) {
  if (!spec.stdin_data) {
    // Opened here, as the daemon: the forked child of run_as may not
    // allocate, and /dev/null is the same for every user.
    UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!dev_null.Valid()) return SysError("open /dev/null", errno, ErrorCode::kCommandFailed);
    return dev_null;
  }
  // A socket rather than a pipe: Asio writes to sockets with MSG_NOSIGNAL,
  // so a child that exits without reading costs us EPIPE, not SIGPIPE,
  // without touching the process-wide SIGPIPE disposition.
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return SysError("socketpair", errno, ErrorCode::kCommandFailed);
  }
  ours = UniqueFd(fds[0]);
  return UniqueFd(fds[1]);
}

bool HasNul(const std::vector<std::string>& strings) {
  return std::any_of(strings.begin(), strings.end(),
                     [](const std::string& s) { return s.find('\0') != std::string::npos; });
}

Result<void> CheckStrings(const CommandSpec& spec) {
  if (spec.argv.empty()) return Fail(ErrorCode::kCommandFailed, "empty argv");
  if (HasNul(spec.argv) || HasNul(spec.env)) {
    return Fail(ErrorCode::kCommandFailed, spec.argv[0] + ": argv or env contains a NUL byte");
  }
  if (spec.run_as && (spec.run_as->work_dir.find('\0') != std::string::npos)) {
    return Fail(ErrorCode::kCommandFailed, spec.argv[0] + ": run_as.work_dir contains a NUL byte");
  }
  return {};
}

std::vector<char*> CStringArray(const std::vector<std::string>& strings) {
  std::vector<char*> array;
  array.reserve(strings.size() + 1);
  for (const std::string& s : strings) array.push_back(const_cast<char*>(s.c_str()));
  array.push_back(nullptr);
  return array;
}

struct FileActions {
  FileActions() { ::posix_spawn_file_actions_init(&value); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&value); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t value;
};

struct SpawnAttributes {
  SpawnAttributes() { ::posix_spawnattr_init(&value); }
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&value); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  posix_spawnattr_t value;
};

// The run_as-less path: posix_spawn, which glibc implements with
// clone(CLONE_VM | CLONE_VFORK), cheap whatever the daemon's size. It
// reports exec's errno and reaps a child that failed to exec.
Result<pid_t> PosixSpawn(const std::string& path, char* const* argv, char* const* envp,
                         ChildStdio stdio) {
  FileActions actions;
  int rc = ::posix_spawn_file_actions_adddup2(&actions.value, stdio.in, STDIN_FILENO);
  if (rc == 0) rc = ::posix_spawn_file_actions_adddup2(&actions.value, stdio.out, STDOUT_FILENO);
  if (rc == 0) rc = ::posix_spawn_file_actions_adddup2(&actions.value, stdio.err, STDERR_FILENO);
  // Other parts of the daemon may open descriptors without O_CLOEXEC; the
  // child gets 0-2 only.
  if (rc == 0) rc = ::posix_spawn_file_actions_addclosefrom_np(&actions.value, 3);
  if (rc != 0) return SysError("posix_spawn_file_actions", rc, ErrorCode::kCommandFailed);

  SpawnAttributes attributes;
  sigset_t no_signals;
  sigset_t all_signals;
  sigemptyset(&no_signals);
  sigfillset(&all_signals);
  // SETPGROUP with 0: the child leads a group of its own, which the timeout
  // kills as a whole. SETSIGDEF: ignored signals survive exec, and a child
  // with SIGPIPE or SIGHUP ignored behaves differently.
  rc = ::posix_spawnattr_setflags(
      &attributes.value, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  if (rc == 0) rc = ::posix_spawnattr_setpgroup(&attributes.value, 0);
  if (rc == 0) rc = ::posix_spawnattr_setsigmask(&attributes.value, &no_signals);
  if (rc == 0) rc = ::posix_spawnattr_setsigdefault(&attributes.value, &all_signals);
  if (rc != 0) return SysError("posix_spawnattr", rc, ErrorCode::kCommandFailed);

  pid_t pid = 0;
  rc = ::posix_spawn(&pid, path.c_str(), &actions.value, &attributes.value, argv, envp);
  if (rc != 0) return SysError("posix_spawn " + path, rc, ErrorCode::kCommandFailed);
  return pid;
}

// pidfd_open sets O_CLOEXEC itself. Failure (ENOSYS before Linux 5.3,
// EMFILE) only means that the caller polls instead.
UniqueFd OpenPidfd([[maybe_unused]] pid_t pid) {
#ifdef SYS_pidfd_open
  const long pidfd = ::syscall(SYS_pidfd_open, pid, 0);
  if (pidfd >= 0) return UniqueFd(static_cast<int>(pidfd));
#endif
  return UniqueFd();
}

}  // namespace

Result<SpawnedChild> SpawnChild(const CommandSpec& spec, bool use_pidfd) {
  if (Result<void> checked = CheckStrings(spec); !checked) {
    return tl::unexpected(checked.error());
  }
  Result<std::string> path = ResolveExecutable(spec.argv[0], spec.env);
  if (!path) return tl::unexpected(path.error());

  Result<Pipe> out = MakePipe();
  if (!out) return tl::unexpected(out.error());
  Result<Pipe> err = MakePipe();
  if (!err) return tl::unexpected(err.error());
  SpawnedChild spawned;
  Result<UniqueFd> child_stdin = MakeStdin(spec, spawned.in);
  if (!child_stdin) return tl::unexpected(child_stdin.error());

  const ChildStdio stdio{child_stdin->Get(), out->write_end.Get(), err->write_end.Get()};
  std::vector<char*> argv = CStringArray(spec.argv);
  std::vector<char*> envp = CStringArray(spec.env);
  Result<pid_t> pid = spec.run_as ? ForkExecAs(*spec.run_as, *path, argv.data(), envp.data(), stdio)
                                  : PosixSpawn(*path, argv.data(), envp.data(), stdio);
  if (!pid) return tl::unexpected(pid.error());
  spawned.pid = *pid;

  // The child's ends (the write ends, its stdin) close when this returns, so
  // EOF on our ends means every process holding them has gone.
  spawned.out = std::move(out->read_end);
  spawned.err = std::move(err->read_end);
  if (use_pidfd) spawned.pidfd = OpenPidfd(spawned.pid);
  return spawned;
}

}  // namespace bplace::lsf
