#include "lsf_adapter/subprocess_command_runner.h"

#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>

#include "common/unique_fd.h"

namespace bplace::lsf {
namespace {

using Clock = std::chrono::steady_clock;
using Strand = boost::asio::strand<boost::asio::any_io_executor>;

constexpr std::size_t kReadChunkBytes = 64 * 1024;
constexpr std::chrono::milliseconds kFirstPollInterval{1};
constexpr std::chrono::milliseconds kMaxPollInterval{100};

tl::unexpected<Error> FailedCall(std::string_view call, int error) {
  return Fail(ErrorCode::kCommandFailed,
              std::string(call) + ": " + std::system_category().message(error));
}

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Result<Pipe> MakePipe() {
  int fds[2];
  // O_CLOEXEC from the start: a child spawned concurrently by another thread
  // must not inherit this pipe, or our EOF would wait for that child too.
  if (::pipe2(fds, O_CLOEXEC) != 0) return FailedCall("pipe2", errno);
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

bool HasNul(const std::vector<std::string>& strings) {
  return std::any_of(strings.begin(), strings.end(),
                     [](const std::string& s) { return s.find('\0') != std::string::npos; });
}

std::vector<char*> CStringArray(const std::vector<std::string>& strings) {
  std::vector<char*> array;
  array.reserve(strings.size() + 1);
  for (const std::string& s : strings) array.push_back(const_cast<char*>(s.c_str()));
  array.push_back(nullptr);
  return array;
}

// Finds `name` the way execvp would, but in the PATH of the child's
// environment (the daemon's own PATH may lack LSF_BINDIR; see lsf/FORMATS.md
// rule 7). Doing it here rather than with posix_spawnp turns "not found" into
// a message naming the PATH searched. Empty PATH entries (the current
// directory for execvp) are skipped: a daemon's working directory is no
// place to find LSF commands.
Result<std::string> ResolveExecutable(const std::string& name,
                                      const std::vector<std::string>& env) {
  if (name.find('/') != std::string::npos) return name;
  auto path_entry = std::find_if(env.begin(), env.end(),
                                 [](const std::string& e) { return e.rfind("PATH=", 0) == 0; });
  if (path_entry == env.end()) {
    return Fail(ErrorCode::kCommandFailed,
                name + ": not found: the command's environment has no PATH");
  }
  std::string_view dirs = std::string_view(*path_entry).substr(5);
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty() && !name.empty()) {
      std::string candidate = std::string(dir) + "/" + name;
      struct stat st {};
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
          ::access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return Fail(ErrorCode::kCommandFailed, name + ": not found in " + *path_entry);
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

// The parent's ends of a started child.
struct ChildFds {
  UniqueFd out;    // read end of the child's stdout
  UniqueFd err;    // read end of the child's stderr
  UniqueFd in;     // our end of the child's stdin socket, if stdin_data is set
  UniqueFd pidfd;  // invalid when pidfd_open is unavailable or not wanted
};

struct SpawnedChild {
  pid_t pid = 0;
  ChildFds fds;
};

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
  int stdin_fd;
  int stdout_fd;
  int stderr_fd;
  int status_fd;  // write end of the status pipe
  bool change_ids;
  uid_t uid;
  gid_t gid;
  const gid_t* groups;
  std::size_t group_count;
  const char* work_dir;
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

// The child between fork and exec. Only async-signal-safe calls: raw
// syscalls, no allocation, no locks. Never returns.
[[noreturn]] void RunForkedChild(const ForkPlan& plan) {
  // The parent blocked every signal around fork, so none of its handlers can
  // run here; reset them all before unblocking. EINVAL (SIGKILL, SIGSTOP and
  // the signals glibc reserves) is expected.
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
  if (::setpgid(0, 0) != 0) ChildFail(plan, ChildStage::kSetpgid, errno);
  if (!MoveFd(plan.stdin_fd, STDIN_FILENO) || !MoveFd(plan.stdout_fd, STDOUT_FILENO) ||
      !MoveFd(plan.stderr_fd, STDERR_FILENO)) {
    ChildFail(plan, ChildStage::kDup2, errno);
  }
  // Keep 0-2 and the status pipe (which exec closes, being O_CLOEXEC).
  const auto status_fd = static_cast<unsigned>(plan.status_fd);
  if (!CloseRange(plan, 3, status_fd - 1) || !CloseRange(plan, status_fd + 1, UINT_MAX)) {
    ChildFail(plan, ChildStage::kCloseRange, errno);
  }
  if (plan.change_ids) {
    // Raw syscalls: glibc's wrappers make every thread of the process change
    // ids (a signal to each one), machinery that has no business in a forked
    // child. Groups first and uid last: once the uid is gone so is the right
    // to change the others.
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
  // With real, effective and saved uid all non-zero the kernel drops every
  // capability, so the way back to root is closed. Check it rather than
  // trust it: with SECBIT_NO_SETUID_FIXUP (or KEEP_CAPS plus a later
  // capset) inherited from whoever started the daemon, the capabilities
  // would survive and the user's command could become root again.
  if (plan.uid != 0 && ::syscall(kSysSetuid, 0) == 0) {
    ChildFail(plan, ChildStage::kRegainedRoot, 0);
  }
  if (::chdir(plan.work_dir) != 0) ChildFail(plan, ChildStage::kChdir, errno);
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

// Forks a child that drops to spec.run_as and execs `path`. posix_spawn
// cannot change ids, hence fork. Blocks until exec succeeded or a step
// before it failed (reported over the status pipe; the failed child is then
// reaped here). `stdin_fd`, `stdout_fd` and `stderr_fd` become the child's
// 0-2. Returns the pid.
Result<pid_t> ForkAsUser(const CommandSpec& spec, const std::string& path, int stdin_fd,
                         int stdout_fd, int stderr_fd) {
  const RunAs& run_as = *spec.run_as;
  Result<Pipe> status = MakePipe();
  if (!status) return tl::unexpected(status.error());

  std::vector<char*> argv = CStringArray(spec.argv);
  std::vector<char*> envp = CStringArray(spec.env);
  const std::string work_dir = run_as.work_dir.empty() ? "/" : run_as.work_dir;
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  struct rlimit files {};
  int max_fd = 65535;
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY) {
    max_fd = static_cast<int>(std::min<rlim_t>(files.rlim_cur, INT_MAX)) - 1;
  }
  const ForkPlan plan{
      .path = path.c_str(),
      .argv = argv.data(),
      .envp = envp.data(),
      .stdin_fd = stdin_fd,
      .stdout_fd = stdout_fd,
      .stderr_fd = stderr_fd,
      .status_fd = status->write_end.Get(),
      .change_ids = !AlreadyRunsAs(run_as),
      .uid = run_as.uid,
      .gid = run_as.gid,
      .groups = run_as.groups.data(),
      .group_count = run_as.groups.size(),
      .work_dir = work_dir.c_str(),
      .empty_mask = &empty_mask,
      .max_fd = max_fd,
  };

  // Blocked around fork so that no handler of ours runs in the child before
  // it resets the dispositions (glibc's posix_spawn does the same).
  sigset_t all_signals;
  sigset_t old_mask;
  sigfillset(&all_signals);
  ::pthread_sigmask(SIG_SETMASK, &all_signals, &old_mask);
  const pid_t pid = ::fork();
  if (pid == 0) RunForkedChild(plan);
  const int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid < 0) return FailedCall("fork", fork_errno);

  // EOF without a report means exec succeeded. Our write end must be closed
  // first, or the read would never see EOF.
  status->write_end.Reset(-1);
  ChildReport report{};
  ssize_t n;
  do {
    n = ::read(status->read_end.Get(), &report, sizeof report);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return pid;

  // The child failed before exec and has exited (or is about to): reap it.
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof report)) {
    return Fail(ErrorCode::kCommandFailed, "reading the child's status pipe: short read");
  }
  // "setresuid: Operation not permitted (as alice, uid 1001)": the call
  // first, as FailedCall names calls, then whom it was for.
  std::string context = " (as " + (run_as.user.empty() ? std::string("?") : run_as.user) +
                        ", uid " + std::to_string(run_as.uid);
  if (report.stage == ChildStage::kChdir) context += ", work_dir " + work_dir;
  context += ")";
  std::string message;
  if (report.stage == ChildStage::kRegainedRoot) {
    message = "setuid(0): succeeded after dropping root; refusing to run" + context;
  } else if (report.stage == ChildStage::kExecve) {
    // Named with the path, like posix_spawn's failure on the other path.
    message = "execve " + path + ": " + std::system_category().message(report.error) + context;
  } else {
    message = std::string(StageName(report.stage)) + ": " +
              std::system_category().message(report.error) + context;
  }
  return Fail(ErrorCode::kCommandFailed, std::move(message));
}

// The run_as-less path: posix_spawn, which glibc implements with
// clone(CLONE_VM | CLONE_VFORK), cheap whatever the daemon's size.
Result<pid_t> PosixSpawn(const CommandSpec& spec, const std::string& path,
                         const UniqueFd& child_stdin, const UniqueFd& out_write,
                         const UniqueFd& err_write) {
  FileActions actions;
  int rc = child_stdin.Valid()
               ? ::posix_spawn_file_actions_adddup2(&actions.value, child_stdin.Get(), STDIN_FILENO)
               : ::posix_spawn_file_actions_addopen(&actions.value, STDIN_FILENO, "/dev/null",
                                                    O_RDONLY, 0);
  if (rc == 0) {
    rc = ::posix_spawn_file_actions_adddup2(&actions.value, out_write.Get(), STDOUT_FILENO);
  }
  if (rc == 0) {
    rc = ::posix_spawn_file_actions_adddup2(&actions.value, err_write.Get(), STDERR_FILENO);
  }
  // Other parts of the daemon may open descriptors without O_CLOEXEC; the
  // child gets 0-2 only.
  if (rc == 0) rc = ::posix_spawn_file_actions_addclosefrom_np(&actions.value, 3);
  if (rc != 0) return FailedCall("posix_spawn_file_actions", rc);

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
  if (rc != 0) return FailedCall("posix_spawnattr", rc);

  std::vector<char*> argv = CStringArray(spec.argv);
  std::vector<char*> envp = CStringArray(spec.env);
  pid_t pid = 0;
  rc = ::posix_spawn(&pid, path.c_str(), &actions.value, &attributes.value, argv.data(),
                     envp.data());
  if (rc != 0) return FailedCall("posix_spawn " + path, rc);
  return pid;
}

// Starts spec.argv in a new process group with exactly spec.env. Blocks until
// exec succeeded or failed (posix_spawn reports exec's errno and reaps the
// failed child itself; the fork path of run_as does the same by hand).
Result<SpawnedChild> SpawnProcess(const CommandSpec& spec, bool use_pidfd) {
  if (spec.argv.empty()) return Fail(ErrorCode::kCommandFailed, "empty argv");
  if (HasNul(spec.argv) || HasNul(spec.env)) {
    return Fail(ErrorCode::kCommandFailed, spec.argv[0] + ": argv or env contains a NUL byte");
  }
  if (spec.run_as && (spec.run_as->work_dir.find('\0') != std::string::npos)) {
    return Fail(ErrorCode::kCommandFailed, spec.argv[0] + ": run_as.work_dir contains a NUL byte");
  }
  Result<std::string> path = ResolveExecutable(spec.argv[0], spec.env);
  if (!path) return tl::unexpected(path.error());

  Result<Pipe> out = MakePipe();
  if (!out) return tl::unexpected(out.error());
  Result<Pipe> err = MakePipe();
  if (!err) return tl::unexpected(err.error());
  SpawnedChild spawned;
  UniqueFd child_stdin;
  if (spec.stdin_data) {
    // A socket rather than a pipe: Asio writes to sockets with MSG_NOSIGNAL,
    // so a child that exits without reading costs us EPIPE, not SIGPIPE,
    // without touching the process-wide SIGPIPE disposition.
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      return FailedCall("socketpair", errno);
    }
    spawned.fds.in = UniqueFd(fds[0]);
    child_stdin = UniqueFd(fds[1]);
  }

  if (spec.run_as) {
    // Opened here, as the daemon, and before fork: the child may not
    // allocate, and /dev/null is the same for every user.
    UniqueFd dev_null;
    if (!child_stdin.Valid()) {
      dev_null = UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
      if (!dev_null.Valid()) return FailedCall("open /dev/null", errno);
    }
    Result<pid_t> pid =
        ForkAsUser(spec, *path, child_stdin.Valid() ? child_stdin.Get() : dev_null.Get(),
                   out->write_end.Get(), err->write_end.Get());
    if (!pid) return tl::unexpected(pid.error());
    spawned.pid = *pid;
  } else {
    Result<pid_t> pid = PosixSpawn(spec, *path, child_stdin, out->write_end, err->write_end);
    if (!pid) return tl::unexpected(pid.error());
    spawned.pid = *pid;
  }

  // The child's ends (write ends, child_stdin) close when this returns, so
  // EOF on our ends means every process holding them has gone.
  spawned.fds.out = std::move(out->read_end);
  spawned.fds.err = std::move(err->read_end);
  if (use_pidfd) {
#ifdef SYS_pidfd_open
    // pidfd_open sets O_CLOEXEC itself. Failure (ENOSYS before Linux 5.3,
    // EMFILE) only means polling instead.
    const long pidfd = ::syscall(SYS_pidfd_open, spawned.pid, 0);
    if (pidfd >= 0) spawned.fds.pidfd = UniqueFd(static_cast<int>(pidfd));
#endif
  }
  return spawned;
}

}  // namespace

// Registry of children and the spawn queue, shared by the runner, its spawn
// thread and the children (which may outlive the runner). Guarded by `mu`.
struct SubprocessCommandRunner::Shared {
  void Remove(const Child* child) {
    std::lock_guard lock(mu);
    live.erase(child);
  }

