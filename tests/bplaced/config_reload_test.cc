#include "bplaced/config_reload.h"

#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Targets that record what they were given.
class Recorder {
 public:
  Recorder() {
    targets_.set_limits = [this](const RateLimiterOptions& limits) { limits_ = limits; };
    targets_.set_refresh = [this](const CacheOptions& refresh) { refresh_ = refresh; };
    targets_.set_jobs = [this](const JobTrackerOptions& jobs) { jobs_ = jobs; };
    targets_.set_submit = [this](const SubmitterOptions& submit) { submit_ = submit; };
    targets_.set_log_level = [this](const std::string& level) { level_ = level; };
    targets_.reload_tokens = [this](const std::string& path) -> Result<std::size_t> {
      token_paths_.push_back(path);
      if (tokens_fail_) return Fail(ErrorCode::kInvalidArgument, path + ":1: bad token line");
      return std::size_t{3};
    };
  }
  const ReloadTargets& targets() const { return targets_; }

  std::optional<RateLimiterOptions> limits_;
  std::optional<CacheOptions> refresh_;
  std::optional<JobTrackerOptions> jobs_;
  std::optional<SubmitterOptions> submit_;
  std::optional<std::string> level_;
  std::vector<std::string> token_paths_;
  bool tokens_fail_ = false;

 private:
  ReloadTargets targets_;
};

config::Config Parse(const std::string& text) {
  auto config = config::ParseConfig(text, "bplaced.toml");
  EXPECT_TRUE(config) << config.error().message;
  return config.value_or(config::Config{});
}

std::vector<std::string> Texts(const ReloadOutcome& outcome, ReloadLogLine::Level level) {
  std::vector<std::string> texts;
  for (const ReloadLogLine& line : outcome.log) {
    if (line.level == level) texts.push_back(line.text);
  }
  return texts;
}

TEST(ApplyReloadTest, AppliesLimitsLogLevelAndExclusions) {
  const config::Config running = Parse("[limits]\nsubmit_burst = 1\n");
  const config::Config next = Parse(
      "[limits]\nsubmit_burst = 5\n[log]\nlevel = \"debug\"\n"
      "[placement]\nexclude_queues = [\"night\"]\n");
  Recorder recorder;
  const ReloadOutcome outcome = ApplyReload(running, next, recorder.targets());
  EXPECT_FALSE(outcome.refused);
  EXPECT_THAT(outcome.applied,
              ElementsAre("placement.exclude_queues", "limits.submit_burst", "log.level"));
  EXPECT_THAT(outcome.need_restart, IsEmpty());
  ASSERT_TRUE(recorder.limits_);
  EXPECT_EQ(recorder.limits_->submit_burst, 5);
  ASSERT_TRUE(recorder.submit_);
  EXPECT_EQ(recorder.submit_->excluded_queues, std::vector<std::string>{"night"});
  EXPECT_EQ(recorder.level_, "debug");
  EXPECT_EQ(outcome.running.limits.submit_burst, 5);
  EXPECT_THAT(Texts(outcome, ReloadLogLine::Level::kInfo),
              ElementsAre("placement.exclude_queues: [] -> night", "limits.submit_burst: 1 -> 5",
                          "log.level: info -> debug"));
  EXPECT_EQ(outcome.status, "reloaded: 3 keys applied");
}

