#include "lsf_adapter/fork_exec_as.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <string>
#include <vector>

#include "common/sys_error.h"
#include "common/unique_fd.h"

namespace bplace::lsf {
namespace {

// The 32-bit-id credential syscalls. On x86_64 and arm64 the plain ones take
// 32-bit ids; on i386 and arm they take 16-bit ids and the *32 ones are right.
#ifdef SYS_setresuid32
constexpr long kSysSetgroups = SYS_setgroups32;
constexpr long kSysSetresgid = SYS_setresgid32;
constexpr long kSysSetresuid = SYS_setresuid32;
constexpr long kSysSetuid = SYS_setuid32;
#else
constexpr long kSysSetgroups = SYS_setgroups;
constexpr long kSysSetresgid = SYS_setresgid;
constexpr long kSysSetresuid = SYS_setresuid;
constexpr long kSysSetuid = SYS_setuid;
#endif

// What the forked child reports over its status pipe when a step before exec
// fails: which step and its errno. Nothing arrives when exec succeeded (the
// pipe is O_CLOEXEC, so exec closes it).
enum class ChildStage : int {
  kSigaction,
  kSigprocmask,
  kSetpgid,
  kDup2,
  kCloseRange,
  kSetgroups,
  kSetresgid,
  kSetresuid,
  kRegainedRoot,  // setuid(0) succeeded after the drop: errno is 0
  kChdir,
  kExecve,
};

struct ChildReport {
  ChildStage stage;
  int error;
};

const char* StageName(ChildStage stage) {
  switch (stage) {
    case ChildStage::kSigaction:
      return "sigaction";
    case ChildStage::kSigprocmask:
      return "sigprocmask";
    case ChildStage::kSetpgid:
      return "setpgid";
    case ChildStage::kDup2:
      return "dup2";
    case ChildStage::kCloseRange:
      return "close_range";
    case ChildStage::kSetgroups:
      return "setgroups";
    case ChildStage::kSetresgid:
      return "setresgid";
    case ChildStage::kSetresuid:
      return "setresuid";
    case ChildStage::kRegainedRoot:
      return "setuid(0)";
    case ChildStage::kChdir:
      return "chdir";
    case ChildStage::kExecve:
      return "execve";
  }
  return "child";
}

// Everything the forked child needs, built by the parent: after fork() in a
// multithreaded process the child may only make async-signal-safe calls (no
// malloc: another thread may have held the allocator's lock at the fork).
struct ForkPlan {
  const char* path;
  char* const* argv;
  char* const* envp;
  ChildStdio stdio;
  int status_fd;  // write end of the status pipe
  bool change_ids;
  uid_t uid;
  gid_t gid;
  const gid_t* groups;
  std::size_t group_count;
  const char* work_dir;
  bool set_umask;
  mode_t umask;
  const sigset_t* empty_mask;
  int max_fd;  // highest descriptor to close when close_range(2) is missing
};

[[noreturn]] void ChildFail(const ForkPlan& plan, ChildStage stage, int error) {
  const ChildReport report{stage, error};
  // A report of this size is written whole (below PIPE_BUF). If the parent
  // were gone there would be nobody to tell, so the result is ignored.
  [[maybe_unused]] const ssize_t n = ::write(plan.status_fd, &report, sizeof report);
  ::_exit(127);
}

// Makes `from` the child's descriptor `to`, without O_CLOEXEC.
bool MoveFd(int from, int to) {
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) == to;
}

// Closes every descriptor from `first` to `last` (inclusive).
bool CloseRange(const ForkPlan& plan, unsigned first, unsigned last) {
  if (first > last) return true;
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, last, 0) == 0) return true;
  // ENOSYS before Linux 5.9; EPERM from a seccomp filter (systemd's
  // SystemCallFilter with SystemCallErrorNumber=EPERM) that predates it.
  if (errno != ENOSYS && errno != EPERM) return false;
#endif
  // One close per possible descriptor.
  const unsigned end = std::min(last, static_cast<unsigned>(plan.max_fd));
  for (unsigned fd = first; fd <= end; ++fd) ::close(static_cast<int>(fd));
  return true;
}