  // Body of the spawn thread: spawns queued children in order until told to
  // stop with an empty queue.
  void SpawnLoop();

  std::mutex mu;
  std::condition_variable spawn_wanted;
  bool shut_down = false;
  bool stop_spawner = false;
  std::deque<std::shared_ptr<Child>> spawn_queue;
  std::unordered_map<const Child*, std::weak_ptr<Child>> live;
};

// One command from Run to callback. Its state lives on `strand_`, except the
// pid fields under `pid_mu_` (KillGroup comes from any thread) and the spawn
// outcome, written by the spawn thread before it posts OnSpawned.
class SubprocessCommandRunner::Child : public std::enable_shared_from_this<Child> {
 public:
  Child(Strand strand, CommandSpec spec, Callback done, const SubprocessRunnerOptions& options,
        std::shared_ptr<Shared> shared)
      : strand_(std::move(strand)),
        spec_(std::move(spec)),
        options_(options),
        shared_(std::move(shared)),
        start_(Clock::now()),
        done_(std::move(done)),
        out_(strand_, result_.out),
        err_(strand_, result_.err),
        stdin_(strand_),
        pidfd_(strand_),
        timeout_timer_(strand_),
        grace_timer_(strand_),
        poll_timer_(strand_) {}

  ~Child() {
    // Only when the executor dropped our handlers unrun (its io_context was
    // destroyed) is the child still unreaped here. SIGKILL ends it promptly,
    // so waiting is short, and it is the last chance to avoid a zombie.
    if (pid_ > 0 && !reaped_) {
      ::kill(-pid_, SIGKILL);
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    shared_->Remove(this);
  }

  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Any thread, before the child is queued for spawning: arms the timeout.
  void Start() {
    boost::asio::post(strand_, [self = shared_from_this()] {
      if (self->finished_) return;
      self->timeout_timer_.expires_at(self->start_ + self->spec_.timeout);
      self->timeout_timer_.async_wait(
          [self](const boost::system::error_code& ec) { self->OnTimeout(ec); });
    });
  }

  // Any thread, instead of Start: delivers `error` without running anything.
  void Refuse(Error error) {
    boost::asio::post(strand_, [self = shared_from_this(), error = std::move(error)] {
      self->spawned_ = true;
      self->exited_ = true;
      self->start_error_ = error;
      self->MaybeFinish();
    });
  }

  // Spawn thread only.
  void Spawn() {
    bool cancelled = false;
    {
      std::lock_guard lock(pid_mu_);
      cancelled = kill_requested_;
    }
    if (cancelled) {
      // Shutdown() or the timeout came first. After a timeout the callback
      // has been delivered already, so this message is only seen on shutdown.
      spawn_error_ = Error{ErrorCode::kCommandFailed,
                           spec_.argv.empty() ? std::string("not started: runner shut down")
                                              : spec_.argv[0] + ": not started: runner shut down"};
    } else {
      Result<SpawnedChild> spawned = SpawnProcess(spec_, options_.use_pidfd);
      if (!spawned) {
        spawn_error_ = spawned.error();
      } else {
        std::lock_guard lock(pid_mu_);
        pid_ = spawned->pid;
        group_may_exist_ = true;
        // Shutdown() or the timeout may have come while posix_spawn ran.
        if (kill_requested_) ::kill(-pid_, SIGKILL);
        fds_ = std::move(spawned->fds);
      }
    }
    boost::asio::post(strand_, [self = shared_from_this()] { self->OnSpawned(); });
  }

  // Any thread: SIGKILL to the child's process group, now if it runs, or as
  // soon as it is spawned; a child not yet spawned is not started at all.
  void KillGroup() {
    std::lock_guard lock(pid_mu_);
    kill_requested_ = true;
    // The group id is the child's pid. Unreaped, that pid cannot be reused;
    // reaped, it stays taken as long as any member of the group lives. After
    // completion the group is left alone (group_may_exist_ is cleared).
    if (pid_ > 0 && group_may_exist_) ::kill(-pid_, SIGKILL);
  }

 private:
  // One of the child's output pipes and where its bytes go.
  struct OutputStream {
    OutputStream(const Strand& strand, std::string& sink_string)
        : pipe(strand), buffer(kReadChunkBytes), sink(sink_string) {}
    boost::asio::posix::stream_descriptor pipe;
    std::vector<char> buffer;
    std::string& sink;
    bool open = false;
  };

  void OnSpawned() {
    spawned_ = true;
    if (spawn_error_) {
      exited_ = true;  // there is no child to wait for
      start_error_ = std::move(spawn_error_);
      MaybeFinish();
      return;
    }
    Open(out_, std::move(fds_.out));
    Open(err_, std::move(fds_.err));
    if (fds_.in.Valid()) {
      boost::system::error_code ec;
      stdin_.assign(boost::asio::local::stream_protocol(), fds_.in.Get(), ec);
      if (ec) {
        FailAfterSpawn("registering stdin", ec);
      } else {
        fds_.in.Release();
        boost::asio::async_write(
            stdin_, boost::asio::buffer(*spec_.stdin_data),
            [self = shared_from_this()](const boost::system::error_code&, std::size_t) {
              // Done, or EPIPE/ECONNRESET because the child stopped reading:
              // either way closing gives the child EOF, and what it did with
              // its input shows in its exit status.
              boost::system::error_code ignored;
              self->stdin_.close(ignored);
            });
      }
    }
    if (fds_.pidfd.Valid()) {
      boost::system::error_code ec;
      pidfd_.assign(fds_.pidfd.Get(), ec);
      if (!ec) fds_.pidfd.Release();
      fds_.pidfd.Reset(-1);
    }
    WatchExit();
  }

  // Registers `fd` with the reactor and starts draining it.
  void Open(OutputStream& stream, UniqueFd fd) {
    boost::system::error_code ec;
    stream.pipe.assign(fd.Get(), ec);
    if (ec) {
      FailAfterSpawn("registering an output pipe", ec);
      return;
    }
    fd.Release();
    stream.open = true;
    Read(stream);
  }

  // The child runs but we cannot watch it: kill it and report an error once
  // it is reaped.
  void FailAfterSpawn(const std::string& what, const boost::system::error_code& ec) {
    if (!start_error_) start_error_ = Error{ErrorCode::kCommandFailed, what + ": " + ec.message()};
    KillGroup();
  }

  void Read(OutputStream& stream) {
    stream.pipe.async_read_some(
        boost::asio::buffer(stream.buffer),
        [self = shared_from_this(), &stream](const boost::system::error_code& ec, std::size_t n) {
          self->OnRead(stream, ec, n);
        });
  }

  void OnRead(OutputStream& stream, const boost::system::error_code& ec, std::size_t n) {
    const std::size_t limit = options_.output_limit_bytes;
    const std::size_t room = limit - std::min(limit, stream.sink.size());
    const std::size_t kept = std::min(n, room);
    stream.sink.append(stream.buffer.data(), kept);
    // Past the limit we keep reading and discarding: a child blocked on a
    // full pipe would never exit.
    if (kept < n) result_.output_truncated = true;
    if (ec) {  // eof, or operation_aborted after OnGrace closed the pipe
      stream.open = false;
      boost::system::error_code ignored;
      stream.pipe.close(ignored);
      MaybeFinish();
      return;
    }
    Read(stream);
  }

  void WatchExit() {
    if (pidfd_.is_open()) {
      pidfd_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                        [self = shared_from_this()](const boost::system::error_code& ec) {
                          if (ec || self->exited_) return;
                          // Readable means exited; should waitpid disagree,
                          // polling is the safe way on (see below).
                          if (!self->CheckExited()) self->Poll();
                        });
    }
    // Asio registers descriptors edge-triggered and does not remember an edge
    // that came before the wait was queued, so an exit between pidfd_open and
    // async_wait would be lost. The wait is queued now: an exit from here on
    // wakes it, and an earlier one is found by this check.
    if (CheckExited()) return;
    if (!pidfd_.is_open()) Poll();
  }

