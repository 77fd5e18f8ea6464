#include "lsf_adapter/subprocess_command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "common/unique_fd.h"
#include "lsf_adapter/lsf_invoker.h"
#include "lsf_adapter/spawn.h"

namespace bplace::lsf {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::vector<std::string> kEnv = {"PATH=/usr/bin:/bin"};

CommandSpec Spec(std::vector<std::string> argv, std::chrono::milliseconds timeout = 10s) {
  CommandSpec spec;
  spec.argv = std::move(argv);
  spec.env = kEnv;
  spec.timeout = timeout;
  return spec;
}

CommandSpec Shell(const std::string& script, std::chrono::milliseconds timeout = 10s) {
  return Spec({"sh", "-c", script}, timeout);
}

// True once `fd` is readable; false after `limit`.
bool WaitReadable(int fd, std::chrono::milliseconds limit) {
  pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
  int n;
  do {
    n = ::poll(&ready, 1, static_cast<int>(limit.count()));
  } while (n < 0 && errno == EINTR);
  return n == 1;
}

// True when `pid` no longer runs: gone, or a zombie waiting for its new
// parent (init, which in a container may never reap it).
bool IsDead(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(stat_file, stat)) return true;
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return true;
  const char state = stat[paren + 2];
  return state == 'Z' || state == 'X';
}

// True once `pid` is dead (IsDead); SIGKILL is delivered asynchronously. It
// is not our child, so we wait on its pidfd, readable once it exited;
// `limit` only bounds a failure. Kernels before 5.3 have no pidfd_open:
// there /proc is polled instead.
bool BecomesDead(pid_t pid, std::chrono::milliseconds limit = 5s) {
  const long pidfd = ::syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0 && errno == ENOSYS) {
    const auto deadline = Clock::now() + limit;
    while (!IsDead(pid) && Clock::now() < deadline) std::this_thread::sleep_for(2ms);
    return IsDead(pid);
  }
  if (pidfd < 0) return errno == ESRCH;  // gone already
  const UniqueFd fd(static_cast<int>(pidfd));
  return WaitReadable(fd.Get(), limit);
}

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "bplace_runner_XXXXXX";
    path_ = ::mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A FIFO in `dir` that a child writes a line to once it runs: an event to
// wait for instead of polling for a file. We hold the read end open, so the
// child's open for writing does not block.
class StartSignal {
 public:
  explicit StartSignal(const std::string& dir) : path_(dir + "/started") {
    if (::mkfifo(path_.c_str(), 0600) == 0) {
      fd_ = UniqueFd(::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    }
  }
  const std::string& path() const { return path_; }
  // True once the child wrote; false after `limit` (never before it).
  bool Wait(std::chrono::milliseconds limit = 5s) const {
    return fd_.Valid() && WaitReadable(fd_.Get(), limit);
  }

 private:
  std::string path_;
  UniqueFd fd_;
};

// Gathers callbacks from any thread; counts them so that "exactly once" can
// be checked.
class Collector {
 public:
  CommandRunner::Callback Callback() {
    return [this](Result<CommandResult> result) {
      std::lock_guard lock(mu_);
      results_.push_back(std::move(result));
      changed_.notify_all();
    };
  }
  bool WaitFor(std::size_t count, std::chrono::milliseconds limit = 20s) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, limit, [&] { return results_.size() >= count; });
  }
  std::vector<Result<CommandResult>> Results() {
    std::lock_guard lock(mu_);
    return results_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Result<CommandResult>> results_;
};

// An io_context run by `threads` threads until destroyed.
class IoThreads {
 public:
  explicit IoThreads(int threads) : guard_(io_.get_executor()) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  ~IoThreads() {
    guard_.reset();
    for (std::thread& thread : threads_) thread.join();
  }
  boost::asio::io_context& io() { return io_; }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::vector<std::thread> threads_;
};

// Runs each test with pidfd exit detection and with the polling fallback.
class SubprocessCommandRunnerTest : public ::testing::TestWithParam<bool> {
 protected:
  SubprocessRunnerOptions Options() const {
    SubprocessRunnerOptions options;
    options.use_pidfd = GetParam();
    return options;
  }

  // Runs `spec` on an io_context driven by this thread and returns the one
  // result; fails the test if the callback ran other than once.
  Result<CommandResult> RunOnce(const CommandSpec& spec) { return RunOnce(spec, Options()); }

