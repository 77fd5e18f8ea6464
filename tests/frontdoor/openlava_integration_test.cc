// Debian's Toil 5.9.2 (--batchSystem lsf), unmodified, on an OpenLava-family
// cluster: the LSF simulator in its volclava 2.2 dialect, jobs run for real
// (`lsfsim daemon`). Straight to the simulator Toil cannot run there (its
// `bsub -cwd . ... -M 2147MB` is refused: `-cwd` read as a CPU limit);
// with the front door first on PATH the same workflow runs to the end
// (docs/lsf-front-door.md "OpenLava-family clusters"). The LSF commands
// each run makes are counted at the simulator. Skips when toil is not
// installed.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/frontdoor/engine_run.h"
#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The demo cluster in the simulator's OpenLava dialect, written to `path`.
std::string OpenlavaCluster(const fs::path& path) {
  std::ifstream demo(DEMO_CLUSTER);
  std::stringstream text;
  text << demo.rdbuf();
  std::string definition = text.str();
  const std::size_t cluster = definition.find("[cluster]\n");
  if (cluster == std::string::npos) throw std::runtime_error("no [cluster] in the demo cluster");
  definition.insert(cluster + 10, "dialect = \"openlava\"\n");
  std::ofstream(path) << definition;
  return path.string();
}

// The simulator in its OpenLava dialect running jobs, bplaced serving it,
// and a work directory for the service user.
class OpenlavaClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = OpenDirectory("bplace-openlava");
    sim_ = std::make_unique<SimCluster>(OpenlavaCluster(work_ / "cluster.toml"));
    fs::permissions(sim_->dir(), fs::perms::all, fs::perm_options::add);
    DaemonSettings settings;
    settings.jobs_refresh_s = 2;
    settings.load_refresh_s = 2;
    settings.unix_socket = (sim_->dir() / "bplace.sock").string();
    daemon_ = std::make_unique<DaemonProcess>(*sim_, settings);
    sim_daemon_ = std::make_unique<SimDaemon>(*sim_);
    ASSERT_TRUE(sim_daemon_->running());
  }
  void TearDown() override {
    sim_daemon_.reset();
    daemon_.reset();
    sim_.reset();
    if (!work_.empty()) fs::remove_all(work_);
  }

  // Runs `command` in the work directory as the service user (over the
  // Unix socket bplaced knows it), with the front door first on PATH or
  // only the simulator's commands.
  ProcessOutput Run(const std::string& command, bool front_door,
                    std::chrono::seconds timeout = std::chrono::seconds(60)) const {
    const std::string path =
        std::string(front_door ? FRONTDOOR_DIR ":" : "") + LSFSIM_BIN_DIR + ":/usr/bin:/bin";
    return RunProcessAs(daemon_->service_user(),
                        {"/bin/sh", "-c", "cd \"$0\" && " + command, work_.string()},
                        {{"PATH", path},
                         {"HOME", work_.string()},
                         {"LSF_BINDIR", LSFSIM_BIN_DIR},
                         {"LSF_ENVDIR", (sim_->dir() / "lsf").string()},
                         {"BPLACE_URL", "unix:" + (sim_->dir() / "bplace.sock").string()},
                         {"BPLACE_TOKEN", ""}},
                        timeout);
  }

  std::unique_ptr<SimCluster> sim_;
  std::unique_ptr<DaemonProcess> daemon_;
  std::unique_ptr<SimDaemon> sim_daemon_;
  fs::path work_;
};

// The text of `path` once it holds `needle` (the job wrote it), or what it
// holds after a generous deadline.
std::string WaitForText(const fs::path& path, const std::string& needle) {
  std::string text;
  for (int i = 0; i < 600 && text.find(needle) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::ifstream file(path);
    text.assign(std::istreambuf_iterator<char>(file), {});
  }
  return text;
}

TEST_F(OpenlavaClusterTest, BsubRunsInItsCwdWithMemoryInTheClustersUnits) {
  fs::create_directory(work_ / "sub");
  fs::permissions(work_ / "sub", fs::perms::all);
  const std::string bsub =
      "bsub -cwd sub -M 100MB -R \"select[mem>1GB] rusage[mem=1GB]\" -o out.%J pwd";
  const ProcessOutput stock = Run(bsub, false);
  EXPECT_EQ(stock.exit_code, 255);
  EXPECT_THAT(stock.err, HasSubstr("wd: Bad CPULIMIT specification. Job not submitted."));

  const ProcessOutput out = Run(bsub, true);
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  ASSERT_THAT(out.out, ::testing::MatchesRegex("Job <[0-9]+> is submitted to queue <.*>\\.\n"));
  const std::string id = out.out.substr(5, out.out.find('>') - 5);
  // -o is relative to the job's directory: sub, where bsub ran.
  EXPECT_THAT(WaitForText(work_ / "sub" / ("out." + id), "sub\n"),
              HasSubstr((work_ / "sub").string() + "\n"));
  EXPECT_EQ(sim_->Counts().value("bsub", 0), 2) << sim_->Counts().dump();  // stock's, bplaced's
}

