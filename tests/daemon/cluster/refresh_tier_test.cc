#include "daemon/cluster/refresh_tier.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

#include "common/manual_clock.h"
#include "tests/fakes/fake_command_runner.h"

namespace bplace {
namespace {

using namespace std::chrono_literals;
using testing::FakeCommandRunner;

// A tier with one query, "probe", whose output goes into the snapshot's
// cluster name (any field would do): the tests watch what gets published.
class RefreshTierTest : public ::testing::Test {
 protected:
  RefreshTierTest() {
    fake_.OnArgv({"probe"}, FakeCommandRunner::Output("one\n"));
    options_.name = "test";
    options_.interval = 10s;
    options_.retry_interval = 1s;
    options_.status = &ClusterSnapshot::load_status;
  }

  RefreshTier& Tier() {
    if (!tier_) {
      tier_ = std::make_unique<RefreshTier>(io_.get_executor(), fake_, clock_, store_, options_,
                                            [this] { return Cycle(); });
    }
    return *tier_;
  }

  TierCycle Cycle() {
    ++cycles_;
    TierCycle cycle;
    lsf::CommandSpec spec;
    spec.argv = {"probe"};
    cycle.queries = {{"probe", spec}};
    cycle.build = [this](auto& results, const CycleTimes&) -> Result<SnapshotStore::Change> {
      if (throw_in_build_) throw std::runtime_error("boom");
      if (!results[0] || results[0]->exit_code != 0) {
        return Fail(ErrorCode::kCommandFailed, "probe failed");
      }
      return [text = results[0]->out](ClusterSnapshot& snapshot) {
        snapshot.identity.cluster_name = text;
      };
    };
    return cycle;
  }

  Result<void> Refresh() {
    std::optional<Result<void>> got;
    Tier().Refresh([&](Result<void> r) { got = std::move(r); });
    io_.restart();
    io_.poll();
    return got.value_or(Fail(ErrorCode::kInternal, "no callback"));
  }

  // Lets `step` pass and runs whatever became due.
  void Advance(std::chrono::milliseconds step) {
    clock_.Advance(step);
    io_.restart();
    io_.poll();
  }

  std::size_t Probes() const {
    std::size_t n = 0;
    for (const auto& call : fake_.Calls()) n += call.argv == std::vector<std::string>{"probe"};
    return n;
  }