  void Poll() {
    poll_timer_.expires_after(poll_interval_);
    poll_interval_ = std::min(poll_interval_ * 2, kMaxPollInterval);
    poll_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->exited_) return;
      if (!self->CheckExited()) self->Poll();
    });
  }

  // Reaps the child if it has exited; true if it has (now or before).
  bool CheckExited() {
    if (exited_) return true;
    int status = 0;
    bool status_known = true;
    {
      std::lock_guard lock(pid_mu_);
      pid_t reaped;
      do {
        reaped = ::waitpid(pid_, &status, WNOHANG);
      } while (reaped < 0 && errno == EINTR);
      if (reaped == 0) return false;
      // ECHILD: someone else reaped it (SIGCHLD set to SIG_IGN, or a
      // waitpid(-1) elsewhere in the process). It is gone; its status is
      // lost, so exit_code stays -1 and term_signal 0.
      status_known = reaped > 0;
      reaped_ = true;
    }
    OnExited(status_known, status);
    return true;
  }

  void OnExited(bool status_known, int status) {
    exited_ = true;
    if (status_known && WIFEXITED(status)) {
      result_.exit_code = WEXITSTATUS(status);
    } else if (status_known && WIFSIGNALED(status)) {
      result_.exit_code = -1;
      result_.term_signal = WTERMSIG(status);
    }
    timeout_timer_.cancel();
    poll_timer_.cancel();
    boost::system::error_code ignored;
    pidfd_.close(ignored);
    if (out_.open || err_.open) {
      grace_timer_.expires_after(options_.pipe_grace);
      grace_timer_.async_wait(
          [self = shared_from_this()](const boost::system::error_code& ec) { self->OnGrace(ec); });
    }
    MaybeFinish();
  }

  void OnTimeout(const boost::system::error_code& ec) {
    if (ec || delivered_ || exited_) return;
    // It may have exited on its own just now: then it did not time out.
    if (spawned_ && CheckExited()) return;
    result_.timed_out = true;
    KillGroup();
    if (!spawned_) {
      // posix_spawn has not returned (exec from a hung filesystem?). The
      // caller gets its answer now; the child, if it still starts, is killed
      // at once and reaped by OnSpawned's machinery with nobody listening.
      result_.elapsed = Elapsed();
      Deliver(result_);
    }
  }

  void OnGrace(const boost::system::error_code& ec) {
    if (ec || finished_ || !(out_.open || err_.open)) return;
    // The child is reaped but someone still holds its pipes: a grandchild in
    // its group (killed here) or one that left the group (setsid), which we
    // stop listening to. The pending reads then end with operation_aborted.
    KillGroup();
    boost::system::error_code ignored;
    out_.pipe.close(ignored);
    err_.pipe.close(ignored);
  }

  void MaybeFinish() {
    if (finished_ || !spawned_ || !exited_ || out_.open || err_.open) return;
    finished_ = true;
    timeout_timer_.cancel();
    grace_timer_.cancel();
    poll_timer_.cancel();
    boost::system::error_code ignored;
    stdin_.close(ignored);
    pidfd_.close(ignored);
    {
      std::lock_guard lock(pid_mu_);
      group_may_exist_ = false;
    }
    if (delivered_) return;
    result_.elapsed = Elapsed();
    if (start_error_) {
      Deliver(tl::unexpected(std::move(*start_error_)));
    } else {
      Deliver(std::move(result_));
    }
  }

  void Deliver(Result<CommandResult> result) {
    delivered_ = true;
    Callback done = std::move(done_);
    done_ = nullptr;
    done(std::move(result));
  }

  std::chrono::milliseconds Elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_);
  }

  // Set at construction; read by the spawn thread and on the strand.
  const Strand strand_;
  const CommandSpec spec_;
  const SubprocessRunnerOptions options_;
  const std::shared_ptr<Shared> shared_;
  const Clock::time_point start_;

  // Written by the spawn thread before it posts OnSpawned; then strand only.
  std::optional<Error> spawn_error_;
  ChildFds fds_;

  // Shared with KillGroup callers on any thread.
  std::mutex pid_mu_;
  pid_t pid_ = 0;                 // 0 until spawned
  bool kill_requested_ = false;   // KillGroup was called
  bool reaped_ = false;           // waitpid succeeded (or said ECHILD)
  bool group_may_exist_ = false;  // from spawn until the call completed

  // Strand only.
  Callback done_;
  CommandResult result_;
  OutputStream out_;
  OutputStream err_;
  boost::asio::local::stream_protocol::socket stdin_;
  boost::asio::posix::stream_descriptor pidfd_;
  boost::asio::steady_timer timeout_timer_;
  boost::asio::steady_timer grace_timer_;
  boost::asio::steady_timer poll_timer_;
  std::chrono::milliseconds poll_interval_ = kFirstPollInterval;
  std::optional<Error> start_error_;
  bool spawned_ = false;    // OnSpawned ran (or the call was refused)
  bool exited_ = false;     // reaped, or nothing was started
  bool finished_ = false;   // everything closed; nothing more will happen
  bool delivered_ = false;  // the callback ran
};

