// Several users sharing one simulator state directory, as the daemon uses it
// in multi-user mode (it runs as root and runs bsub as each caller). Needs
// root, setpriv and the users of tools/test-users.sh (alice, bob); skips
// without them.

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/lsfsim/sim_fixture.h"

namespace bplace::lsfsim::testing {
namespace {

constexpr const char* kSharedCluster = R"toml(
[cluster]
name = "shared"
master = "hostm"
admins = ["lsfadmin"]

[[host]]
name = "node[01-02]"
max = 8

[[host_group]]
name = "hg_nodes"
members = ["node[01-02]"]

[[user_group]]
name = "ug_test"
members = ["alice", "bob"]

[[queue]]
name = "normal"
priority = 30
default = true

[[queue]]
name = "alice_only"
priority = 40
users = "alice"
)toml";

class MultiUserTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    if (!CanRunAs("alice") || !CanRunAs("bob")) {
      GTEST_SKIP() << "needs root, /usr/bin/setpriv and users alice and bob: run "
                      "tools/test-users.sh as root";
    }
    Init(kSharedCluster);
  }

  // Expects a successful bsub and returns its job id.
  long long Submit(const std::string& user, const std::vector<std::string>& args) {
    ProcessResult r = LsfAs(user, "bsub", args);
    EXPECT_EQ(r.exit_code, 0) << user << ": " << r.err;
    const size_t open = r.out.find('<');
    return open == std::string::npos ? 0 : std::atoll(r.out.c_str() + open + 1);
  }

  // The USER column of `bjobs -w -u all` (root runs it), one per job.
  std::vector<std::string> Owners() {
    ProcessResult r = Lsf("bjobs", {"-u", "all", "-o", "jobid user", "-json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> owners;
    nlohmann::json parsed = nlohmann::json::parse(r.out, nullptr, false);
    if (parsed.is_discarded()) {
      ADD_FAILURE() << "bjobs -json printed: " << r.out;
      return owners;
    }
    for (const auto& record : parsed.value("RECORDS", nlohmann::json::array())) {
      owners.push_back(record.value("USER", ""));
    }
    return owners;
  }
};

TEST_F(MultiUserTest, EachJobBelongsToTheUserWhoSubmittedIt) {
  Submit("alice", {"-J", "a1", "sleep", "1"});
  Submit("bob", {"-J", "b1", "sleep", "1"});
  Submit("alice", {"-q", "alice_only", "sleep", "2"});
  EXPECT_EQ(Owners(), (std::vector<std::string>{"alice", "alice", "bob"}));

  ProcessResult all = Lsf("bjobs", {"-w", "-u", "all"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find(" alice "), std::string::npos) << all.out;
  EXPECT_NE(all.out.find(" bob "), std::string::npos) << all.out;

  // Without -u, bjobs shows the caller's own jobs, as LSF does.
  ProcessResult mine = LsfAs("bob", "bjobs", {"-w"});
  ASSERT_EQ(mine.exit_code, 0) << mine.err;
  EXPECT_NE(mine.out.find(" bob "), std::string::npos) << mine.out;
  EXPECT_EQ(mine.out.find(" alice "), std::string::npos) << mine.out;
}

TEST_F(MultiUserTest, UsersMayNotKillEachOthersJobs) {
  const long long job = Submit("alice", {"sleep", "1"});
  ASSERT_GT(job, 0);
  const std::string id = std::to_string(job);
  ProcessResult by_bob = LsfAs("bob", "bkill", {id});
  EXPECT_EQ(by_bob.exit_code, 255);
  EXPECT_EQ(by_bob.err, "Job <" + id + ">: User permission denied\n");
  ProcessResult by_alice = LsfAs("alice", "bkill", {id});
  EXPECT_EQ(by_alice.exit_code, 0) << by_alice.err;
}

TEST_F(MultiUserTest, QueueAccessIsJudgedForTheRealCaller) {
  ProcessResult as_alice = LsfAs("alice", "bqueues", {"-u", "alice", "-w"});
  ASSERT_EQ(as_alice.exit_code, 0) << as_alice.err;
  EXPECT_NE(as_alice.out.find("alice_only"), std::string::npos) << as_alice.out;
  ProcessResult for_bob = LsfAs("alice", "bqueues", {"-u", "bob", "-w"});
  ASSERT_EQ(for_bob.exit_code, 0) << for_bob.err;
  EXPECT_EQ(for_bob.out.find("alice_only"), std::string::npos) << for_bob.out;

  ProcessResult refused = LsfAs("bob", "bsub", {"-q", "alice_only", "sleep", "1"});
  EXPECT_EQ(refused.exit_code, 255);
  EXPECT_EQ(refused.err, "alice_only: User cannot use the queue. Job not submitted.\n");
  for (const char* command : {"bhosts", "lsid", "bmgroup", "bugroup"}) {
    ProcessResult r = LsfAs("bob", command, {});
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
  }
}

TEST_F(MultiUserTest, StateStaysUsableWhateverTheCallersUmask) {
  // alice submits with umask 077 (pam_umask on some sites): the files she
  // rewrites must stay readable, or bob's next command would fail.
  ProcessResult r = RunProcess("/usr/bin/setpriv",
                               {"--reuid=alice", "--regid=alice", "--init-groups", "/bin/sh", "-c",
                                "umask 077 && exec \"$0\" sleep 1", BinDir() + "/bsub"},
                               {{"LSF_ENVDIR", dir_}, {"LSFSIM_NOW", kNow}, {"TZ", "UTC"}}, "",
                               std::chrono::seconds(10));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"jobs.json", "counts.json", "lsfsim.lock"}) {
    struct stat st {};
    ASSERT_EQ(::stat((dir_ + "/" + file).c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0777, 0644u) << file;
  }
  Submit("bob", {"sleep", "1"});
  EXPECT_EQ(Owners(), (std::vector<std::string>{"alice", "bob"}));
  // Root's control subcommands still work on files the users wrote.
  ProcessResult scheduled = Sim({"schedule"});
  EXPECT_EQ(scheduled.exit_code, 0) << scheduled.err;
}

TEST_F(MultiUserTest, ConcurrentSubmissionsByTwoUsersKeepEveryJob) {
  std::vector<std::thread> threads;
  std::vector<ProcessResult> results(20);
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([this, i, &results] {
      // Generous: the bsubs queue on one lock (see JobsTest).
      results[i] =
          LsfAs(i % 2 == 0 ? "alice" : "bob", "bsub", {"sleep", "1"}, "", std::chrono::seconds(60));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const ProcessResult& r : results) EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> owners = Owners();
  EXPECT_EQ(owners.size(), 20u);
  EXPECT_EQ(std::count(owners.begin(), owners.end(), "alice"), 10);
  EXPECT_EQ(std::count(owners.begin(), owners.end(), "bob"), 10);
}

}  // namespace
}  // namespace bplace::lsfsim::testing