  Result<CommandResult> RunOnce(const CommandSpec& spec, const SubprocessRunnerOptions& options) {
    boost::asio::io_context io;
    SubprocessCommandRunner runner(io.get_executor(), options);
    Collector collector;
    runner.Run(spec, collector.Callback());
    EXPECT_TRUE(collector.Results().empty()) << "callback ran inside Run";
    io.run_for(20s);
    std::vector<Result<CommandResult>> results = collector.Results();
    EXPECT_EQ(results.size(), 1u);
    if (results.empty()) return Fail(ErrorCode::kInternal, "no callback");
    return results.front();
  }

  void TearDown() override {
    // Every child was reaped: none is left to wait for.
    int status = 0;
    errno = 0;
    EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1);
    EXPECT_EQ(errno, ECHILD) << "a child of the test process was not reaped";
  }
};

INSTANTIATE_TEST_SUITE_P(ExitWatch, SubprocessCommandRunnerTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Pidfd" : "Polling";
                         });

TEST_P(SubprocessCommandRunnerTest, ReportsExitCode) {
  Result<CommandResult> result = RunOnce(Shell("exit 3"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->term_signal, 0);
  EXPECT_FALSE(result->timed_out);
}

TEST_P(SubprocessCommandRunnerTest, RunsInTheGivenDirectoryWithTheGivenUmask) {
  // The submitter's context bsub hands to the job (JobRequest::workdir,
  // umask), through the fork path as ourselves.
  CommandSpec spec = Shell("umask; pwd");
  spec.run_as = RunAsSelf("/tmp", 027);
  Result<CommandResult> result = RunOnce(std::move(spec));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->out, "0027\n/tmp\n");
}

TEST_P(SubprocessCommandRunnerTest, TellsThePidOfTheChildItStarted) {
  CommandSpec spec = Shell("echo $$");
  std::atomic<pid_t> seen{0};
  spec.on_spawned = [&seen](pid_t pid) { seen = pid; };
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(std::to_string(seen.load()) + "\n", result->out);
}

TEST_P(SubprocessCommandRunnerTest, ReportsTerminatingSignal) {
  Result<CommandResult> result = RunOnce(Shell("kill -TERM $$"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, -1);
  EXPECT_EQ(result->term_signal, SIGTERM);
  EXPECT_FALSE(result->timed_out);
}

TEST_P(SubprocessCommandRunnerTest, SeparatesStdoutFromStderr) {
  Result<CommandResult> result = RunOnce(Shell("echo out; echo err >&2; echo more"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->out, "out\nmore\n");
  EXPECT_EQ(result->err, "err\n");
  EXPECT_FALSE(result->output_truncated);
}

TEST_P(SubprocessCommandRunnerTest, DrainsLargeOutputOnBothStreamsWithoutDeadlock) {
  // stderr first: a runner that read stdout to EOF before touching stderr
  // would leave the child blocked on a full stderr pipe forever.
  Result<CommandResult> result =
      RunOnce(Shell("head -c 3000000 /dev/zero >&2; head -c 3000000 /dev/zero"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->out.size(), 3000000u);
  EXPECT_EQ(result->err.size(), 3000000u);
  EXPECT_FALSE(result->timed_out);
}

TEST_P(SubprocessCommandRunnerTest, FeedsStdinToTheChild) {
  std::string input(1 << 20, '\0');
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<char>('a' + i % 26);
  CommandSpec spec = Spec({"cat"});
  spec.stdin_data = input;
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_TRUE(result->out == input) << "got " << result->out.size() << " bytes";
}

TEST_P(SubprocessCommandRunnerTest, GivesEmptyStdinWithoutStdinData) {
  Result<CommandResult> result = RunOnce(Spec({"cat"}));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->out, "");
}

TEST_P(SubprocessCommandRunnerTest, SurvivesAChildThatDoesNotReadStdin) {
  // The test only means something if SIGPIPE would kill us.
  struct sigaction action {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &action), 0);
  ASSERT_EQ(action.sa_handler, SIG_DFL);

  CommandSpec spec = Spec({"true"});
  spec.stdin_data = std::string(2 << 20, 'x');
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_FALSE(result->timed_out);
}

TEST_P(SubprocessCommandRunnerTest, PassesExactlyTheGivenEnvironment) {
  CommandSpec spec = Spec({"/usr/bin/env"});
  spec.env = {"PATH=/nonexistent", "A=1", "B=two words", "EMPTY="};
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->out, "PATH=/nonexistent\nA=1\nB=two words\nEMPTY=\n");
}

