// The simulated mbatchd's event log (event_log.h) against the real binary:
// the records bsub, schedule, finish, bkill and switch-events write, in
// LSF 10.1's layout and in OpenLava's. Read as text: the simulator's tests
// must not use the daemon's parser.

#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

class EventLogTest : public SimFixture {
 protected:
  std::string LogPath(const std::string& suffix = "") const {
    return dir_ + "/work/testc/logdir/lsb.events" + suffix;
  }
  std::vector<std::string> Lines(const std::string& suffix = "") const {
    std::ifstream in(LogPath(suffix));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  void Run(const std::string& command, const std::vector<std::string>& args) {
    const ProcessResult r = Lsf(command, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void Control(const std::vector<std::string>& args) {
    const ProcessResult r = Sim(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static std::string Uid() {
    const struct passwd* pw = ::getpwuid(::getuid());
    return std::to_string(pw ? pw->pw_uid : -1);
  }
};

TEST_F(EventLogTest, StartsWithTheHistoryOffsetLine) {
  Init(kTestCluster);
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "#80" + std::string(76, ' '));
  EXPECT_EQ(std::filesystem::file_size(LogPath()), 80u);
}

TEST_F(EventLogTest, AScriptFromStdinIsOneRecordWithItsLinesJoinedBySemicolons) {
  // Every record is one line; LSF shows and records a spooled script's
  // newlines as ';' (bjobs -l "Command <#!/bin/sh;sleep 5>").
  Init(kTestCluster);
  const ProcessResult r = Lsf("bsub", {"-q", "short"}, "#!/bin/sh\n#BSUB -J scripted\nsleep 5\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find(" \"scripted\" \"#!/bin/sh;#BSUB -J scripted;sleep 5\" "),
            std::string::npos)
      << lines[1];
  const ProcessResult shown = Lsf("bjobs", {"-o", "command", "-noheader", "1"});
  EXPECT_EQ(shown.out, "#!/bin/sh;#BSUB -J scripted;sleep 5\n");
}

TEST_F(EventLogTest, LogsSubmissionDispatchAndEndInLsf101Layout) {
  Init(kTestCluster);
  Run("bsub", {"-q", "short", "-n", "2", "-J", "say \"hi\"", "sleep", "60"});
  SetNow(kT0 + 30);
  Control({"schedule"});
  SetNow(kT0 + 90);
  Control({"finish", "1"});
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 4u);
  const std::string t0 = std::to_string(kT0);
  // jobId userId options options2 numProcessors submitTime beginTime
  // termTime sigValue chkpntPeriod restartPid userName, 12 rLimits,
  // hostSpec hostFactor umask queue ...
  EXPECT_EQ(lines[1].rfind("\"JOB_NEW\" \"10.1\" " + t0 + " 1 " + Uid() + " 0 0 2 " + t0 +
                               " 0 0 0 0 0 \"" + user_ +
                               "\" -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 "
                               "\"\" 1.00 18 \"short\" ",
                           0),
            0u)
      << lines[1];
  EXPECT_NE(lines[1].find(" \"say \"\"hi\"\"\" \"sleep 60\" "), std::string::npos) << lines[1];
  // jobId jStatus jobPid jobPGid hostFactor numExHosts execHosts
  // queuePreCmd queuePostCmd jFlags userGroup idx ...
  EXPECT_EQ(lines[2].rfind("\"JOB_START\" \"10.1\" " + std::to_string(kT0 + 30) +
                               " 1 4 0 0 1.00 2 \"node01\" \"node01\" \"\" \"\" 0 \"\" 0 ",
                           0),
            0u)
      << lines[2];
  // jobId jStatus reason subreasons cpuTime endTime ru jFlags exitStatus idx
  EXPECT_EQ(lines[3], "\"JOB_STATUS\" \"10.1\" " + std::to_string(kT0 + 90) + " 1 64 0 0 0.0 " +
                          std::to_string(kT0 + 90) + " 0 0 0 0 0");
}

TEST_F(EventLogTest, WritesOpenLavasLayoutWhereItDiffers) {
  Init(ClusterWith("event_log = \"openlava\"\n"));
  Run("bsub", {"-q", "short", "sleep", "60"});
  Control({"schedule"});
  Run("bkill", {"1"});
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 4u);
  const std::string t0 = std::to_string(kT0);
  // No options2; 11 rLimits; an integer version.
  EXPECT_EQ(lines[1].rfind("\"JOB_NEW\" \"20\" " + t0 + " 1 " + Uid() + " 0 1 " + t0 +
                               " 0 0 0 0 0 \"" + user_ +
                               "\" -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 "
                               "\"\" 1.00 18 \"short\" ",
                           0),
            0u)
      << lines[1];
  // No userGroup before idx: the record ends there.
  EXPECT_EQ(lines[2], "\"JOB_START\" \"20\" " + t0 + " 1 4 0 0 1.00 1 \"node01\" \"\" \"\" 0 0");
  // No jFlags before exitStatus.
  EXPECT_EQ(lines[3].rfind("\"JOB_STATUS\" \"20\" " + t0 + " 1 32 0 0 0.0 " + t0 + " 0 ", 0), 0u)
      << lines[3];
  EXPECT_EQ(lines[3].substr(lines[3].size() - 2), " 0");
}

TEST_F(EventLogTest, AJobKilledWhilePendingEndsWithoutAStart) {
  Init(kTestCluster);
  Run("bsub", {"-q", "short", "sleep", "60"});
  Run("bkill", {"1"});
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2].rfind("\"JOB_STATUS\" \"10.1\" " + std::to_string(kT0) + " 1 32 ", 0), 0u)
      << lines[2];
}