// In the child: default dispositions, then an empty mask. The parent blocked
// every signal around fork, so none of its handlers can run here before the
// reset. EINVAL (SIGKILL, SIGSTOP and the signals glibc reserves) is expected.
void ResetSignals(const ForkPlan& plan) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (::sigaction(sig, &default_action, nullptr) != 0 && errno != EINVAL) {
      ChildFail(plan, ChildStage::kSigaction, errno);
    }
  }
  if (::sigprocmask(SIG_SETMASK, plan.empty_mask, nullptr) != 0) {
    ChildFail(plan, ChildStage::kSigprocmask, errno);
  }
}

// In the child: stdio on 0-2, the status pipe kept (exec closes it, being
// O_CLOEXEC), every other descriptor closed.
void SetUpDescriptors(const ForkPlan& plan) {
  if (!MoveFd(plan.stdio.in, STDIN_FILENO) || !MoveFd(plan.stdio.out, STDOUT_FILENO) ||
      !MoveFd(plan.stdio.err, STDERR_FILENO)) {
    ChildFail(plan, ChildStage::kDup2, errno);
  }
  const auto status_fd = static_cast<unsigned>(plan.status_fd);
  if (!CloseRange(plan, 3, status_fd - 1) || !CloseRange(plan, status_fd + 1, UINT_MAX)) {
    ChildFail(plan, ChildStage::kCloseRange, errno);
  }
}

// In the child: becomes the user. Raw syscalls: glibc's wrappers make every
// thread of the process change ids (a signal to each one), machinery that has
// no business in a forked child. Groups first and uid last: once the uid is
// gone so is the right to change the others.
void ChangeIds(const ForkPlan& plan) {
  if (::syscall(kSysSetgroups, plan.group_count, plan.groups) != 0) {
    ChildFail(plan, ChildStage::kSetgroups, errno);
  }
  if (::syscall(kSysSetresgid, plan.gid, plan.gid, plan.gid) != 0) {
    ChildFail(plan, ChildStage::kSetresgid, errno);
  }
  if (::syscall(kSysSetresuid, plan.uid, plan.uid, plan.uid) != 0) {
    ChildFail(plan, ChildStage::kSetresuid, errno);
  }
}

// The child between fork and exec. Only async-signal-safe calls: raw
// syscalls, no allocation, no locks. Never returns.
[[noreturn]] void RunForkedChild(const ForkPlan& plan) {
  ResetSignals(plan);
  if (::setpgid(0, 0) != 0) ChildFail(plan, ChildStage::kSetpgid, errno);
  SetUpDescriptors(plan);
  if (plan.change_ids) ChangeIds(plan);
  // With real, effective and saved uid all non-zero the kernel drops every
  // capability, so the way back to root is closed. Check it rather than
  // trust it: with SECBIT_NO_SETUID_FIXUP (or KEEP_CAPS plus a later
  // capset) inherited from whoever started the daemon, the capabilities
  // would survive and the user's command could become root again.
  if (plan.uid != 0 && ::syscall(kSysSetuid, 0) == 0) {
    ChildFail(plan, ChildStage::kRegainedRoot, 0);
  }
  if (::chdir(plan.work_dir) != 0) ChildFail(plan, ChildStage::kChdir, errno);
  if (plan.set_umask) ::umask(plan.umask);
  ::execve(plan.path, plan.argv, plan.envp);
  ChildFail(plan, ChildStage::kExecve, errno);
}

// True when this process already has exactly `run_as`'s ids and groups, so
// the child need not (and, without CAP_SETGID, could not) change them.
bool AlreadyRunsAs(const RunAs& run_as) {
  uid_t ruid = 0, euid = 0, suid = 0;
  gid_t rgid = 0, egid = 0, sgid = 0;
  if (::getresuid(&ruid, &euid, &suid) != 0 || ::getresgid(&rgid, &egid, &sgid) != 0) {
    return false;
  }
  if (ruid != run_as.uid || euid != run_as.uid || suid != run_as.uid || rgid != run_as.gid ||
      egid != run_as.gid || sgid != run_as.gid) {
    return false;
  }
  const int count = ::getgroups(0, nullptr);
  if (count < 0) return false;
  std::vector<gid_t> current(static_cast<std::size_t>(count));
  if (::getgroups(count, current.data()) != count) return false;
  std::vector<gid_t> wanted = run_as.groups;
  std::sort(current.begin(), current.end());
  std::sort(wanted.begin(), wanted.end());
  return current == wanted;
}