TEST_P(SubprocessCommandRunnerTest, PassesArgvUnchangedWithoutAShell) {
  Result<CommandResult> result = RunOnce(Spec(
      {"printf", "[%s]\\n", "a b", "'single'", "\"double\"", "$HOME", "*", "; exit 1", "", "\\n"}));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->out, "[a b]\n['single']\n[\"double\"]\n[$HOME]\n[*]\n[; exit 1]\n[]\n[\\n]\n");
}

TEST_P(SubprocessCommandRunnerTest, ResolvesArgv0AgainstThePathOfTheSpec) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string tool = dir.path() + "/bplace-runner-test-tool";
  {
    std::ofstream script(tool);
    script << "#!/bin/sh\necho found \"$0\"\n";
  }
  ASSERT_EQ(::chmod(tool.c_str(), 0755), 0);

  CommandSpec spec = Spec({"bplace-runner-test-tool"});
  spec.env = {"PATH=" + dir.path() + "/missing::" + dir.path() + ":/usr/bin:/bin"};
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->out, "found " + tool + "\n");
}

TEST_P(SubprocessCommandRunnerTest, ReportsCommandNotFoundInPath) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string path = "PATH=" + dir.path() + "/missing:" + dir.path() + "/also/missing";
  CommandSpec spec = Spec({"bqueues", "-w"});
  spec.env = {path};
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kCommandFailed);
  EXPECT_EQ(result.error().message, "bqueues: not found in " + path);
}

TEST_P(SubprocessCommandRunnerTest, ReportsMissingPathInTheSpecEnvironment) {
  CommandSpec spec = Spec({"env"});
  spec.env = {"LSF_ENVDIR=/etc/lsf"};
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kCommandFailed);
  EXPECT_NE(result.error().message.find("no PATH"), std::string::npos) << result.error().message;
}

TEST_P(SubprocessCommandRunnerTest, ReportsMissingAbsolutePath) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string missing = dir.path() + "/bqueues";
  Result<CommandResult> result = RunOnce(Spec({missing}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kCommandFailed);
  EXPECT_NE(result.error().message.find("posix_spawn " + missing + ": No such file"),
            std::string::npos)
      << result.error().message;
}

TEST_P(SubprocessCommandRunnerTest, RejectsEmptyArgv) {
  Result<CommandResult> result = RunOnce(Spec({}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kCommandFailed);
}

TEST_P(SubprocessCommandRunnerTest, TimeoutKillsTheWholeProcessGroup) {
  const auto started = Clock::now();
  Result<CommandResult> result = RunOnce(Shell("sleep 100 & echo $!; sleep 100", 300ms));
  const auto took = Clock::now() - started;
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->exit_code, -1);
  EXPECT_EQ(result->term_signal, SIGKILL);
  // Not before the timeout: the timer and `elapsed` read the same steady
  // clock from the same start, so a slow machine cannot break this.
  EXPECT_GE(result->elapsed, 300ms);
  // At the timeout, not after `sleep 100`: a bound 10x the timeout.
  EXPECT_LT(took, 3s);
  // Output printed before the kill is kept.
  const pid_t grandchild = std::atoi(result->out.c_str());
  ASSERT_GT(grandchild, 0) << result->out;
  EXPECT_TRUE(BecomesDead(grandchild)) << "grandchild " << grandchild << " survived";
}

TEST_P(SubprocessCommandRunnerTest, GrandchildHoldingStdoutDoesNotHangTheCall) {
  const auto started = Clock::now();
  Result<CommandResult> result = RunOnce(Shell("sleep 100 & echo $!"));
  const auto took = Clock::now() - started;
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_FALSE(result->timed_out);
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_LT(took, 2s);
  const pid_t grandchild = std::atoi(result->out.c_str());
  ASSERT_GT(grandchild, 0) << result->out;
  EXPECT_TRUE(BecomesDead(grandchild)) << "grandchild " << grandchild << " survived";
}

TEST_P(SubprocessCommandRunnerTest, GrandchildThatLeftTheGroupDoesNotHangTheCall) {
  const auto started = Clock::now();
  Result<CommandResult> result = RunOnce(Shell("setsid sleep 100 & echo $!"));
  const auto took = Clock::now() - started;
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_LT(took, 2s);
  const pid_t grandchild = std::atoi(result->out.c_str());
  ASSERT_GT(grandchild, 0) << result->out;
  ::kill(grandchild, SIGKILL);  // out of our reach by design; clean up
}

