// bjobs lists through the front door (docs/lsf-front-door.md "bjobs lists")
// against the real bplaced and the LSF simulator: for every list form
// engines use, the daemon's answer is the simulator's bjobs byte for byte
// (jobs submitted through bplace and straight to LSF, the caller's and
// another user's), and list-polling callers cost mbatchd the jobs tier's
// one list per interval.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class BjobsListTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sim_ = std::make_unique<SimCluster>(DEMO_CLUSTER);
    DaemonSettings settings;
    settings.jobs_refresh_s = 1;
    settings.load_refresh_s = 1;
    settings.auth_config = "job_visibility = \"all\"";
    fs::permissions(sim_->dir(), fs::perms::all, fs::perm_options::add);
    daemon_ = std::make_unique<DaemonProcess>(*sim_, settings);
  }
  static void TearDownTestSuite() {
    daemon_.reset();
    sim_.reset();
  }

  // The daemon's answer to `bjobs ARGS` for the harness's token (the
  // service user).
  static json Route(const std::vector<std::string>& args) {
    return daemon_->Post("/v1/lsf/bjobs", json{{"argv", args}}.dump()).Json();
  }

  // The simulator's LSF command `args` run as the service user (the
  // caller the daemon answers for).
  static ProcessOutput LsfAsCaller(std::vector<std::string> args) {
    args[0] = std::string(LSFSIM_BIN_DIR) + "/" + args[0];
    return RunProcessAs(daemon_->service_user(), args,
                        {{"LSF_ENVDIR", (sim_->dir() / "lsf").string()}});
  }

  static std::string JobIdOf(const std::string& bsub_out) {
    std::smatch match;
    const std::regex line(R"(^Job <(\d+)> is submitted to (default )?queue <[^>]+>\.\n$)");
    return std::regex_match(bsub_out, match, line) ? match[1].str() : "";
  }

  // Submits through bplace (the front door's route) as the service user.
  static std::string SubmitThroughBplace(const std::vector<std::string>& args) {
    json body{{"argv", args}, {"cwd", sim_->dir().string()}};
    const json answer = daemon_->Post("/v1/lsf/bsub", body.dump()).Json();
    const std::string id = JobIdOf(answer.value("stdout", ""));
    EXPECT_FALSE(id.empty()) << answer.dump();
    return id;
  }

  // Waits (long polls, no sleep) for one more run of the jobs tier.
  static void NextRefresh() { daemon_->Call("GET", "/v1/jobs?wait_s=5"); }

  // The daemon's answer to `form` once the view holds what the simulator
  // holds now (the view is at most one jobs interval behind), or the last
  // answer after the deadline.
  static json Converged(const std::vector<std::string>& form, const ProcessOutput& real) {
    json answer;
    for (int i = 0; i < 10; ++i) {
      answer = Route(form);
      if (answer.value("stdout", "~") == real.out && answer.value("stderr", "~") == real.err &&
          answer.value("exit_code", -1) == real.exit_code) {
        break;
      }
      NextRefresh();
    }
    return answer;
  }

  static inline std::unique_ptr<SimCluster> sim_;
  static inline std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(BjobsListTest, EveryListFormIsByteForByteWhatTheSimulatorPrints) {
  // The caller's jobs through bplace and straight to LSF; another user's
  // job straight to LSF (the test's own user, unless it is the service
  // user, when all jobs are one user's).
  std::vector<std::string> ids;
  ids.push_back(SubmitThroughBplace({"-J", "lst_run", "-q", "short", "sleep", "600"}));
  ids.push_back(SubmitThroughBplace({"-J", "lst_exit", "-q", "short", "sleep", "600"}));
  const ProcessOutput direct =
      LsfAsCaller({"bsub", "-J", "lst_direct", "-q", "gpu", "sleep", "600"});
  ids.push_back(JobIdOf(direct.out));
  const ProcessOutput other = sim_->Lsf({"bsub", "-J", "lst_other", "-q", "short", "sleep", "600"});
  ids.push_back(JobIdOf(other.out));
  for (const std::string& id : ids) {
    ASSERT_FALSE(id.empty()) << direct.out << direct.err << other.out << other.err;
  }
  ASSERT_EQ(sim_->Lsf({"lsfsim", "schedule"}).exit_code, 0);
  ASSERT_EQ(sim_->Lsf({"lsfsim", "finish", ids[1], "--exit", "3"}).exit_code, 0);
  ASSERT_EQ(sim_->Lsf({"bsub", "-J", "lst_pend", "-q", "gpu", "sleep", "1"}).exit_code, 0);
  const std::vector<std::vector<std::string>> forms = {
      {},
      {"-w"},
      {"-noheader"},
      {"-u", "all"},
      {"-u", "all", "-w", "-noheader"},
      {"-a", "-o", "id stat", "-noheader"},                // Galaxy
      {"-noheader", "-o", "jobid stat", "-aJ", "*lst_*"},  // Snakemake 8
      {"-w", "-q", "short"},                               // Nextflow
      {"-json", "-o", "jobid stat start_time"},            // Toil
      {"-u", "all", "-a", "-json", "-o", "jobid user stat exit_code"},
      {"-o", "jobid user stat queue exec_host delimiter='^'"},
      {"-uall", "-r", "-o", "id queue:-10 job_name:8"},
      {"-d", "-o", "id stat exit_code", "-noheader"},
      {"-J", "nomatch*"},
      {"-a", "-J", "nomatch*"},
      {"-q", "gpu"},
  };
  for (const auto& form : forms) {
    std::vector<std::string> lsf = {"bjobs"};
    lsf.insert(lsf.end(), form.begin(), form.end());
    // LSF 10.1's bjobs takes bundled flags (Snakemake 8 runs `-aJ`); the
    // simulator reads them one per word.
    if (const auto bundled = std::find(lsf.begin(), lsf.end(), "-aJ"); bundled != lsf.end()) {
      *bundled = "-J";
      lsf.insert(bundled, "-a");
    }
    const ProcessOutput real = LsfAsCaller(lsf);
    const json answer = Converged(form, real);
    ASSERT_TRUE(answer.contains("stdout")) << ::testing::PrintToString(form) << answer.dump();
    EXPECT_EQ(answer["stdout"], real.out) << ::testing::PrintToString(form);
    EXPECT_EQ(answer["stderr"], real.err) << ::testing::PrintToString(form);
    EXPECT_EQ(answer["exit_code"], real.exit_code) << ::testing::PrintToString(form);
  }
  // Another user's name (or a user group's) is LSF's to answer.
  EXPECT_TRUE(Route({"-u", "nobody_else"}).contains("run_lsf"));
}