// The highest descriptor the child may hold, for closing them one by one
// where close_range(2) is missing.
int HighestPossibleFd() {
  struct rlimit files {};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY) {
    return static_cast<int>(std::min<rlim_t>(files.rlim_cur, INT_MAX)) - 1;
  }
  return 65535;
}

// Forks a child that runs `plan`. Every signal is blocked around fork so that
// no handler of ours runs in the child before it resets the dispositions
// (glibc's posix_spawn does the same).
Result<pid_t> Fork(const ForkPlan& plan) {
  sigset_t all_signals;
  sigset_t old_mask;
  sigfillset(&all_signals);
  ::pthread_sigmask(SIG_SETMASK, &all_signals, &old_mask);
  const pid_t pid = ::fork();
  if (pid == 0) RunForkedChild(plan);
  const int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid < 0) return SysError("fork", fork_errno, ErrorCode::kCommandFailed);
  return pid;
}

// "setresuid: Operation not permitted (as alice, uid 1001)": the call first,
// as SysError names calls, then whom it was for.
Error DescribeFailure(const ChildReport& report, const RunAs& run_as, const std::string& path,
                      const std::string& work_dir) {
  std::string context = " (as " + (run_as.user.empty() ? std::string("?") : run_as.user) +
                        ", uid " + std::to_string(run_as.uid);
  if (report.stage == ChildStage::kChdir) context += ", work_dir " + work_dir;
  context += ")";
  if (report.stage == ChildStage::kRegainedRoot) {
    return Error{ErrorCode::kCommandFailed,
                 "setuid(0): succeeded after dropping root; refusing to run" + context};
  }
  // execve is named with the path, like posix_spawn's failure on the other path.
  const std::string call =
      report.stage == ChildStage::kExecve ? "execve " + path : StageName(report.stage);
  Error error = SysError(call, report.error, ErrorCode::kCommandFailed).value();
  error.message += context;
  return error;
}

}  // namespace

Result<pid_t> ForkExecAs(const RunAs& run_as, const std::string& path, char* const* argv,
                         char* const* envp, ChildStdio stdio) {
  int status_fds[2];
  if (::pipe2(status_fds, O_CLOEXEC) != 0) {
    return SysError("pipe2", errno, ErrorCode::kCommandFailed);
  }
  UniqueFd status_read(status_fds[0]);
  UniqueFd status_write(status_fds[1]);
  const std::string work_dir = run_as.work_dir.empty() ? "/" : run_as.work_dir;
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  const ForkPlan plan{
      .path = path.c_str(),
      .argv = argv,
      .envp = envp,
      .stdio = stdio,
      .status_fd = status_write.Get(),
      .change_ids = !AlreadyRunsAs(run_as),
      .uid = run_as.uid,
      .gid = run_as.gid,
      .groups = run_as.groups.data(),
      .group_count = run_as.groups.size(),
      .work_dir = work_dir.c_str(),
      .set_umask = run_as.umask.has_value(),
      .umask = run_as.umask.value_or(0),
      .empty_mask = &empty_mask,
      .max_fd = HighestPossibleFd(),
  };
  Result<pid_t> pid = Fork(plan);
  if (!pid) return pid;

  // EOF without a report means exec succeeded. Our write end must be closed
  // first, or the read would never see EOF.
  status_write.Reset(-1);
  ChildReport report{};
  ssize_t n;
  do {
    n = ::read(status_read.Get(), &report, sizeof report);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return pid;

  // The child failed before exec and has exited (or is about to): reap it.
  while (::waitpid(*pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof report)) {
    return Fail(ErrorCode::kCommandFailed, "reading the child's status pipe: short read");
  }
  return tl::unexpected(DescribeFailure(report, run_as, path, work_dir));
}

}  // namespace bplace::lsf
