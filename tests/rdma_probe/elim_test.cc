// RunElim with stand-in children (/bin/sh scripts instead of the one-shot
// probe), run in a forked process so that its signal handling stays out of
// the test runner. Every wait is bounded.

#include "rdma_probe/elim.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "rdma_probe/watchdog.h"
#include "tests/rdma_probe/process_util.h"

namespace bplace::rdma {
namespace {

using namespace std::chrono_literals;

struct ElimProcess {
  pid_t pid = -1;
  int lines_fd = -1;
};

// Forks a process running RunElim with `settings`, its lines into a pipe.
ElimProcess StartElim(ElimSettings settings) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    settings.out_fd = fds[1];
    ::_exit(RunElim(settings));
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

ElimSettings ShellChild(const std::string& script) {
  ElimSettings settings;
  settings.exe = "/bin/sh";
  settings.child_args = {"sh", "-c", script};
  settings.interval = 1s;
  settings.child_deadline = 400ms;
  return settings;
}

std::optional<int> StopWithSigterm(const ElimProcess& elim) {
  ::kill(elim.pid, SIGTERM);
  std::optional<int> status = testing::WaitFor(elim.pid, 5s);
  ::close(elim.lines_fd);
  return status;
}

TEST(ElimTest, HealthyChildReportPublishesOkAndRate) {
  const ElimProcess elim =
      StartElim(ShellChild(R"(echo '{"verdict": "healthy", "rate_gbps": 200}')"));
  ASSERT_GT(elim.pid, 0);
  const std::string lines = testing::ReadUntil(
      elim.lines_fd, 10s, [](const std::string& t) { return t.find('\n') != std::string::npos; });
  EXPECT_EQ(lines, "2 ib_ok 1 ib_rate 200\n");
  const std::optional<int> status = StopWithSigterm(elim);
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

TEST(ElimTest, HungChildIsKilledAtTheDeadlineAndPublishesNotOk) {
  // `exec sleep` so that the killed pid is the sleeper itself.
  const ElimProcess elim = StartElim(ShellChild("exec sleep 60"));
  ASSERT_GT(elim.pid, 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string lines = testing::ReadUntil(
      elim.lines_fd, 10s, [](const std::string& t) { return t.find('\n') != std::string::npos; });
  EXPECT_EQ(lines, "1 ib_ok 0\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  const std::optional<int> status = StopWithSigterm(elim);
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

TEST(ElimTest, SigtermDuringAProbeStopsPromptly) {
  const ElimProcess elim = StartElim([] {
    ElimSettings s = ShellChild("exec sleep 60");
    s.child_deadline = 30s;
    return s;
  }());
  ASSERT_GT(elim.pid, 0);
  ::poll(nullptr, 0, 200);  // let the child start
  const auto start = std::chrono::steady_clock::now();
  const std::optional<int> status = StopWithSigterm(elim);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

TEST(ElimTest, UnhealthyOrGarbageOutputPublishesNotOkEveryInterval) {
  const ElimProcess elim = StartElim(ShellChild("echo '{\"verdict\": \"unhealthy\"}'; exit 1"));
  ASSERT_GT(elim.pid, 0);
  const std::string lines = testing::ReadUntil(elim.lines_fd, 10s, [](const std::string& t) {
    return testing::CountLines(t, "1 ib_ok 0\n") >= 2;
  });
  EXPECT_EQ(lines, "1 ib_ok 0\n1 ib_ok 0\n");
  const std::optional<int> status = StopWithSigterm(elim);
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

TEST(ElimTest, ClosedStdoutEndsTheLoopWithNonZeroStatus) {
  const ElimProcess elim = StartElim(ShellChild("echo '{}'"));
  ASSERT_GT(elim.pid, 0);
  ::close(elim.lines_fd);
  const std::optional<int> status = testing::WaitFor(elim.pid, 10s);
  ASSERT_TRUE(status);
  ASSERT_TRUE(WIFEXITED(*status)) << "died of signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), 2);
}

TEST(WatchdogDeathTest, HungWorkPrintsFallbackAndExitsTwo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(RunWithWatchdog(
                  100ms,
                  [] {
                    for (;;) ::pause();
                    return WatchdogOutput{};
                  },
                  [] { return std::string("probe timed out\n"); }, 2, STDERR_FILENO),
              ::testing::ExitedWithCode(2), "probe timed out");
}

TEST(WatchdogTest, WorkFinishingInTimeWritesItsOwnOutput) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const int code = RunWithWatchdog(
      10s,
      [] {
        return WatchdogOutput{"report\n", 1};
      },
      [] { return std::string("late\n"); }, 2, fds[1]);
  ::close(fds[1]);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(testing::ReadAll(fds[0], 1s), "report\n");
  ::close(fds[0]);
}

}  // namespace
}  // namespace bplace::rdma