TEST(ApplyReloadTest, ReportsRestartOnlyKeysAndKeepsThem) {
  const config::Config running = Parse("[server]\nthreads = 2\n");
  const config::Config next = Parse(
      "[server]\nlisten = \"127.0.0.1:9090\"\nthreads = 4\n[ib]\nsource = \"lsload\"\n"
      "require_ib = false\n[limits]\nsubmit_burst = 7\n");
  Recorder recorder;
  const ReloadOutcome outcome = ApplyReload(running, next, recorder.targets());
  EXPECT_THAT(outcome.need_restart, ElementsAre("server.listen", "server.threads", "ib.source"));
  EXPECT_THAT(outcome.applied, ElementsAre("ib.require_ib", "limits.submit_burst"));
  EXPECT_THAT(Texts(outcome, ReloadLogLine::Level::kWarn),
              ElementsAre("server.listen changed: needs a restart (kept 127.0.0.1:8080)",
                          "server.threads changed: needs a restart (kept 2)",
                          "ib.source changed: needs a restart (kept none)"));
  // The running config keeps the restart-only values; the targets see them.
  EXPECT_EQ(outcome.running.server.listen, std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(outcome.running.server.threads, 2);
  ASSERT_TRUE(recorder.submit_);
  EXPECT_EQ(recorder.submit_->ib.source, IbSource::kNone);
  EXPECT_FALSE(recorder.submit_->ib.require_ib);
  EXPECT_EQ(outcome.status,
            "reloaded: 2 keys applied; needs a restart: server.listen, server.threads, ib.source");
}

TEST(ApplyReloadTest, AppliesRefreshIntervals) {
  const config::Config running = Parse("");
  const config::Config next =
      Parse("[lsf]\nload_refresh_s = 30\ntopology_refresh_s = 600\n[jobs]\nrefresh_s = 20\n");
  Recorder recorder;
  const ReloadOutcome outcome = ApplyReload(running, next, recorder.targets());
  EXPECT_THAT(outcome.applied,
              ElementsAre("lsf.load_refresh_s", "lsf.topology_refresh_s", "jobs.refresh_s"));
  ASSERT_TRUE(recorder.refresh_);
  EXPECT_EQ(recorder.refresh_->load_interval, std::chrono::seconds(30));
  EXPECT_EQ(recorder.refresh_->topology_interval, std::chrono::seconds(600));
  ASSERT_TRUE(recorder.jobs_);
  EXPECT_EQ(recorder.jobs_->interval, std::chrono::seconds(20));
}

TEST(ApplyReloadTest, RefusesABadFileAndKeepsTheRunningConfig) {
  const config::Config running = Parse("[limits]\nsubmit_burst = 1\n");
  const Result<config::Config> broken = config::ParseConfig(
      "[limits]\nsubmit_burst = 0\nsubmit_per_minute = \"fast\"\n", "/etc/bplace/bplaced.toml");
  ASSERT_FALSE(broken);
  Recorder recorder;
  const ReloadOutcome outcome = ApplyReload(running, broken, recorder.targets());
  EXPECT_TRUE(outcome.refused);
  EXPECT_FALSE(recorder.limits_);
  EXPECT_FALSE(recorder.refresh_);
  EXPECT_FALSE(recorder.jobs_);
  EXPECT_FALSE(recorder.submit_);
  EXPECT_FALSE(recorder.level_);
  EXPECT_THAT(recorder.token_paths_, IsEmpty());
  EXPECT_EQ(outcome.running.limits.submit_burst, 1);
  ASSERT_EQ(outcome.log.size(), 1u);
  EXPECT_EQ(outcome.log[0].level, ReloadLogLine::Level::kError);
  EXPECT_THAT(outcome.log[0].text, HasSubstr("limits.submit_per_minute: expected number"));
  // STATUS= is one line: the first problem.
  EXPECT_EQ(outcome.status,
            "reload refused, running config kept: /etc/bplace/bplaced.toml:2: limits.submit_burst: "
            "must be between 1 and 1000000, got 0");
}

TEST(ApplyReloadTest, RefusesASyntaxError) {
  Recorder recorder;
  const ReloadOutcome outcome = ApplyReload(
      config::Config{}, config::ParseConfig("[limits\n", "bplaced.toml"), recorder.targets());
  EXPECT_TRUE(outcome.refused);
  EXPECT_THAT(outcome.status, HasSubstr("bplaced.toml:1:"));
  EXPECT_THAT(outcome.status, HasSubstr("syntax error"));
  EXPECT_FALSE(recorder.limits_);
}

// Revoking a leaked token must not wait for a typo in the config file.
TEST(ApplyReloadTest, ARefusedFileStillReadsTheTokensFileAgain) {
  const config::Config running = Parse("[auth]\ntokens_file = \"/etc/bplace/tokens\"\n");
  Recorder recorder;
  const ReloadOutcome outcome =
      ApplyReload(running, config::ParseConfig("[limits\n", "bplaced.toml"), recorder.targets());
  EXPECT_TRUE(outcome.refused);
  EXPECT_FALSE(recorder.limits_);
  EXPECT_THAT(recorder.token_paths_, ElementsAre("/etc/bplace/tokens"));
  EXPECT_THAT(outcome.status, HasSubstr("reload refused, running config kept: bplaced.toml:1:"));
  EXPECT_THAT(outcome.status, HasSubstr("; "));
}

TEST(ApplyReloadTest, ReadsTheTokensFileAgainEvenWhenNothingChanged) {
  const config::Config running = Parse("[auth]\ntokens_file = \"/etc/bplace/tokens\"\n");
  Recorder recorder;
  const ReloadOutcome outcome = ApplyReload(running, running, recorder.targets());
  EXPECT_THAT(recorder.token_paths_, ElementsAre("/etc/bplace/tokens"));
  EXPECT_THAT(outcome.applied, IsEmpty());
  EXPECT_EQ(outcome.status, "reloaded: no key changed; 3 tokens");
}

TEST(ApplyReloadTest, TokensFromTheRunningPathWhenTheFileNamesAnother) {
  const config::Config running = Parse("[auth]\ntokens_file = \"/etc/bplace/tokens\"\n");
  const config::Config next = Parse("[auth]\ntokens_file = \"/etc/bplace/other\"\n");
  Recorder recorder;
  const ReloadOutcome outcome = ApplyReload(running, next, recorder.targets());
  EXPECT_THAT(recorder.token_paths_, ElementsAre("/etc/bplace/tokens"));
  EXPECT_THAT(outcome.need_restart, ElementsAre("auth.tokens_file"));
}

TEST(ApplyReloadTest, ABadTokensFileKeepsTheOldTokensAndAppliesTheRest) {
  const config::Config running = Parse("[auth]\ntokens_file = \"/etc/bplace/tokens\"\n");
  const config::Config next =
      Parse("[auth]\ntokens_file = \"/etc/bplace/tokens\"\n[limits]\nsubmit_burst = 9\n");
  Recorder recorder;
  recorder.tokens_fail_ = true;
  const ReloadOutcome outcome = ApplyReload(running, next, recorder.targets());
  EXPECT_FALSE(outcome.refused);
  ASSERT_TRUE(recorder.limits_);
  EXPECT_EQ(recorder.limits_->submit_burst, 9);
  EXPECT_THAT(Texts(outcome, ReloadLogLine::Level::kError),
              ElementsAre("previous tokens kept: /etc/bplace/tokens:1: bad token line"));
  EXPECT_EQ(outcome.status, "reloaded: 1 key applied; tokens file refused, previous tokens kept");
}

}  // namespace
}  // namespace bplace
