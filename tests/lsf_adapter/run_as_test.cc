// SubprocessCommandRunner with CommandSpec::run_as. The run-as tests need
// root and the users of tools/test-users.sh (alice, bob); without them they
// skip, saying so.
// Refusal without privilege is tested by re-running one test of this binary
// as alice, or as root without CAP_SETUID (through setpriv).

#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

#include "common/unique_fd.h"
#include "identity/user_identity.h"
#include "lsf_adapter/lsf_invoker.h"
#include "lsf_adapter/subprocess_command_runner.h"

namespace bplace::lsf {
namespace {

using identity::LookupUserByName;
using identity::UserIdentity;

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Set in the environment of a test re-run by RerunThisTest, which then does
// the unprivileged half of its work instead of re-running itself again.
constexpr const char* kRerunVariable = "BPLACE_RUN_AS_TEST_RERUN";
constexpr const char* kPath = "PATH=/usr/bin:/bin:/usr/sbin:/sbin";

bool IsRerun() { return std::getenv(kRerunVariable) != nullptr; }

// Runs `spec` on an io_context driven by this thread and returns the one
// result.
Result<CommandResult> RunOnce(const CommandSpec& spec) {
  boost::asio::io_context io;
  SubprocessCommandRunner runner(io.get_executor());
  std::vector<Result<CommandResult>> results;
  runner.Run(spec,
             [&results](Result<CommandResult> result) { results.push_back(std::move(result)); });
  io.run_for(30s);
  EXPECT_EQ(results.size(), 1u);
  if (results.size() != 1) return Fail(ErrorCode::kInternal, "no single callback");
  return results.front();
}

CommandSpec Spec(std::vector<std::string> argv, std::optional<RunAs> run_as,
                 std::chrono::milliseconds timeout = 10s) {
  CommandSpec spec;
  spec.argv = std::move(argv);
  spec.env = {kPath};
  spec.run_as = std::move(run_as);
  spec.timeout = timeout;
  return spec;
}

std::set<gid_t> ParseIds(const std::string& text) {
  std::set<gid_t> ids;
  std::istringstream in(text);
  unsigned long id = 0;
  while (in >> id) ids.insert(static_cast<gid_t>(id));
  return ids;
}

// The value of field `name` ("Uid", "CapEff") in a /proc/<pid>/status text.
std::string StatusField(const std::string& status, const std::string& name) {
  std::istringstream in(status);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + ":", 0) == 0) {
      std::string value = line.substr(name.size() + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return "";
}

// Reads CapEff from /proc/self/status: no libcap needed.
bool HasEffectiveCapability(int capability) {
  std::ifstream in("/proc/self/status");
  std::string status((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const unsigned long long effective = std::stoull(StatusField(status, "CapEff"), nullptr, 16);
  return (effective >> capability) & 1u;
}

// Our own identity as a RunAs: running as it changes no id.
RunAs Myself() {
  RunAs self;
  self.user = "self";
  self.uid = ::getuid();
  self.gid = ::getgid();
  const int count = ::getgroups(0, nullptr);
  self.groups.resize(static_cast<std::size_t>(std::max(count, 0)));
  if (count > 0)
    self.groups.resize(static_cast<std::size_t>(::getgroups(count, self.groups.data())));
  return self;
}

// A scratch directory that every user may enter (0755), removed at the end
// of the test: paths under it exist, or provably do not, whatever the machine.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "bplace_run_as_XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr && ::chmod(pattern.c_str(), 0755) == 0) {
      path_ = pattern;
    }
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// True when `pid` no longer runs: gone, or a zombie waiting for its new
// parent (init, which in a container may never reap it).
bool IsDead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  return !std::getline(stat, line) || line.find(") Z") != std::string::npos;
}

// True once `pid` is dead (IsDead). It is not our child, so we wait on its
// pidfd, readable once it exited; `limit` only bounds a failure. Kernels
// before 5.3 have no pidfd_open: there /proc is polled instead.
bool BecomesDead(pid_t pid, std::chrono::milliseconds limit = 5s) {
  const long pidfd = ::syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0 && errno == ENOSYS) {
    const auto deadline = Clock::now() + limit;
    while (!IsDead(pid) && Clock::now() < deadline) std::this_thread::sleep_for(2ms);
    return IsDead(pid);
  }
  if (pidfd < 0) return errno == ESRCH;  // gone already
  const UniqueFd fd(static_cast<int>(pidfd));
  pollfd exited{.fd = fd.Get(), .events = POLLIN, .revents = 0};
  int ready;
  do {
    ready = ::poll(&exited, 1, static_cast<int>(limit.count()));
  } while (ready < 0 && errno == EINTR);
  return ready == 1;
}

// Runs the current test again in a fresh process of this binary, as `run_as`
// (if set) and under `prefix` (a command such as setpriv that execs the
// rest), with kRerunVariable set; expects it to pass rather than skip.
void RerunThisTest(const std::vector<std::string>& prefix, std::optional<RunAs> run_as) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  ASSERT_FALSE(ec) << ec.message();
  std::vector<std::string> argv = prefix;
  argv.push_back(self);
  argv.push_back(std::string("--gtest_filter=") + info->test_suite_name() + "." + info->name());
  CommandSpec spec = Spec(argv, std::move(run_as), 60s);
  spec.env.push_back(std::string(kRerunVariable) + "=1");
  if (const char* asan = std::getenv("ASAN_OPTIONS")) {
    spec.env.push_back(std::string("ASAN_OPTIONS=") + asan);
  }
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0) << result->out << result->err;
  EXPECT_NE(result->out.find("[  PASSED  ] 1 test"), std::string::npos) << result->out;
  EXPECT_EQ(result->out.find("[  SKIPPED ]"), std::string::npos) << result->out;
}