TEST_P(SubprocessCommandRunnerTest, TruncatesOutputBeyondTheLimit) {
  SubprocessRunnerOptions options = Options();
  options.output_limit_bytes = 1000;
  Result<CommandResult> result =
      RunOnce(Shell("head -c 500000 /dev/zero; head -c 10 /dev/zero >&2"), options);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->out.size(), 1000u);
  EXPECT_EQ(result->err.size(), 10u);
  EXPECT_TRUE(result->output_truncated);
}

TEST_P(SubprocessCommandRunnerTest, FiftyConcurrentRunsOnTwoThreadsAllComplete) {
  constexpr int kRuns = 50;
  Collector collector;
  {
    IoThreads io(2);
    SubprocessCommandRunner runner(io.io().get_executor(), Options());
    // Run is called from both io threads at once.
    for (int i = 0; i < kRuns; ++i) {
      boost::asio::post(io.io(), [&runner, &collector, i] {
        runner.Run(Spec({"sh", "-c", "echo $0; echo $0 >&2", std::to_string(i)}),
                   collector.Callback());
      });
    }
    ASSERT_TRUE(collector.WaitFor(kRuns));
  }
  std::vector<Result<CommandResult>> results = collector.Results();
  ASSERT_EQ(results.size(), static_cast<std::size_t>(kRuns));
  std::vector<bool> seen(kRuns, false);
  for (const Result<CommandResult>& result : results) {
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->exit_code, 0);
    EXPECT_EQ(result->out, result->err);
    const int i = std::atoi(result->out.c_str());
    ASSERT_GE(i, 0);
    ASSERT_LT(i, kRuns);
    EXPECT_FALSE(seen[i]) << "two results for run " << i;
    seen[i] = true;
  }
}

TEST_P(SubprocessCommandRunnerTest, ShutdownKillsRunningChildrenAndRefusesNewOnes) {
  TempDir dir;
  const StartSignal started(dir.path());
  Collector collector;
  IoThreads io(1);
  SubprocessCommandRunner runner(io.io().get_executor(), Options());
  runner.Run(Spec({"sh", "-c", "echo > \"$0\"; exec sleep 100", started.path()}, 60s),
             collector.Callback());
  ASSERT_TRUE(started.Wait());

  runner.Shutdown();
  ASSERT_TRUE(collector.WaitFor(1, 5s));
  runner.Run(Spec({"true"}), collector.Callback());
  ASSERT_TRUE(collector.WaitFor(2, 5s));

  std::vector<Result<CommandResult>> results = collector.Results();
  ASSERT_TRUE(results[0]) << results[0].error().message;
  EXPECT_EQ(results[0]->term_signal, SIGKILL);
  EXPECT_FALSE(results[0]->timed_out);
  ASSERT_FALSE(results[1]);
  EXPECT_EQ(results[1].error().code, ErrorCode::kCommandFailed);
}

TEST_P(SubprocessCommandRunnerTest, DestroyingTheRunnerKillsChildrenAndStillDelivers) {
  TempDir dir;
  const StartSignal started(dir.path());
  Collector collector;
  IoThreads io(1);
  auto runner = std::make_unique<SubprocessCommandRunner>(io.io().get_executor(), Options());
  runner->Run(Spec({"sh", "-c", "echo > \"$0\"; exec sleep 100", started.path()}, 60s),
              collector.Callback());
  ASSERT_TRUE(started.Wait());
  runner.reset();
  ASSERT_TRUE(collector.WaitFor(1, 5s));
  std::vector<Result<CommandResult>> results = collector.Results();
  ASSERT_TRUE(results[0]) << results[0].error().message;
  EXPECT_EQ(results[0]->term_signal, SIGKILL);
}

TEST_P(SubprocessCommandRunnerTest, DestroyingTheIoContextFirstStillReapsChildren) {
  TempDir dir;
  const StartSignal started(dir.path());
  Collector collector;
  {
    boost::asio::io_context io;
    SubprocessCommandRunner runner(io.get_executor(), Options());
    runner.Run(Spec({"sh", "-c", "echo > \"$0\"; exec sleep 100", started.path()}, 60s),
               collector.Callback());
    ASSERT_TRUE(started.Wait());
    // Runs what is ready (the timeout's arming, the spawn's outcome if
    // posted by now); later handlers stay unrun either way.
    io.poll();
    // The runner, then the io_context with the child's handlers unrun.
  }
  EXPECT_TRUE(collector.Results().empty());
  // TearDown checks that the child was reaped.
}

