// The real rdma_probe binary (path from CMake, $<TARGET_FILE:rdma_probe>) on
// this machine. Without RDMA hardware it must report "no RDMA stack" or
// "no HCA" and exit 1; the elim loop must publish "1 ib_ok 0" and stop on
// SIGTERM. Every wait is bounded.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/rdma_probe/process_util.h"
#include "tests/rdma_probe/test_support.h"

namespace bplace::rdma {
namespace {

using namespace std::chrono_literals;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::ReadUntil;
using testing::SpawnWithStdoutPipe;
using testing::WaitFor;

constexpr const char* kProbe = RDMA_PROBE_BINARY;

bool HostHasRdmaDevices() {
  std::error_code ec;
  return std::filesystem::exists("/sys/class/infiniband", ec) &&
         !std::filesystem::is_empty("/sys/class/infiniband", ec);
}

TEST(RdmaProbeBinaryTest, OneShotReportsMissingHardwareAndExitsOne) {
  if (HostHasRdmaDevices()) GTEST_SKIP() << "this host has RDMA devices; see the hw tests";
  testing::SysfsTree tree;
  auto child = SpawnWithStdoutPipe({kProbe, "--state-file", tree.state_file()});
  ASSERT_GT(child.pid, 0);
  const std::string out = ReadAll(child.stdout_fd, 20s);
  ::close(child.stdout_fd);
  const std::optional<int> status = WaitFor(child.pid, 20s);
  ASSERT_TRUE(status) << "rdma_probe did not exit";
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 1) << out;
  const nlohmann::json doc = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out;
  EXPECT_EQ(doc["verdict"], "unhealthy");
  ASSERT_EQ(doc["reasons"].size(), 1u) << out;
  EXPECT_THAT(doc["reasons"][0].get<std::string>(),
              AnyOf(HasSubstr("no RDMA stack"), HasSubstr("no HCA")));
  EXPECT_TRUE(doc["rate_gbps"].is_null());
  EXPECT_TRUE(doc["host"].is_string());
  EXPECT_EQ(doc["host"].get<std::string>().find('.'), std::string::npos);
  EXPECT_TRUE(doc["probed_at"].is_string());
  EXPECT_TRUE(doc["devices"].is_array());
}

TEST(RdmaProbeBinaryTest, ElimPublishesNotOkAndStopsOnSigterm) {
  if (HostHasRdmaDevices()) GTEST_SKIP() << "this host has RDMA devices; see the hw tests";
  auto child = SpawnWithStdoutPipe({kProbe, "--elim", "--interval", "1", "--no-state"});
  ASSERT_GT(child.pid, 0);
  const std::string lines = ReadUntil(child.stdout_fd, 20s, [](const std::string& text) {
    return testing::CountLines(text, "1 ib_ok 0\n") >= 2;
  });
  EXPECT_GE(testing::CountLines(lines, "1 ib_ok 0\n"), 2) << lines;
  EXPECT_EQ(lines.find("ib_ok 1"), std::string::npos) << lines;
  ASSERT_EQ(::kill(child.pid, SIGTERM), 0);
  const std::optional<int> status = WaitFor(child.pid, 5s);
  ::close(child.stdout_fd);
  ASSERT_TRUE(status) << "elim did not stop on SIGTERM";
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

TEST(RdmaProbeBinaryTest, ElimExitsNonZeroWhenStdoutBreaks) {
  auto child = SpawnWithStdoutPipe({kProbe, "--elim", "--interval", "1", "--no-state"});
  ASSERT_GT(child.pid, 0);
  ::close(child.stdout_fd);  // LIM went away before the first line
  const std::optional<int> status = WaitFor(child.pid, 20s);
  ASSERT_TRUE(status) << "elim kept running with a broken stdout";
  ASSERT_TRUE(WIFEXITED(*status)) << "killed by signal " << WTERMSIG(*status);
  EXPECT_NE(WEXITSTATUS(*status), 0);
}

TEST(RdmaProbeBinaryTest, HelpExitsZero) {
  auto child = SpawnWithStdoutPipe({kProbe, "--help"});
  ASSERT_GT(child.pid, 0);
  const std::string out = ReadAll(child.stdout_fd, 10s);
  ::close(child.stdout_fd);
  const std::optional<int> status = WaitFor(child.pid, 10s);
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  EXPECT_THAT(out, HasSubstr("--elim"));
}

TEST(RdmaProbeBinaryTest, BadOptionExitsTwo) {
  auto child = SpawnWithStdoutPipe({kProbe, "--min-rate", "fast"});
  ASSERT_GT(child.pid, 0);
  ReadAll(child.stdout_fd, 10s);
  ::close(child.stdout_fd);
  const std::optional<int> status = WaitFor(child.pid, 10s);
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 2);
}

TEST(RdmaProbeBinaryTest, BadConfigFileIsAnErrorReportAndExitTwo) {
  testing::SysfsTree tree;
  const std::string path = (tree.root() / "bad.toml").string();
  testing::SysfsTree::Write(path, "[ib\n");
  auto child = SpawnWithStdoutPipe({kProbe, "--config", path});
  ASSERT_GT(child.pid, 0);
  const std::string out = ReadAll(child.stdout_fd, 10s);
  ::close(child.stdout_fd);
  const std::optional<int> status = WaitFor(child.pid, 10s);
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 2);
  const nlohmann::json doc = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out;
  EXPECT_EQ(doc["verdict"], "error");
}

}  // namespace
}  // namespace bplace::rdma