// Runs tests as alice (and bob), which needs root and tools/test-users.sh.
class RunAsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to change user ids";
    Result<UserIdentity> alice = LookupUserByName("alice");
    if (!alice) GTEST_SKIP() << "needs user alice: run tools/test-users.sh as root";
    alice_ = *alice;
  }

  void TearDown() override {
    // Every child, including those that failed before exec, was reaped.
    int status = 0;
    errno = 0;
    EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1);
    EXPECT_EQ(errno, ECHILD) << "a child of the test process was not reaped";
  }

  UserIdentity alice_;
};

TEST_F(RunAsTest, ChildHasTheUsersIdsAndGroups) {
  const RunAs run_as = RunAsFor(alice_);
  Result<CommandResult> uid = RunOnce(Spec({"/usr/bin/id", "-u"}, run_as));
  Result<CommandResult> gid = RunOnce(Spec({"/usr/bin/id", "-g"}, run_as));
  Result<CommandResult> groups = RunOnce(Spec({"/usr/bin/id", "-G"}, run_as));
  ASSERT_TRUE(uid) << uid.error().message;
  ASSERT_TRUE(gid) << gid.error().message;
  ASSERT_TRUE(groups) << groups.error().message;
  EXPECT_EQ(uid->out, std::to_string(alice_.uid) + "\n") << uid->err;
  EXPECT_EQ(gid->out, std::to_string(alice_.gid) + "\n") << gid->err;
  EXPECT_EQ(ParseIds(groups->out), std::set<gid_t>(alice_.groups.begin(), alice_.groups.end()));
  EXPECT_EQ(ParseIds(groups->out).count(0), 0u) << "root's group leaked: " << groups->out;
  // test-users.sh puts alice in the shared group: supplementary groups work.
  const struct group* shared = ::getgrnam("bplace-test");
  if (shared != nullptr) {
    EXPECT_EQ(ParseIds(groups->out).count(shared->gr_gid), 1u);
  }
}

TEST_F(RunAsTest, RealEffectiveAndSavedIdsChangeAndNoCapabilityRemains) {
  Result<CommandResult> result = RunOnce(Spec({"/bin/cat", "/proc/self/status"}, RunAsFor(alice_)));
  ASSERT_TRUE(result) << result.error().message;
  const std::string uid = std::to_string(alice_.uid);
  const std::string gid = std::to_string(alice_.gid);
  EXPECT_EQ(StatusField(result->out, "Uid"), uid + "\t" + uid + "\t" + uid + "\t" + uid);
  EXPECT_EQ(StatusField(result->out, "Gid"), gid + "\t" + gid + "\t" + gid + "\t" + gid);
  EXPECT_EQ(StatusField(result->out, "CapPrm"), "0000000000000000");
  EXPECT_EQ(StatusField(result->out, "CapEff"), "0000000000000000");
}