void SubprocessCommandRunner::Shared::SpawnLoop() {
  for (;;) {
    std::shared_ptr<Child> child;
    {
      std::unique_lock lock(mu);
      spawn_wanted.wait(lock, [this] { return stop_spawner || !spawn_queue.empty(); });
      if (spawn_queue.empty()) return;
      child = std::move(spawn_queue.front());
      spawn_queue.pop_front();
    }
    child->Spawn();
  }
}

SubprocessCommandRunner::SubprocessCommandRunner(boost::asio::any_io_executor executor,
                                                 SubprocessRunnerOptions options)
    : executor_(std::move(executor)), options_(options), shared_(std::make_shared<Shared>()) {}

SubprocessCommandRunner::~SubprocessCommandRunner() {
  Shutdown();
  {
    std::lock_guard lock(shared_->mu);
    shared_->stop_spawner = true;
  }
  shared_->spawn_wanted.notify_all();
  // Joined rather than detached: the thread posts to our executor, which
  // must not happen after the io_context is gone.
  if (spawner_.joinable()) spawner_.join();
}

void SubprocessCommandRunner::Run(CommandSpec spec, Callback done) {
  auto child = std::make_shared<Child>(boost::asio::make_strand(executor_), std::move(spec),
                                       std::move(done), options_, shared_);
  std::optional<Error> refusal;
  {
    std::lock_guard lock(shared_->mu);
    if (shared_->shut_down) {
      refusal = Error{ErrorCode::kCommandFailed, "the command runner is shut down"};
    } else if (!spawner_.joinable()) {
      // Started lazily so that the constructor cannot fail.
      try {
        spawner_ = std::thread([shared = shared_] { shared->SpawnLoop(); });
      } catch (const std::system_error& e) {
        refusal = Error{ErrorCode::kCommandFailed,
                        std::string("cannot start the spawn thread: ") + e.what()};
      }
    }
    if (!refusal) {
      shared_->live.emplace(child.get(), child);
      child->Start();  // before queueing, so the timeout is armed before OnSpawned
      shared_->spawn_queue.push_back(child);
    }
  }
  if (refusal) {
    child->Refuse(std::move(*refusal));
    return;
  }
  shared_->spawn_wanted.notify_one();
}

void SubprocessCommandRunner::Shutdown() {
  std::vector<std::shared_ptr<Child>> live;
  {
    std::lock_guard lock(shared_->mu);
    shared_->shut_down = true;
    for (const auto& [key, weak] : shared_->live) {
      if (auto child = weak.lock()) live.push_back(std::move(child));
    }
  }
  for (const auto& child : live) child->KillGroup();
}

}  // namespace bplace::lsf