TEST_F(EventLogTest, LogsAnArrayOnceAndEachElementsStart) {
  Init(kTestCluster);
  Run("bsub", {"-q", "short", "-J", "a[1-3]", "sleep", "1"});
  Control({"schedule"});
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_NE(lines[1].find(" \"a[1-3]\" "), std::string::npos) << lines[1];
  for (int i = 1; i <= 3; ++i) {
    EXPECT_NE(lines[1 + i].find(" \"\" " + std::to_string(i) + " \"\" 0 0 \"\""), std::string::npos)
        << lines[1 + i];
  }
}

TEST_F(EventLogTest, SwitchesTheLogKeepingTheUnfinishedJobs) {
  Init(kTestCluster);
  Run("bsub", {"-q", "short", "sleep", "60"});
  Run("bsub", {"-q", "short", "sleep", "60"});
  Control({"schedule"});
  Control({"finish", "1"});
  const auto before = Lines();
  Control({"switch-events"});
  EXPECT_EQ(Lines(".1"), before);
  const auto after = Lines();
  // Job 2 is still running: its JOB_NEW and JOB_START are copied in front
  // of the history, whose offset the first line gives.
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[1].rfind("\"JOB_NEW\" \"10.1\" " + std::to_string(kT0) + " 2 ", 0), 0u);
  EXPECT_EQ(after[2].rfind("\"JOB_START\" \"10.1\" " + std::to_string(kT0) + " 2 ", 0), 0u);
  const std::size_t size = std::filesystem::file_size(LogPath());
  EXPECT_EQ(after[0].substr(0, after[0].find(' ')), "#" + std::to_string(size));
  Run("bsub", {"-q", "short", "sleep", "60"});
  const auto next = Lines();
  ASSERT_EQ(next.size(), 4u);
  EXPECT_EQ(next[3].rfind("\"JOB_NEW\" \"10.1\" " + std::to_string(kT0) + " 3 ", 0), 0u);
}

TEST_F(EventLogTest, WritesNothingWhenTheClusterSaysNone) {
  Init(ClusterWith("event_log = \"none\"\n"));
  Run("bsub", {"-q", "short", "sleep", "60"});
  EXPECT_FALSE(std::filesystem::exists(LogPath()));
}

}  // namespace
}  // namespace bplace::lsfsim::testing