TEST_F(RunAsTest, ChildCannotBecomeRootAgain) {
  Result<CommandResult> result = RunOnce(Spec(
      {"sh", "-c", "exec setpriv --reuid=0 --regid=0 --clear-groups id -u"}, RunAsFor(alice_)));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_NE(result->exit_code, 0) << result->out;
  EXPECT_EQ(result->out, "");
  EXPECT_NE(result->err.find("setpriv"), std::string::npos) << result->err;
}

TEST_F(RunAsTest, EnvironmentIsExactlyTheSpecs) {
  CommandSpec spec = Spec({"/usr/bin/env"}, RunAsFor(alice_));
  spec.env = {"PATH=/nonexistent", "A=1", "B=two words", "EMPTY="};
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_TRUE(result) << result.error().message;
  // Nothing of ours (HOME=/root, USER=root) and nothing added for alice.
  EXPECT_EQ(result->out, "PATH=/nonexistent\nA=1\nB=two words\nEMPTY=\n");
}

TEST_F(RunAsTest, StartsInTheWorkDir) {
  RunAs run_as = RunAsFor(alice_);
  ASSERT_EQ(run_as.work_dir, alice_.home) << "test-users.sh creates the home directory";
  Result<CommandResult> in_home = RunOnce(Spec({"/bin/pwd"}, run_as));
  ASSERT_TRUE(in_home) << in_home.error().message;
  EXPECT_EQ(in_home->out, alice_.home + "\n");

  run_as.work_dir = "";
  Result<CommandResult> in_root = RunOnce(Spec({"/bin/pwd"}, run_as));
  ASSERT_TRUE(in_root) << in_root.error().message;
  EXPECT_EQ(in_root->out, "/\n");
}

TEST_F(RunAsTest, MissingWorkDirFailsNamingChdir) {
  ScratchDir scratch;
  ASSERT_FALSE(scratch.path().empty());
  RunAs run_as = RunAsFor(alice_);
  run_as.work_dir = scratch.path() + "/missing";
  Result<CommandResult> result = RunOnce(Spec({"/bin/pwd"}, run_as));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kCommandFailed);
  EXPECT_EQ(result.error().message.rfind("chdir: No such file or directory", 0), 0u)
      << result.error().message;
  EXPECT_NE(result.error().message.find("alice"), std::string::npos) << result.error().message;
}

TEST_F(RunAsTest, WorkDirTheUserCannotEnterFailsNamingChdir) {
  // Root may enter it, alice may not: chdir happens after the drop.
  char pattern[] = "/tmp/bplace_run_as_XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  RunAs run_as = RunAsFor(alice_);
  run_as.work_dir = dir;
  Result<CommandResult> result = RunOnce(Spec({"/bin/pwd"}, run_as));
  ::rmdir(dir.c_str());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message.rfind("chdir: Permission denied", 0), 0u)
      << result.error().message;
}

TEST_F(RunAsTest, ExecFailureAfterTheDropIsReported) {
  ScratchDir scratch;
  ASSERT_FALSE(scratch.path().empty());
  const std::string missing = scratch.path() + "/bsub";
  Result<CommandResult> result = RunOnce(Spec({missing}, RunAsFor(alice_)));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kCommandFailed);
  EXPECT_EQ(result.error().message.rfind("execve " + missing + ": No such file or directory", 0),
            0u)
      << result.error().message;
}

TEST_F(RunAsTest, FeedsStdinAndSeparatesStreams) {
  CommandSpec spec = Spec({"sh", "-c", "cat; echo err >&2"}, RunAsFor(alice_));
  spec.stdin_data = std::string(1 << 20, 'x');
  Result<CommandResult> result = RunOnce(spec);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->out.size(), std::size_t{1} << 20);
  EXPECT_EQ(result->err, "err\n");
}

TEST_F(RunAsTest, TimeoutKillsTheWholeProcessGroup) {
  const auto started = Clock::now();
  Result<CommandResult> result =
      RunOnce(Spec({"sh", "-c", "sleep 100 & echo $!; sleep 100"}, RunAsFor(alice_), 300ms));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->term_signal, SIGKILL);
  // Killed at the timeout, not after `sleep 100`: a bound 10x the timeout.
  EXPECT_LT(Clock::now() - started, 3s);
  const pid_t grandchild = std::atoi(result->out.c_str());
  ASSERT_GT(grandchild, 0) << result->out;
  // The group kill reached it too.
  EXPECT_TRUE(BecomesDead(grandchild)) << "grandchild " << grandchild << " survived";
}