// The spawn layer alone (lsf_adapter/spawn.h): no event loop, plain
// descriptors, reaped by the test. Each test runs on both paths: posix_spawn,
// and the fork of run_as (as ourselves, which needs no privilege).
class SpawnChildTest : public ::testing::TestWithParam<bool> {
 protected:
  CommandSpec SpawnSpec(const std::string& script) const {
    CommandSpec spec = Shell(script);
    if (GetParam()) spec.run_as = RunAsSelf("/", std::nullopt);
    return spec;
  }

  // Reads `fd` to EOF.
  static std::string ReadAll(const UniqueFd& fd) {
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fd.Get(), buffer, sizeof buffer)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    }
    return text;
  }

  // Reaps `pid`; its exit code, or -1 if it did not exit normally.
  static int Reap(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  static bool CloseOnExec(const UniqueFd& fd) {
    return (::fcntl(fd.Get(), F_GETFD) & FD_CLOEXEC) != 0;
  }
};

INSTANTIATE_TEST_SUITE_P(Path, SpawnChildTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "ForkRunAs" : "PosixSpawn";
                         });

TEST_P(SpawnChildTest, ChildLeadsItsOwnGroupAndWeGetCloseOnExecEnds) {
  Result<SpawnedChild> child =
      SpawnChild(SpawnSpec("echo $$ $(cut -d' ' -f5 /proc/$$/stat); echo err >&2"), true);
  ASSERT_TRUE(child) << child.error().message;
  ASSERT_GT(child->pid, 0);
  EXPECT_FALSE(child->in.Valid()) << "no stdin_data, no stdin socket";
  ASSERT_TRUE(child->pidfd.Valid());
  for (const UniqueFd* fd : {&child->out, &child->err, &child->pidfd}) {
    EXPECT_TRUE(CloseOnExec(*fd));
  }
  const std::string pid = std::to_string(child->pid);
  EXPECT_EQ(ReadAll(child->out), pid + " " + pid + "\n");  // pid, then its pgid
  EXPECT_EQ(ReadAll(child->err), "err\n");
  EXPECT_EQ(Reap(child->pid), 0);
}

TEST_P(SpawnChildTest, ChildHoldsOnlyDescriptorsZeroToTwo) {
  // Someone in the daemon forgot O_CLOEXEC.
  const UniqueFd leaked(::open("/dev/null", O_RDONLY));
  ASSERT_TRUE(leaked.Valid());
  const std::string fd = "/proc/$$/fd/" + std::to_string(leaked.Get());
  Result<SpawnedChild> child = SpawnChild(
      SpawnSpec("[ -e " + fd + " ] && echo leaked; [ -c /dev/stdin ] && echo null-stdin"), false);
  ASSERT_TRUE(child) << child.error().message;
  EXPECT_FALSE(child->pidfd.Valid()) << "not asked for";
  EXPECT_EQ(ReadAll(child->out), "null-stdin\n");
  EXPECT_EQ(Reap(child->pid), 0);
}

TEST_P(SpawnChildTest, StdinDataGivesUsTheOtherEndOfASocket) {
  CommandSpec spec = SpawnSpec("[ -S /dev/stdin ] && echo socket; cat");
  spec.stdin_data = "unused by the spawn layer";
  Result<SpawnedChild> child = SpawnChild(spec, false);
  ASSERT_TRUE(child) << child.error().message;
  ASSERT_TRUE(child->in.Valid());
  EXPECT_TRUE(CloseOnExec(child->in));
  ASSERT_EQ(::send(child->in.Get(), "hello", 5, MSG_NOSIGNAL), 5);
  child->in.Reset(-1);  // EOF for cat
  EXPECT_EQ(ReadAll(child->out), "socket\nhello");
  EXPECT_EQ(Reap(child->pid), 0);
}

TEST_P(SpawnChildTest, ExecFailureIsReportedAndLeavesNoChild) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  CommandSpec spec = SpawnSpec("");
  spec.argv = {dir.path() + "/bqueues"};
  Result<SpawnedChild> child = SpawnChild(spec, true);
  ASSERT_FALSE(child);
  EXPECT_EQ(child.error().code, ErrorCode::kCommandFailed);
  const std::string call = GetParam() ? "execve " : "posix_spawn ";
  EXPECT_EQ(child.error().message.rfind(call + spec.argv[0] + ": No such file or directory", 0), 0u)
      << child.error().message;
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace bplace::lsf
