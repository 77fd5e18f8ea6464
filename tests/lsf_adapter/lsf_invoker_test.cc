// LsfInvoker (lsf_adapter/lsf_invoker.h): the command specs of LSF commands,
// above all the environment their children get, and RunAsFor. Pure but for
// RunAsFor's stat of the home directory, which uses scratch directories.

#include "lsf_adapter/lsf_invoker.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

namespace bplace::lsf {
namespace {

using namespace std::chrono_literals;
using Env = std::vector<std::string>;

constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

// The entries of `env` whose name is `name`.
Env Entries(const Env& env, const std::string& name) {
  Env found;
  for (const std::string& entry : env) {
    if (entry.rfind(name + "=", 0) == 0) found.push_back(entry);
  }
  return found;
}

// A directory of our own, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "bplace_invoker_XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
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

identity::UserIdentity Alice(std::string home) {
  return identity::UserIdentity{
      .name = "alice", .uid = 1001, .gid = 1002, .home = std::move(home), .groups = {1002, 1001}};
}

TEST(LsfInvokerTest, KeepsUserLocaleAndLsfVariablesOfTheParentInOrder) {
  const Env parent = {"HOME=/root",
                      "USER=root",
                      "LOGNAME=root",
                      "LANG=C.UTF-8",
                      "LC_ALL=C",
                      "LC_NUMERIC=de_DE.UTF-8",
                      "TZ=UTC",
                      "LSF_SERVERDIR=/sd",
                      "LSB_DEFAULTQUEUE=normal",
                      "LSF_LOGDIR=/var/log"};
  const LsfInvoker invoker("/opt/lsf/bin", "/etc/lsf", 5s, parent);
  Env expected = parent;
  expected.push_back(std::string("PATH=/opt/lsf/bin:") + kDefaultPath);
  expected.push_back("LSF_ENVDIR=/etc/lsf");
  EXPECT_EQ(invoker.env(), expected);
}

TEST(LsfInvokerTest, CallerEnvironmentIsTheCallersWithTheDaemonsCluster) {
  const LsfInvoker invoker("/opt/lsf/bin", "/etc/lsf", 5s, {});
  const Env env = invoker.CallerEnvironment(
      "bsub", {"PATH=/home/a/bin", "LSF_ENVDIR=/elsewhere", "LSB_NTRIES=3", "X=1"});
  EXPECT_EQ(env, (Env{"PATH=/home/a/bin", "X=1", "LSF_ENVDIR=/etc/lsf", "LSB_NTRIES=1"}));
  // Without an env dir of its own the daemon leaves the caller's.
  const LsfInvoker bare("", "", 5s, {});
  EXPECT_EQ(bare.CallerEnvironment("bjobs", {"LSF_ENVDIR=/x"}), (Env{"LSF_ENVDIR=/x"}));
}

TEST(LsfInvokerTest, RunAsSelfHasOurIdsTheDirectoryAndTheMask) {
  const RunAs self = RunAsSelf("/tmp", 022);
  EXPECT_EQ(self.uid, ::getuid());
  EXPECT_EQ(self.gid, ::getgid());
  EXPECT_EQ(self.work_dir, "/tmp");
  EXPECT_EQ(self.umask, std::optional<mode_t>(022));
}

TEST(LsfInvokerTest, DropsEveryOtherVariableOfTheParent) {
  // Names that merely start like a kept one are not kept.
  const Env parent = {"SHELL=/bin/bash",
                      "LD_PRELOAD=/tmp/x.so",
                      "BASH_ENV=/tmp/rc",
                      "PWD=/",
                      "HOMEDIR=/h",
                      "USERNAME=u",
                      "LOGNAME_X=l",
                      "LANGUAGE=de",
                      "TZDIR=/tz",
                      "LSFX=1",
                      "LSBX=1",
                      "LC=1",
                      "IFS=x",
                      "MALLOC_ARENA_MAX=2"};
  const LsfInvoker invoker("", "", 5s, parent);
  EXPECT_EQ(invoker.env(), (Env{std::string("PATH=") + kDefaultPath}));
}

TEST(LsfInvokerTest, DropsTheOutputFormatOverrides) {
  // They would change the layouts the parsers read (docs/lsf-formats.md
  // "Rules for every parser", 4).
  const Env parent = {"LSB_BQUEUES_FORMAT=name status", "LSB_BJOBS_FORMAT=jobid stat",
                      "LSB_BHOSTS_FORMAT=host_name", "LSB_DEFAULTQUEUE=normal"};
  const LsfInvoker invoker("", "", 5s, parent);
  EXPECT_EQ(invoker.env(), (Env{"LSB_DEFAULTQUEUE=normal", std::string("PATH=") + kDefaultPath}));
}

// Kept by the implementation although the header's list does not name it;
// pinned so that changing it is a decision.
TEST(LsfInvokerTest, KeepsLdLibraryPath) {
  const LsfInvoker invoker("", "", 5s, {"LD_LIBRARY_PATH=/opt/lsf/lib"});
  EXPECT_EQ(Entries(invoker.env(), "LD_LIBRARY_PATH"), (Env{"LD_LIBRARY_PATH=/opt/lsf/lib"}));
}

TEST(LsfInvokerTest, PathHasTheBinDirFirstAndIgnoresTheParentsPath) {
  const LsfInvoker invoker("/opt/lsf/bin", "", 5s, {"PATH=/home/u/bin:/usr/bin"});
  EXPECT_EQ(Entries(invoker.env(), "PATH"),
            (Env{std::string("PATH=/opt/lsf/bin:") + kDefaultPath}));
}

TEST(LsfInvokerTest, WithoutABinDirCommandsAreLookedUpInTheDefaultPath) {
  const LsfInvoker invoker("", "", 5s, {"PATH=/home/u/bin"});
  EXPECT_EQ(Entries(invoker.env(), "PATH"), (Env{std::string("PATH=") + kDefaultPath}));
  EXPECT_EQ(invoker.Path("bqueues"), "bqueues");
  EXPECT_EQ(invoker.Spec("bqueues", {}).argv, (Env{"bqueues"}));
}

TEST(LsfInvokerTest, WithoutABinDirFallsBackToTheParentsLsfBindir) {
  const LsfInvoker invoker("", "", 5s, {"LSF_BINDIR=/opt/lsf/10.1/bin"});
  EXPECT_EQ(invoker.Path("bqueues"), "/opt/lsf/10.1/bin/bqueues");
  EXPECT_EQ(Entries(invoker.env(), "PATH"),
            (Env{std::string("PATH=/opt/lsf/10.1/bin:") + kDefaultPath}));
  // LSF_BINDIR itself is an LSF_* variable like any other.
  EXPECT_EQ(Entries(invoker.env(), "LSF_BINDIR"), (Env{"LSF_BINDIR=/opt/lsf/10.1/bin"}));
}

TEST(LsfInvokerTest, AGivenBinDirWinsOverLsfBindir) {
  const LsfInvoker invoker("/site/bin", "", 5s, {"LSF_BINDIR=/opt/lsf/10.1/bin"});
  EXPECT_EQ(invoker.Path("bjobs"), "/site/bin/bjobs");
  EXPECT_EQ(Entries(invoker.env(), "PATH"), (Env{std::string("PATH=/site/bin:") + kDefaultPath}));
}

TEST(LsfInvokerTest, LsfEnvdirComesFromEnvDirOverTheParents) {
  const LsfInvoker invoker("", "/etc/lsf", 5s, {"LSF_ENVDIR=/other/conf"});
  EXPECT_EQ(Entries(invoker.env(), "LSF_ENVDIR"), (Env{"LSF_ENVDIR=/etc/lsf"}));
}

TEST(LsfInvokerTest, LsfEnvdirIsInheritedWhenEnvDirIsEmpty) {
  const LsfInvoker invoker("", "", 5s, {"LSF_ENVDIR=/opt/lsf/conf"});
  EXPECT_EQ(Entries(invoker.env(), "LSF_ENVDIR"), (Env{"LSF_ENVDIR=/opt/lsf/conf"}));
}

TEST(LsfInvokerTest, NoLsfEnvdirWhenNeitherGivesOne) {
  const LsfInvoker invoker("/opt/lsf/bin", "", 5s, {"HOME=/root"});
  EXPECT_TRUE(Entries(invoker.env(), "LSF_ENVDIR").empty());
}

TEST(LsfInvokerTest, PathIsTheBinDirAndTheCommandOrTheBareName) {
  EXPECT_EQ(LsfInvoker("/opt/lsf/bin", "", 5s, {}).Path("bsub"), "/opt/lsf/bin/bsub");
  EXPECT_EQ(LsfInvoker("", "", 5s, {}).Path("bsub"), "bsub");
}

TEST(LsfInvokerTest, SpecRunsThePathWithArgsEnvStdinAndTimeout) {
  const LsfInvoker invoker("/opt/lsf/bin", "/etc/lsf", 1500ms, {"LSB_DEFAULTQUEUE=normal"});
  EXPECT_EQ(invoker.timeout(), 1500ms);
  const CommandSpec spec = invoker.Spec("bsub", {"-q", "normal", "sleep 1"}, "#BSUB -J x\n");
  EXPECT_EQ(spec.argv, (Env{"/opt/lsf/bin/bsub", "-q", "normal", "sleep 1"}));
  Env expected = invoker.env();
  expected.push_back("LSB_NTRIES=1");  // bsub's rule (ApplyCommandRules)
  EXPECT_EQ(spec.env, expected);
  EXPECT_EQ(spec.stdin_data, std::optional<std::string>("#BSUB -J x\n"));
  EXPECT_EQ(spec.timeout, 1500ms);
  EXPECT_FALSE(spec.run_as);

  const CommandSpec no_stdin = invoker.Spec("bqueues", {"-w"});
  EXPECT_EQ(no_stdin.argv, (Env{"/opt/lsf/bin/bqueues", "-w"}));
  EXPECT_FALSE(no_stdin.stdin_data);
}

TEST(LsfInvokerTest, SpecAsGivesOnlyTheUsersVariablesPathAndLsfEnvdir) {
  ScratchDir home;
  ASSERT_FALSE(home.path().empty());
  const Env parent = {"HOME=/root",
                      "USER=root",
                      "LANG=C",
                      "LSB_DEFAULTQUEUE=normal",
                      "LD_LIBRARY_PATH=/opt/lsf/lib",
                      "LSF_BINDIR=/opt/lsf/bin"};
  const LsfInvoker invoker("", "/etc/lsf", 1500ms, parent);
  const CommandSpec spec = invoker.SpecAs(Alice(home.path()), "bsub", {"-q", "normal"}, "script");
  EXPECT_EQ(spec.env, (Env{"HOME=" + home.path(), "USER=alice", "LOGNAME=alice",
                           std::string("PATH=/opt/lsf/bin:") + kDefaultPath, "LSF_ENVDIR=/etc/lsf",
                           "LSB_NTRIES=1"}));
  EXPECT_EQ(spec.argv, (Env{"/opt/lsf/bin/bsub", "-q", "normal"}));
  EXPECT_EQ(spec.stdin_data, std::optional<std::string>("script"));
  EXPECT_EQ(spec.timeout, 1500ms);
}

TEST(LsfInvokerTest, BsubAlwaysGetsOneTryOtherCommandsKeepTheSitesSetting) {
  // Without it, a job refused by a pending-job threshold would be retried
  // every SUB_TRY_INTERVAL until bsub's timeout.
  const LsfInvoker invoker("", "", 5s, {"LSB_NTRIES=5", "LSF_ENVDIR=/etc/lsf"});
  EXPECT_EQ(Entries(invoker.Spec("bsub", {}).env, "LSB_NTRIES"), (Env{"LSB_NTRIES=1"}));
  EXPECT_EQ(Entries(invoker.Spec("bqueues", {}).env, "LSB_NTRIES"), (Env{"LSB_NTRIES=5"}));
  EXPECT_EQ(Entries(invoker.SpecAs(Alice("/"), "bsub", {}).env, "LSB_NTRIES"),
            (Env{"LSB_NTRIES=1"}));
  EXPECT_TRUE(Entries(invoker.SpecAs(Alice("/"), "bjobs", {}).env, "LSB_NTRIES").empty());
}

TEST(LsfInvokerTest, SpecAsLeavesLsfEnvdirOutWhenThereIsNone) {
  const LsfInvoker invoker("/opt/lsf/bin", "", 5s, {"HOME=/root"});
  const CommandSpec spec = invoker.SpecAs(Alice("/"), "bjobs", {});
  EXPECT_EQ(spec.env, (Env{"HOME=/", "USER=alice", "LOGNAME=alice",
                           std::string("PATH=/opt/lsf/bin:") + kDefaultPath}));
  EXPECT_FALSE(spec.stdin_data);
}

TEST(LsfInvokerTest, SpecAsDropsToTheUserAndStartsInTheirHomeOrRoot) {
  ScratchDir home;
  ASSERT_FALSE(home.path().empty());
  const LsfInvoker invoker("", "", 5s, {});
  const CommandSpec spec = invoker.SpecAs(Alice(home.path()), "bsub", {});
  ASSERT_TRUE(spec.run_as);
  EXPECT_EQ(spec.run_as->user, "alice");
  EXPECT_EQ(spec.run_as->uid, 1001u);
  EXPECT_EQ(spec.run_as->gid, 1002u);
  EXPECT_EQ(spec.run_as->groups, (std::vector<gid_t>{1002, 1001}));
  EXPECT_EQ(spec.run_as->work_dir, home.path());

  // HOME stays what the passwd database says even where the child cannot
  // start in it.
  const std::string missing = home.path() + "/missing";
  const CommandSpec homeless = invoker.SpecAs(Alice(missing), "bsub", {});
  ASSERT_TRUE(homeless.run_as);
  EXPECT_EQ(homeless.run_as->work_dir, "/");
  EXPECT_EQ(Entries(homeless.env, "HOME"), (Env{"HOME=" + missing}));
}

TEST(RunAsForTest, UsesHomeOnlyWhenItIsADirectory) {
  ScratchDir scratch;
  ASSERT_FALSE(scratch.path().empty());
  identity::UserIdentity user{
      .name = "u", .uid = 1234, .gid = 1235, .home = scratch.path(), .groups = {1235, 7}};
  RunAs run_as = RunAsFor(user);
  EXPECT_EQ(run_as.user, "u");
  EXPECT_EQ(run_as.uid, 1234u);
  EXPECT_EQ(run_as.gid, 1235u);
  EXPECT_EQ(run_as.groups, (std::vector<gid_t>{1235, 7}));
  EXPECT_EQ(run_as.work_dir, user.home);

  user.home = scratch.path() + "/no/such/home";
  EXPECT_EQ(RunAsFor(user).work_dir, "/");
  user.home = scratch.path() + "/file";  // exists, not a directory
  std::ofstream(user.home) << "x";
  ASSERT_TRUE(std::filesystem::is_regular_file(user.home));
  EXPECT_EQ(RunAsFor(user).work_dir, "/");
  user.home = "";
  EXPECT_EQ(RunAsFor(user).work_dir, "/");
}

TEST(CurrentEnvironmentTest, ReturnsTheProcessEnvironment) {
  ASSERT_EQ(::setenv("BPLACE_INVOKER_TEST", "a=b c", 1), 0);
  const Env env = CurrentEnvironment();
  EXPECT_EQ(Entries(env, "BPLACE_INVOKER_TEST"), (Env{"BPLACE_INVOKER_TEST=a=b c"}));
  std::size_t count = 0;
  for (char** entry = environ; *entry != nullptr; ++entry) ++count;
  EXPECT_EQ(env.size(), count);
  ::unsetenv("BPLACE_INVOKER_TEST");
}

}  // namespace
}  // namespace bplace::lsf
