// DiffConfigs, MergeReloadable and ReloadOf (config/config_diff.h): which keys a
// re-read file changes and which of them SIGHUP applies.

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_diff.h"

namespace bplace::config {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Config Parse(const std::string& text) {
  auto config = ParseConfig(text, "bplaced.toml");
  EXPECT_TRUE(config) << config.error().message;
  return config.value_or(Config{});
}

std::vector<std::string> Keys(const std::vector<KeyChange>& changes) {
  std::vector<std::string> keys;
  for (const KeyChange& change : changes) keys.push_back(change.key);
  return keys;
}

TEST(DiffConfigsTest, SameFileNoChange) {
  const std::string text = "[server]\nlisten = [\"127.0.0.1:0\"]\n[limits]\nsubmit_burst = 3\n";
  EXPECT_THAT(DiffConfigs(Parse(text), Parse(text)), IsEmpty());
}

TEST(DiffConfigsTest, AKeyWrittenAsItsDefaultIsNoChange) {
  EXPECT_THAT(DiffConfigs(Parse(""), Parse("[limits]\nsubmit_burst = 250\n[log]\nlevel = "
                                           "\"info\"\n[server]\nlisten = \"127.0.0.1:8080\"\n")),
              IsEmpty());
}

TEST(DiffConfigsTest, ListsEveryChangedKeyWithBothValuesInSchemaOrder) {
  const auto changes =
      DiffConfigs(Parse("[limits]\nsubmit_per_minute = 60\n"),
                  Parse("[log]\nlevel = \"debug\"\n[limits]\nsubmit_per_minute = 90.5\n"
                        "[server]\nlisten = [\"127.0.0.1:1\", \"unix:/run/b.sock\"]\n"
                        "socket_mode = 0o660\n[lsf]\nload_refresh_s = 30\n"));
  EXPECT_THAT(Keys(changes),
              ElementsAre("server.listen", "server.socket_mode", "lsf.load_refresh_s",
                          "limits.submit_per_minute", "log.level"));
  EXPECT_EQ(changes[0].running, "127.0.0.1:8080");
  EXPECT_EQ(changes[0].next, "127.0.0.1:1, unix:/run/b.sock");
  EXPECT_EQ(changes[0].reload, KeyReload::kRestart);
  EXPECT_EQ(changes[1].running, "0o666");
  EXPECT_EQ(changes[1].next, "0o660");
  EXPECT_EQ(changes[2].running, "15");
  EXPECT_EQ(changes[2].next, "30");
  EXPECT_EQ(changes[3].running, "60");
  EXPECT_EQ(changes[3].next, "90.5");
  EXPECT_EQ(changes[3].reload, KeyReload::kLive);
  EXPECT_EQ(changes[4].running, "info");
  EXPECT_EQ(changes[4].next, "debug");
}

TEST(DiffConfigsTest, EnumsAndEmptyValuesAreShownAsTheFileWritesThem) {
  const auto changes = DiffConfigs(
      Parse(""), Parse("[auth]\nmode = \"multi-user\"\ntokens_file = \"/etc/bplace/tokens\"\n"
                       "[ib]\nlink_layer = \"any\"\n[jobs]\nretention_days = 3\n"));
  ASSERT_THAT(Keys(changes),
              ElementsAre("ib.link_layer", "auth.mode", "auth.tokens_file", "jobs.retention_days"));
  EXPECT_EQ(changes[0].running, "infiniband");
  EXPECT_EQ(changes[0].next, "any");
  EXPECT_EQ(changes[0].reload, KeyReload::kProbe);
  EXPECT_EQ(changes[1].running, "service-account");
  EXPECT_EQ(changes[1].next, "multi-user");
  EXPECT_EQ(changes[2].running, "\"\"");
  EXPECT_EQ(changes[3].running, "7");
  EXPECT_EQ(changes[3].next, "3");
}

TEST(DiffConfigsTest, TellsWhichKeysNeedARestart) {
  const auto changes = DiffConfigs(
      Parse(""), Parse("[server]\nthreads = 8\n[state]\ndir = \"/srv/bplace\"\n[auth]\n"
                       "anonymous_read = true\n[placement]\nexclude_queues = [\"night\"]\n"
                       "[ib]\nrequire_ib = false\nsymbol_error_per_hour = 5\n"));
  std::vector<std::string> restart;
  std::vector<std::string> live;
  for (const KeyChange& change : changes) {
    (change.reload == KeyReload::kRestart ? restart : live).push_back(change.key);
  }
  EXPECT_THAT(restart, ElementsAre("server.threads", "auth.anonymous_read", "state.dir"));
  EXPECT_THAT(live,
              ElementsAre("placement.exclude_queues", "ib.symbol_error_per_hour", "ib.require_ib"));
}

TEST(MergeReloadableTest, TakesReloadableKeysAndKeepsTheRest) {
  const Config running = Parse("[server]\nthreads = 2\n[limits]\nsubmit_burst = 1\n");
  const Config next = Parse(
      "[server]\nthreads = 4\nlisten = \"127.0.0.1:9\"\n[limits]\nsubmit_burst = 5\n"
      "lsf_calls_per_minute = 10\n[log]\nlevel = \"warn\"\n[ib]\nsource = \"local\"\n"
      "allow_unknown = false\nmin_rate_gbps = 100\n");
  const Config merged = MergeReloadable(running, next);
  EXPECT_EQ(merged.server.threads, 2);
  EXPECT_EQ(merged.server.listen, std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(merged.submit.ib.source, IbSource::kNone);
  EXPECT_EQ(merged.limits.submit_burst, 5);
  EXPECT_EQ(merged.limits.lsf_calls_per_minute, 10);
  EXPECT_EQ(merged.log.level, "warn");
  EXPECT_FALSE(merged.submit.ib.allow_unknown);
  EXPECT_EQ(merged.probe.min_rate_gbps, 100);
  // What is left differs from the file only in the restart-only keys.
  std::vector<std::string> left;
  for (const KeyChange& change : DiffConfigs(merged, next)) {
    EXPECT_EQ(change.reload, KeyReload::kRestart) << change.key;
    left.push_back(change.key);
  }
  EXPECT_THAT(left, ElementsAre("server.listen", "server.threads", "ib.source"));
}

TEST(ReloadOfTest, NamesTheClassOfEachKey) {
  EXPECT_EQ(ReloadOf("limits.submit_burst"), KeyReload::kLive);
  EXPECT_EQ(ReloadOf("log.level"), KeyReload::kLive);
  EXPECT_EQ(ReloadOf("ib.port_rcv_errors_per_hour"), KeyReload::kProbe);
  EXPECT_EQ(ReloadOf("server.listen"), KeyReload::kRestart);
  EXPECT_EQ(ReloadOf("server.nope"), std::nullopt);
  EXPECT_EQ(ReloadOf("nope.listen"), std::nullopt);
  EXPECT_EQ(ReloadOf("listen"), std::nullopt);
}

// The keys a row of docs/configuration.md's key tables names: every `backticked`
// name of its first cell, a short one ("submit_burst") in the table of the
// row's first ("limits.submit_per_minute").
std::vector<std::string> RowKeys(const std::string& cell) {
  std::vector<std::string> keys;
  std::string table;
  for (std::size_t open = cell.find('`'); open != std::string::npos;
       open = cell.find('`', open + 1)) {
    const std::size_t close = cell.find('`', open + 1);
    if (close == std::string::npos) break;
    std::string name = cell.substr(open + 1, close - open - 1);
    open = close;
    const std::size_t dot = name.find('.');
    if (dot != std::string::npos) {
      table = name.substr(0, dot);
    } else {
      name = table + "." + name;
    }
    keys.push_back(name);
  }
  return keys;
}

TEST(ReloadOfTest, ReadmeMarksExactlyTheKeysThatReload) {
  std::ifstream file(std::string(BPLACE_SOURCE_DIR) + "/docs/configuration.md");
  const std::string readme((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
  const std::size_t section = readme.find("\n## Keys\n");
  ASSERT_NE(section, std::string::npos);
  std::size_t rows = 0;
  std::size_t at = section;
  while ((at = readme.find("\n| `", at)) != std::string::npos &&
         at < readme.find("\n## ", section + 1)) {
    const std::size_t start = at + 2;
    const std::size_t end = readme.find('|', start);
    const std::string cell = readme.substr(start, end - start);
    at = end;
    const bool marked = cell.find("(reloads)") != std::string::npos;
    for (const std::string& key : RowKeys(cell)) {
      const auto reload = ReloadOf(key);
      ASSERT_TRUE(reload) << key << " in docs/configuration.md is not a key of the schema";
      EXPECT_EQ(marked, *reload != KeyReload::kRestart)
          << key
          << (marked ? " is marked (reloads) but needs a restart"
                     : " reloads but docs/configuration.md does not mark it (reloads)");
    }
    ++rows;
  }
  EXPECT_GT(rows, 20u);
}

}  // namespace
}  // namespace bplace::config
