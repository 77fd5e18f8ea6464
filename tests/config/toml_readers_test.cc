// The typed readers (config/toml_readers.cc), through ParseConfig: wrong
// types, bad elements, the checks of listen addresses and IB devices, and
// the messages that name what was expected.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config.h"
#include "tests/config/parse_helpers.h"

namespace bplace::config {
namespace {

using ::testing::StartsWith;

TEST(ParseConfigTest, ReadsListenAsOneString) {
  EXPECT_EQ(MustParse("[server]\nlisten = \"unix:/run/b.sock\"\n").server.listen,
            std::vector<std::string>{"unix:/run/b.sock"});
}

TEST(ParseConfigTest, RefusesBadListenersAndIbValues) {
  EXPECT_EQ(ErrorOf("[server]\nlisten = []\n"), "cfg.toml:2: server.listen: must not be empty");
  EXPECT_EQ(ErrorOf("[server]\nlisten = [\"unix:run/b.sock\"]\n"),
            "cfg.toml:2: server.listen: element 0: a Unix socket needs an absolute path, as in "
            "unix:/run/bplace/bplace.sock; got `run/b.sock`");
  EXPECT_EQ(ErrorOf("[server]\nsocket_mode = 0o1777\n"),
            "cfg.toml:2: server.socket_mode: must be between 0 and 511 (an octal mode such as "
            "0o660), got 1023");
  EXPECT_EQ(ErrorOf("[ib]\nsource = \"elim\"\n"),
            "cfg.toml:2: ib.source: must be one of none, lsload, local; got `elim`");
  EXPECT_EQ(ErrorOf("[ib]\ndevices = [\"mlx5_0:0\"]\n"),
            "cfg.toml:2: ib.devices: element 0: `mlx5_0:0`: port must be a number 1..255");
  EXPECT_EQ(ErrorOf("[ib]\nmin_rate_gbps = -1\n"),
            "cfg.toml:2: ib.min_rate_gbps: must be between 0 and 10000, got -1");
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_after_submit_s = -1\n"),
            "cfg.toml:2: lsf.load_refresh_after_submit_s: must be between 0 and 604800 seconds, "
            "got -1");
  EXPECT_EQ(ErrorOf("[ib]\nloopback = 1\n"),
            "cfg.toml:2: ib.loopback: expected boolean, got integer");
  EXPECT_EQ(ErrorOf("[auth]\nmode = \"root\"\n"),
            "cfg.toml:2: auth.mode: must be one of service-account, multi-user; got `root`");
  EXPECT_EQ(ErrorOf("[auth]\nmin_uid = 0\n"),
            "cfg.toml:2: auth.min_uid: must be between 1 and 2147483647, got 0");
}

TEST(ParseConfigErrorTest, WrongTypeSaysBoth) {
  EXPECT_EQ(ErrorOf("[lsf]\ncommand_timeout_s = \"30\"\n"),
            "cfg.toml:2: lsf.command_timeout_s: expected integer, got string");
  EXPECT_EQ(ErrorOf("[server]\nthreads = 2.5\n"),
            "cfg.toml:2: server.threads: expected integer, got float");
  EXPECT_EQ(ErrorOf("[server]\nlisten = 8080\n"),
            "cfg.toml:2: server.listen: expected string or array of strings, got integer");
  EXPECT_EQ(ErrorOf("[lsf]\nbin_dir = false\n"),
            "cfg.toml:2: lsf.bin_dir: expected string, got boolean");
  EXPECT_EQ(ErrorOf("[state]\ndir = \"var/lib\"\n"),
            "cfg.toml:2: state.dir: must be an absolute path, got `var/lib`");
  EXPECT_EQ(ErrorOf("[placement]\nexclude_queues = \"admin\"\n"),
            "cfg.toml:2: placement.exclude_queues: expected array of strings, got string");
}

TEST(ParseConfigErrorTest, TableWhereAValueBelongs) {
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_s = { seconds = 10 }\n"),
            "cfg.toml:2: lsf.load_refresh_s: expected integer, got table");
  EXPECT_EQ(ErrorOf("[server]\n[server.listen]\nport = 1\n"),
            "cfg.toml:2: server.listen: expected string or array of strings, got table");
}

TEST(ParseConfigErrorTest, BadListenSaysWhy) {
  EXPECT_THAT(ErrorOf("[server]\nlisten = \"login01:\"\n"),
              StartsWith("cfg.toml:2: server.listen: missing port"));
  EXPECT_THAT(ErrorOf("[server]\nlisten = \"127.0.0.1:70000\"\n"),
              StartsWith("cfg.toml:2: server.listen: port must be between 0 and 65535"));
}

TEST(ParseConfigErrorTest, BadLogLevelListsTheChoices) {
  EXPECT_EQ(ErrorOf("[log]\nlevel = \"verbose\"\n"),
            "cfg.toml:2: log.level: must be one of trace, debug, info, warn, error, critical, "
            "off; got `verbose`");
}

TEST(ParseConfigErrorTest, BadQueueListElements) {
  EXPECT_EQ(ErrorOf("[placement]\nexclude_queues = [\"a\", 3]\n"),
            "cfg.toml:2: placement.exclude_queues: element 1 expected string, got integer");
  EXPECT_EQ(ErrorOf("[placement]\nexclude_queues = [\"\"]\n"),
            "cfg.toml:2: placement.exclude_queues: element 0 is empty; a queue name is needed");
}

}  // namespace
}  // namespace bplace::config
