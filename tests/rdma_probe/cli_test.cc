#include "rdma_probe/cli.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config.h"
#include "tests/rdma_probe/test_support.h"

namespace bplace::rdma {
namespace {

// The command line as rdma_probe's main parses it, with the real loader.
CliOutcome Parse(const std::vector<std::string>& args) {
  return ParseCommandLine(args, config::LoadProbeOptions);
}

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CliTest, DefaultsComeFromIbConfig) {
  CliOutcome cli = Parse({"rdma_probe"});
  ASSERT_FALSE(cli.exit_now);
  EXPECT_EQ(cli.options.ib.sysfs_root, "/sys/class/infiniband");
  EXPECT_TRUE(cli.options.ib.loopback);
  EXPECT_TRUE(cli.options.use_state);
  EXPECT_FALSE(cli.options.elim);
}

TEST(CliTest, OptionsOverrideIbValues) {
  CliOutcome cli =
      Parse({"rdma_probe", "--device", "mlx5_0:1", "--device", "mlx5_1", "--link-layer", "any",
             "--min-rate", "200", "--no-loopback", "--timeout", "5", "--sysfs-root", "/tmp/sys",
             "--state-file", "/tmp/s.json", "--no-state", "--pretty"});
  ASSERT_FALSE(cli.exit_now) << cli.text;
  const ProbeOptions& ib = cli.options.ib;
  EXPECT_THAT(ib.devices, ElementsAre("mlx5_0:1", "mlx5_1"));
  EXPECT_EQ(ib.link_layer, LinkLayerWanted::kAny);
  EXPECT_DOUBLE_EQ(ib.min_rate_gbps, 200);
  EXPECT_FALSE(ib.loopback);
  EXPECT_EQ(ib.probe_timeout, std::chrono::seconds(5));
  EXPECT_EQ(ib.sysfs_root, "/tmp/sys");
  EXPECT_EQ(ib.state_file, "/tmp/s.json");
  EXPECT_FALSE(cli.options.use_state);
  EXPECT_TRUE(cli.options.pretty);
}

TEST(CliTest, ElimChildGetsTheSameOptionsWithoutElimOnes) {
  CliOutcome cli =
      Parse({"rdma_probe", "--elim", "--interval", "7", "--min-rate", "100", "--no-state"});
  ASSERT_FALSE(cli.exit_now) << cli.text;
  EXPECT_TRUE(cli.options.elim);
  EXPECT_EQ(cli.options.ib.elim_interval, std::chrono::seconds(7));
  EXPECT_THAT(cli.options.child_args, ElementsAre("rdma_probe", "--min-rate", "100", "--no-state"));

  CliOutcome equals = Parse({"rdma_probe", "--interval=9", "--elim", "--pretty"});
  ASSERT_FALSE(equals.exit_now) << equals.text;
  EXPECT_EQ(equals.options.ib.elim_interval, std::chrono::seconds(9));
  EXPECT_THAT(equals.options.child_args, ElementsAre("rdma_probe", "--pretty"));
}

TEST(CliTest, HelpExitsZeroAndDescribesExitCodes) {
  CliOutcome cli = Parse({"rdma_probe", "--help"});
  ASSERT_EQ(cli.exit_now, 0);
  EXPECT_THAT(cli.text, HasSubstr("--min-rate"));
  EXPECT_THAT(cli.text, HasSubstr("Exit status: 0 healthy, 1 unhealthy"));
}

TEST(CliTest, BadValuesAreUsageErrors) {
  EXPECT_EQ(Parse({"rdma_probe", "--link-layer", "myrinet"}).exit_now, 2);
  EXPECT_EQ(Parse({"rdma_probe", "--timeout", "0"}).exit_now, 2);
  EXPECT_EQ(Parse({"rdma_probe", "--min-rate", "-1"}).exit_now, 2);
  EXPECT_EQ(Parse({"rdma_probe", "--frobnicate"}).exit_now, 2);
}

TEST(CliTest, UnreadableConfigIsAConfigError) {
  testing::SysfsTree tree;
  const std::string path = (tree.root() / "bad.toml").string();
  testing::SysfsTree::Write(path, "[ib\n");
  CliOutcome cli = Parse({"rdma_probe", "--config", path});
  ASSERT_FALSE(cli.exit_now) << cli.text;
  EXPECT_THAT(cli.config_error, HasSubstr(path));
}

TEST(CliTest, ConfigFileValuesApplyAndOptionsWin) {
  testing::SysfsTree tree;
  const std::string path = (tree.root() / "ok.toml").string();
  testing::SysfsTree::Write(path, "[log]\nlevel = \"debug\"\n");
  CliOutcome cli = Parse({"rdma_probe", "--config", path, "--min-rate", "50"});
  ASSERT_FALSE(cli.exit_now) << cli.text;
  EXPECT_EQ(cli.config_error, "");
  EXPECT_DOUBLE_EQ(cli.options.ib.min_rate_gbps, 50);
}

}  // namespace
}  // namespace bplace::rdma