TEST_F(OpenlavaClusterTest, AStdinScriptsBsubLinesAreRespelledToo) {
  fs::create_directory(work_ / "sub");
  fs::permissions(work_ / "sub", fs::perms::all);
  std::ofstream(work_ / "job.sh") << "#!/bin/sh\n"
                                     "#BSUB -cwd sub\n"
                                     "#BSUB -M 100MB -R \"rusage[mem=1GB]\"\n"
                                     "#BSUB -o out.%J\n"
                                     "pwd\n";
  fs::permissions(work_ / "job.sh", fs::perms::all);
  const ProcessOutput stock = Run("bsub < job.sh", false);
  EXPECT_EQ(stock.exit_code, 255) << stock.out << stock.err;

  const ProcessOutput out = Run("bsub < job.sh", true);
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  ASSERT_THAT(out.out, ::testing::MatchesRegex("Job <[0-9]+> is submitted to queue <.*>\\.\n"));
  const std::string id = out.out.substr(5, out.out.find('>') - 5);
  EXPECT_THAT(WaitForText(work_ / "sub" / ("out." + id), "sub\n"),
              HasSubstr((work_ / "sub").string() + "\n"));
}

TEST_F(OpenlavaClusterTest, AnOptionVolclavaWouldMisreadIsRefusedInBsubsWords) {
  const ProcessOutput out = Run("bsub -oo log.txt true", true);
  EXPECT_EQ(out.exit_code, 255);
  EXPECT_EQ(out.out, "");
  EXPECT_THAT(out.err, HasSubstr("bsub -oo: the cluster is OpenLava-family (lsid), whose bsub "
                                 "has no such option. Job not submitted."));
  EXPECT_EQ(sim_->Counts().value("bsub", 0), 0) << sim_->Counts().dump();
}

TEST_F(OpenlavaClusterTest, AnEmptyJsonListExitsZeroAsLsf10Does) {
  const std::string bjobs = "bjobs -json -o \"jobid stat start_time\"";
  const ProcessOutput stock = Run(bjobs, false);
  EXPECT_EQ(stock.exit_code, 255) << stock.out << stock.err;
  const ProcessOutput out = Run(bjobs, true);
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  // Answered from the view of every job (LSF 10.1's bytes), or by volclava's
  // own bjobs printed as it is: either way an empty list, as Toil reads it.
  const nlohmann::json answer = nlohmann::json::parse(out.out, nullptr, false);
  ASSERT_TRUE(answer.is_object()) << out.out;
  EXPECT_EQ(answer.value("JOBS", -1), 0) << out.out;
  EXPECT_EQ(answer.value("RECORDS", nlohmann::json()), nlohmann::json::array()) << out.out;
}

TEST_F(OpenlavaClusterTest, BjobsLongIsVolclavasOwnBlock) {
  const ProcessOutput out = Run("bsub sh -c 'exit 3'", true);
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  const std::string id = out.out.substr(5, out.out.find('>') - 5);
  std::string status;
  for (int i = 0; i < 30 && status != "EXIT"; ++i) {  // long polls, no sleep
    status = daemon_->Call("GET", "/v1/jobs/" + id + "?wait_s=5").Json().value("status", "");
  }
  ASSERT_EQ(status, "EXIT");
  const ProcessOutput door = Run("bjobs -l " + id, true);
  const ProcessOutput stock = Run("bjobs -l " + id, false);
  EXPECT_EQ(door.exit_code, stock.exit_code) << door.err;
  EXPECT_EQ(door.out, stock.out);
  EXPECT_EQ(door.err, stock.err);
  EXPECT_THAT(door.out, HasSubstr("Exited with exit code 3."));
  EXPECT_THAT(door.out, ::testing::Not(HasSubstr("Completed <exit>")))
      << "volclava's layout, not LSF 10.1's";
}

class OpenlavaToilTest : public OpenlavaClusterTest, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/toil")) {
      GTEST_SKIP() << "Debian's toil is not installed (tools/install-deps.sh)";
    }
    OpenlavaClusterTest::SetUp();
    Write(work_ / "wf.py", kToilWorkflow);
  }

  bool through_front_door() const { return GetParam(); }

  ProcessOutput RunToil(std::chrono::seconds timeout) const {
    return Run(
        "/usr/bin/python3 wf.py --batchSystem lsf --statePollingWait 1 --workDir \"$PWD\" "
        "\"file:$PWD/jobstore\"",
        through_front_door(), timeout);
  }
};

INSTANTIATE_TEST_SUITE_P(Path, OpenlavaToilTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "FrontDoor" : "Stock";
                         });

TEST_P(OpenlavaToilTest, ToilRunsOnlyThroughTheFrontDoor) {
  const ProcessOutput lsid = sim_->Lsf({"lsid"});
  ASSERT_THAT(lsid.out, HasSubstr("volclava project 2.2"));
  if (through_front_door()) {
    const ProcessOutput out = RunToil(std::chrono::seconds(300));
    ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
    EXPECT_THAT(out.out, HasSubstr("workflow result: 30"));
    const nlohmann::json counts = sim_->Counts();
    // A root job, ten children and a follow-on: one bsub each, from bplaced.
    EXPECT_EQ(counts.value("bsub", 0), 12) << counts.dump();
    std::cout << "Toil 5.9.2 on OpenLava through the front door: LSF commands at the LSF side "
              << counts.dump() << "\n";
  } else {
    // Toil's first bsub is refused; it retries and gives up on the batch
    // system (its leader may wait on until killed): never a result.
    const ProcessOutput out = RunToil(std::chrono::seconds(45));
    EXPECT_NE(out.exit_code, 0);
    EXPECT_THAT(out.out, ::testing::Not(HasSubstr("workflow result")));
    EXPECT_THAT(out.err, HasSubstr("wd: Bad CPULIMIT specification. Job not submitted."));
    std::cout << "Toil 5.9.2 on OpenLava stock: LSF commands at the LSF side "
              << sim_->Counts().dump() << "\n";
  }
}

}  // namespace
}  // namespace bplace::testing