TEST_F(BjobsListTest, ManyListPollersCostOneListPerJobsInterval) {
  ASSERT_FALSE(SubmitThroughBplace({"-J", "poll_a", "sleep", "600"}).empty());
  ASSERT_TRUE(Route({"-o", "id stat"}).contains("stdout"));  // the view is being read
  NextRefresh();
  const long long before = sim_->Counts().value("bjobs", 0LL);
  const auto start = std::chrono::steady_clock::now();
  constexpr int kCallers = 8;
  constexpr int kCallsEach = 15;
  std::vector<std::thread> callers;
  std::atomic<int> answered{0};
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int i = 0; i < kCallsEach; ++i) {
        const json answer = Route(c % 2 == 0 ? std::vector<std::string>{"-w"}
                                             : std::vector<std::string>{"-o", "id stat", "-a"});
        if (answer.contains("stdout")) ++answered;
      }
    });
  }
  for (auto& caller : callers) caller.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long long bjobs = sim_->Counts().value("bjobs", 0LL) - before;
  EXPECT_EQ(answered.load(), kCallers * kCallsEach);
  // One jobs-tier run a second here, each with one bjobs of the followed
  // ids and one list; 120 calls by the pollers add none of their own.
  EXPECT_LE(bjobs, 2 * (static_cast<long long>(seconds) + 2))
      << kCallers * kCallsEach << " list calls in " << seconds << " s";
}

}  // namespace
}  // namespace bplace::testing
