// Real workflow engines, unmodified, with the front door first on PATH:
// Debian's Toil 5.9.2 (--batchSystem lsf) and Snakemake 7.21 (--cluster bsub
// with an LSF status script), against the real bplaced and the LSF simulator,
// whose jobs run for real (`lsfsim daemon`). Each workflow runs once through
// the front door and once straight against the simulator; the LSF commands
// each run makes at the LSF side are counted (docs/lsf-front-door.md).
// Skips (77) when toil or snakemake is not installed.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/frontdoor/engine_run.h"
#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class EnginesTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/toil") || !fs::exists("/usr/bin/snakemake")) {
      GTEST_SKIP() << "Debian's toil and snakemake are not installed (tools/install-deps.sh)";
    }
    sim_ = std::make_unique<SimCluster>(DEMO_CLUSTER);
    fs::permissions(sim_->dir(), fs::perms::all, fs::perm_options::add);
    DaemonSettings settings;
    settings.jobs_refresh_s = 2;
    settings.load_refresh_s = 2;
    settings.unix_socket = (sim_->dir() / "bplace.sock").string();
    daemon_ = std::make_unique<DaemonProcess>(*sim_, settings);
    sim_daemon_ = std::make_unique<SimDaemon>(*sim_);
    ASSERT_TRUE(sim_daemon_->running());
    work_ = OpenDirectory("bplace-engines");
  }
  void TearDown() override {
    sim_daemon_.reset();
    daemon_.reset();
    sim_.reset();
    if (!work_.empty()) fs::remove_all(work_);
  }

  bool through_front_door() const { return GetParam(); }

  // Runs `command` in the work directory as the user the daemon submits
  // for (the service user: over the Unix socket bplaced knows it), with the
  // front door first on PATH or only the simulator's commands.
  ProcessOutput Run(const std::string& command) const {
    const std::string path = std::string(through_front_door() ? FRONTDOOR_DIR ":" : "") +
                             LSFSIM_BIN_DIR + ":/usr/bin:/bin";
    return RunProcessAs(daemon_->service_user(),
                        {"/bin/sh", "-c", "cd \"$0\" && " + command, work_.string()},
                        {{"PATH", path},
                         {"HOME", work_.string()},
                         {"LSF_BINDIR", LSFSIM_BIN_DIR},
                         {"LSF_ENVDIR", (sim_->dir() / "lsf").string()},
                         {"BPLACE_URL", "unix:" + (sim_->dir() / "bplace.sock").string()},
                         {"BPLACE_TOKEN", ""}},
                        std::chrono::seconds(400));
  }

  // Every job of the run went through bplaced (tagged) or none did.
  void ExpectSubmittedThroughBplaceIff(bool front_door) const {
    const ProcessOutput out =
        sim_->Lsf({"bjobs", "-a", "-u", "all", "-o", "jobid job_description", "-json"});
    const json answer = json::parse(out.out, nullptr, false);
    ASSERT_TRUE(answer.is_object()) << out.out << out.err;
    ASSERT_FALSE(answer["RECORDS"].empty());
    for (const json& record : answer["RECORDS"]) {
      EXPECT_EQ(record.value("JOB_DESCRIPTION", "").rfind("bplace:", 0) == 0, front_door)
          << record.dump();
    }
  }

  // Prints the LSF commands of the run at the LSF side, and how many of
  // its bjobs were bplaced's own (the rest: LSF's bjobs run by the front
  // door or the engine).
  void Report(const std::string& engine, const json& counts) const {
    std::cout << engine << (through_front_door() ? " through the front door" : " stock")
              << ": LSF commands at the LSF side " << counts.dump() << ", of which bplaced's bjobs "
              << daemon_->LsfCommandsRun("bjobs") << "\n";
  }

  std::unique_ptr<SimCluster> sim_;
  std::unique_ptr<DaemonProcess> daemon_;
  std::unique_ptr<SimDaemon> sim_daemon_;
  fs::path work_;
};

INSTANTIATE_TEST_SUITE_P(Path, EnginesTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "FrontDoor" : "Stock";
                         });

TEST_P(EnginesTest, ToilRunsARootTenChildrenAndAFollowOnToTheEnd) {
  Write(work_ / "wf.py", kToilWorkflow);
  const ProcessOutput out =
      Run("/usr/bin/python3 wf.py --batchSystem lsf --statePollingWait 1 --workDir \"$PWD\" "
          "\"file:$PWD/jobstore\"");
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_THAT(out.out, ::testing::HasSubstr("workflow result: 30"));
  ExpectSubmittedThroughBplaceIff(through_front_door());
  Report("Toil 5.9.2", sim_->Counts());
}

TEST_P(EnginesTest, SnakemakeRunsThreeRulesWithItsLsfStatusScript) {
  fs::create_directory(work_ / "logs");
  fs::permissions(work_ / "logs", fs::perms::all);
  Write(work_ / "Snakefile", kSnakefile);
  Write(work_ / "status.sh", kStatusScript, true);
  const ProcessOutput out =
      Run("snakemake --jobs 2 --cluster \"bsub -o logs/{rule}.out -e logs/{rule}.err\" "
          "--cluster-status ./status.sh --cluster-cancel bkill --latency-wait 5");
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  std::ifstream result(work_ / "c.txt");
  const std::string text((std::istreambuf_iterator<char>(result)), {});
  EXPECT_EQ(text, "a\nb\nc\n");
  ExpectSubmittedThroughBplaceIff(through_front_door());
  Report("Snakemake 7.21", sim_->Counts());
}

}  // namespace
}  // namespace bplace::testing
