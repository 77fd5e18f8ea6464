// "Did you mean" (config/did_you_mean.cc), through ParseConfig: the closest
// table or key within two edits, the table a misplaced key belongs to, and
// no suggestion when nothing is close.

#include <string>

#include <gtest/gtest.h>

#include "config/config.h"
#include "tests/config/parse_helpers.h"

namespace bplace::config {
namespace {

TEST(ParseConfigErrorTest, UnknownTableSuggestsTheClosest) {
  EXPECT_EQ(ErrorOf("\n[servr]\nthreads = 3\n"),
            "cfg.toml:2: servr: unknown table; did you mean `[server]`?");
}

TEST(ParseConfigErrorTest, UnknownTableWithNothingClose) {
  EXPECT_EQ(ErrorOf("[infiniband]\nport = 1\n"), "cfg.toml:1: infiniband: unknown table");
}

TEST(ParseConfigErrorTest, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh = 10\n"),
            "cfg.toml:2: lsf.load_refresh: unknown key; did you mean `load_refresh_s`?");
  EXPECT_EQ(ErrorOf("[lsf]\nlaod_refresh_s = 10\n"),
            "cfg.toml:2: lsf.laod_refresh_s: unknown key; did you mean `load_refresh_s`?");
}

TEST(ParseConfigErrorTest, UnknownKeyWithNothingClose) {
  const std::string message = ErrorOf("[server]\n\nfrobnicate = true\n");
  EXPECT_EQ(message, "cfg.toml:3: server.frobnicate: unknown key");
}

TEST(ParseConfigErrorTest, KeyInTheWrongTableNamesTheRightOne) {
  EXPECT_EQ(ErrorOf("[server]\nload_refresh_s = 10\n"),
            "cfg.toml:2: server.load_refresh_s: unknown key; did you mean "
            "`lsf.load_refresh_s` (under [lsf])?");
}

TEST(ParseConfigErrorTest, TopLevelKeyNamesItsTable) {
  EXPECT_EQ(ErrorOf("threads = 4\n"),
            "cfg.toml:1: threads: unknown key; did you mean `server.threads` (under [server])?");
}

}  // namespace
}  // namespace bplace::config