TEST_F(RunAsTest, RunsTwoUsersConcurrently) {
  Result<UserIdentity> bob = LookupUserByName("bob");
  if (!bob) GTEST_SKIP() << "needs user bob: run tools/test-users.sh as root";
  boost::asio::io_context io;
  SubprocessCommandRunner runner(io.get_executor());
  std::vector<std::string> outs;
  for (int i = 0; i < 10; ++i) {
    const UserIdentity& user = i % 2 == 0 ? alice_ : *bob;
    runner.Run(Spec({"/usr/bin/id", "-un"}, RunAsFor(user)), [&outs](Result<CommandResult> r) {
      outs.push_back(r ? r->out : r.error().message);
    });
  }
  io.run_for(30s);
  ASSERT_EQ(outs.size(), 10u);
  EXPECT_EQ(std::count(outs.begin(), outs.end(), "alice\n"), 5);
  EXPECT_EQ(std::count(outs.begin(), outs.end(), "bob\n"), 5);
}

// Needs no privilege: nothing changes, so nothing is asked of the kernel.
TEST(RunAsSelfTest, RunningAsOurselvesNeedsNoPrivilege) {
  Result<CommandResult> result = RunOnce(Spec({"/usr/bin/id", "-u"}, Myself()));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->out, std::to_string(::getuid()) + "\n");
}

// Without CAP_SETGID (any ordinary user) another uid is refused at
// setgroups: the command never runs as ourselves instead. As root, the test
// re-runs itself as alice to get there.
TEST(RunAsWithoutPrivilegeTest, AnotherUserIsRefusedNamingTheCall) {
  if (::geteuid() == 0 && !IsRerun() && HasEffectiveCapability(CAP_SETUID)) {
    Result<UserIdentity> alice = LookupUserByName("alice");
    if (!alice) GTEST_SKIP() << "needs user alice to re-run unprivileged: run tools/test-users.sh";
    RerunThisTest({}, RunAsFor(*alice));
    return;
  }
  if (HasEffectiveCapability(CAP_SETGID)) GTEST_SKIP() << "has CAP_SETGID: setgroups would succeed";
  RunAs other;
  other.user = "someone-else";
  other.uid = ::getuid() == 0 ? 65534 : 0;
  other.gid = other.uid;
  other.groups = {other.gid};
  const std::string marker = "ran-as-" + std::to_string(::getuid());
  Result<CommandResult> result = RunOnce(Spec({"/bin/echo", marker}, other));
  ASSERT_FALSE(result) << "ran anyway: " << result->out;
  EXPECT_EQ(result.error().code, ErrorCode::kCommandFailed);
  EXPECT_EQ(result.error().message.rfind("setgroups: Operation not permitted", 0), 0u)
      << result.error().message;
}

// A process that may change groups but not its uid fails at setresuid, the
// step that matters, rather than run the command as root. Root sets that up
// by re-running the test without CAP_SETUID (setpriv drops it from the
// bounding and inheritable sets, so the exec'ed test binary lacks it).
TEST(RunAsWithoutPrivilegeTest, MissingCapSetuidIsRefusedAtSetresuid) {
  if (HasEffectiveCapability(CAP_SETUID)) {
    if (IsRerun()) FAIL() << "setpriv left CAP_SETUID in place";
    if (::geteuid() != 0) GTEST_SKIP() << "has CAP_SETUID without being root";
    if (!LookupUserByName("alice")) GTEST_SKIP() << "needs user alice: run tools/test-users.sh";
    if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv (util-linux)";
    RerunThisTest({"/usr/bin/setpriv", "--bounding-set=-setuid", "--inh-caps=-setuid"},
                  std::nullopt);
    return;
  }
  if (!HasEffectiveCapability(CAP_SETGID)) GTEST_SKIP() << "needs CAP_SETGID without CAP_SETUID";
  Result<UserIdentity> alice = LookupUserByName("alice");
  ASSERT_TRUE(alice) << alice.error().message;
  Result<CommandResult> result = RunOnce(Spec({"/usr/bin/id", "-u"}, RunAsFor(*alice)));
  ASSERT_FALSE(result) << "ran anyway: " << result->out;
  EXPECT_EQ(result.error().code, ErrorCode::kCommandFailed);
  EXPECT_EQ(result.error().message.rfind("setresuid: Operation not permitted", 0), 0u)
      << result.error().message;
}

}  // namespace
}  // namespace bplace::lsf