  boost::asio::io_context io_;
  FakeCommandRunner fake_{io_.get_executor()};
  ManualClock clock_;
  SnapshotStore store_;
  RefreshTierOptions options_;
  std::unique_ptr<RefreshTier> tier_;
  int cycles_ = 0;
  bool throw_in_build_ = false;
};

TEST_F(RefreshTierTest, PublishesDataAndStatusTogether) {
  ASSERT_TRUE(Refresh());
  const auto snapshot = store_.Current();
  EXPECT_EQ(snapshot->identity.cluster_name, "one\n");
  EXPECT_EQ(snapshot->load_status.successes, 1u);
  EXPECT_EQ(snapshot->load_status.last_success, clock_.SystemNow());
}

TEST_F(RefreshTierTest, CallersDuringARunShareIt) {
  fake_.HoldReplies();
  int answers = 0;
  for (int i = 0; i < 5; ++i) Tier().Refresh([&](Result<void> r) { answers += r.has_value(); });
  io_.poll();
  fake_.ReleaseHeld();
  io_.restart();
  io_.poll();
  EXPECT_EQ(answers, 5);
  EXPECT_EQ(Probes(), 1u);
}

TEST_F(RefreshTierTest, RunsAgainAfterTheIntervalOnceStarted) {
  Tier().Start();
  io_.poll();
  EXPECT_EQ(Probes(), 1u);
  Advance(9s);
  EXPECT_EQ(Probes(), 1u);
  Advance(1s);
  EXPECT_EQ(Probes(), 2u);
}

TEST_F(RefreshTierTest, AShorterIntervalMovesTheNextRunToOneNewIntervalAfterTheLast) {
  Tier().Start();
  io_.poll();
  Advance(3s);
  Tier().SetInterval(5s);
  Advance(1s);  // 4 s after the run: not yet
  EXPECT_EQ(Probes(), 1u);
  Advance(1s);
  EXPECT_EQ(Probes(), 2u);
  Advance(5s);
  EXPECT_EQ(Probes(), 3u);
}

TEST_F(RefreshTierTest, AShorterIntervalAlreadyPastRunsAtOnce) {
  Tier().Start();
  io_.poll();
  Advance(7s);
  Tier().SetInterval(5s);
  Advance(0s);
  EXPECT_EQ(Probes(), 2u);
}

TEST_F(RefreshTierTest, ALongerIntervalDefersTheNextRun) {
  Tier().Start();
  io_.poll();
  Tier().SetInterval(30s);
  Advance(0s);  // the change is made on the tier's strand
  Advance(10s);
  EXPECT_EQ(Probes(), 1u);
  Advance(20s);
  EXPECT_EQ(Probes(), 2u);
}

TEST_F(RefreshTierTest, SetIntervalOnAStoppedTierStartsNothing) {
  Tier().Start();
  io_.poll();
  Tier().Stop();
  Tier().SetInterval(1s);
  Advance(0s);
  Advance(1h);
  EXPECT_EQ(Probes(), 1u);
}

TEST_F(RefreshTierTest, RetriesWithBackoffAfterFailures) {
  fake_.OnArgv({"probe"}, FakeCommandRunner::Output("", "no\n", 3));
  Tier().Start();
  io_.poll();
  EXPECT_EQ(Probes(), 1u);
  Advance(1s);  // first retry after retry_interval
  EXPECT_EQ(Probes(), 2u);
  Advance(1s);  // the second waits twice as long
  EXPECT_EQ(Probes(), 2u);
  Advance(1s);
  EXPECT_EQ(Probes(), 3u);
  EXPECT_EQ(store_.Current()->load_status.consecutive_failures, 3);
}

TEST_F(RefreshTierTest, BackoffNeverExceedsTheInterval) {
  EXPECT_EQ(RefreshTier::NextDelay(options_, 0), 10s);
  EXPECT_EQ(RefreshTier::NextDelay(options_, 1), 1s);
  EXPECT_EQ(RefreshTier::NextDelay(options_, 2), 2s);
  EXPECT_EQ(RefreshTier::NextDelay(options_, 4), 8s);
  EXPECT_EQ(RefreshTier::NextDelay(options_, 5), 10s);
  EXPECT_EQ(RefreshTier::NextDelay(options_, 60), 10s);
}

TEST_F(RefreshTierTest, StopCancelsTheTimer) {
  Tier().Start();
  io_.poll();
  Tier().Stop();
  io_.restart();
  io_.poll();
  Advance(1h);
  EXPECT_EQ(Probes(), 1u);
  EXPECT_EQ(clock_.PendingTimers(), 0u);
}

// A bug once: one throw in a refresh ended the daemon (docs/design.md
// "Decisions").
TEST_F(RefreshTierTest, AThrowInBuildFailsTheRunAndKeepsTheLastSnapshot) {
  ASSERT_TRUE(Refresh());
  const auto good = store_.Current();
  throw_in_build_ = true;
  const Result<void> failed = Refresh();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::kInternal);
  EXPECT_NE(failed.error().message.find("boom"), std::string::npos);
  EXPECT_EQ(store_.Current()->identity.cluster_name, good->identity.cluster_name);
  EXPECT_NE(store_.Current()->load_status.last_error.find("boom"), std::string::npos);
  throw_in_build_ = false;
  EXPECT_TRUE(Refresh()) << "the tier goes on";
}

TEST_F(RefreshTierTest, AManualRunReplacesThePendingTimer) {
  Tier().Start();
  io_.poll();
  Advance(5s);
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(Probes(), 2u);
  Advance(5s);  // the old timer would have fired here
  EXPECT_EQ(Probes(), 2u);
  Advance(5s);
  EXPECT_EQ(Probes(), 3u);
}

TEST_F(RefreshTierTest, RefreshSoonRunsAtMostOncePerGap) {
  ASSERT_TRUE(Refresh());
  int answers = 0;
  for (int i = 0; i < 10; ++i) Tier().RefreshSoon(2s, [&](Result<void>) { ++answers; });
  io_.restart();
  io_.poll();
  EXPECT_EQ(Probes(), 1u) << "the last run started less than 2 s ago";
  Advance(2s);
  EXPECT_EQ(Probes(), 2u);
  EXPECT_EQ(answers, 10) << "every caller shares the one run";
  Advance(3s);
  Tier().RefreshSoon(2s);
  io_.restart();
  io_.poll();
  EXPECT_EQ(Probes(), 3u) << "past the gap it runs at once";
}

// A caller who changed what a run asks (the jobs tier: a new job id) must
// not get the result of a run whose queries were built before the change.
TEST_F(RefreshTierTest, RefreshSoonDuringARunIsAnsweredByTheNextRun) {
  fake_.HoldReplies();
  Tier().Refresh();
  io_.poll();
  ASSERT_EQ(cycles_, 1);
  std::optional<int> answered_after_cycle;
  Tier().RefreshSoon(1s, [&](Result<void>) { answered_after_cycle = cycles_; });
  io_.restart();
  io_.poll();
  fake_.ReleaseHeld();
  io_.restart();
  io_.poll();
  EXPECT_FALSE(answered_after_cycle) << "answered by the run that was already running";
  Advance(1s);  // the next run starts a gap after the last start
  fake_.ReleaseHeld();
  io_.restart();
  io_.poll();
  ASSERT_TRUE(answered_after_cycle);
  EXPECT_EQ(*answered_after_cycle, 2);
  EXPECT_EQ(Probes(), 2u);
}

TEST_F(RefreshTierTest, WaitForNextStartsNothingAndAnswersAfterTheNextRun) {
  Tier().Start();
  io_.poll();
  std::optional<Result<void>> got;
  Tier().WaitForNext([&](Result<void> r) { got = r; });
  io_.restart();
  io_.poll();
  EXPECT_FALSE(got);
  EXPECT_EQ(Probes(), 1u);
  Advance(10s);
  ASSERT_TRUE(got);
  EXPECT_TRUE(*got);
  EXPECT_EQ(Probes(), 2u);
}

}  // namespace
}  // namespace bplace
