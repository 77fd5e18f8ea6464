// Each queue's backlog share over time (daemon/placement/backlog_history.h).
// No clock: times are given.

#include "daemon/placement/backlog_history.h"

#include <chrono>

#include <gtest/gtest.h>

namespace bplace {
namespace {

SystemTime At(std::int64_t s) { return SystemTime{} + std::chrono::seconds(s); }

TEST(BacklogHistoryTest, AnswersTheNewestShareAtOrBeforeATime) {
  BacklogHistory history;
  history.Record("q", At(100), 0.0);
  history.Record("q", At(115), 1.5);
  history.Record("q", At(130), 0.25);
  EXPECT_EQ(history.ShareAt("q", At(100)), 0.0);
  EXPECT_EQ(history.ShareAt("q", At(114)), 0.0);
  EXPECT_EQ(history.ShareAt("q", At(115)), 1.5);
  EXPECT_EQ(history.ShareAt("q", At(129)), 1.5);
  EXPECT_EQ(history.ShareAt("q", At(100000)), 0.25);
}

TEST(BacklogHistoryTest, KnowsNothingBeforeTheFirstRecordOrOfAnotherQueue) {
  BacklogHistory history;
  EXPECT_EQ(history.ShareAt("q", At(100)), std::nullopt);
  history.Record("q", At(100), 2.0);
  EXPECT_EQ(history.ShareAt("q", At(99)), std::nullopt);
  EXPECT_EQ(history.ShareAt("other", At(100)), std::nullopt);
  EXPECT_EQ(history.records("other"), 0u);
}

TEST(BacklogHistoryTest, KeepsARecordOnlyWhenTheShareChanges) {
  BacklogHistory history;
  for (int i = 0; i < 100; ++i) history.Record("q", At(100 + 15 * i), 0.5);
  EXPECT_EQ(history.records("q"), 1u);
  // The first record still answers for the whole time.
  EXPECT_EQ(history.ShareAt("q", At(2000)), 0.5);
  history.Record("q", At(3000), 0.75);
  EXPECT_EQ(history.records("q"), 2u);
  EXPECT_EQ(history.ShareAt("q", At(2999)), 0.5);
}

TEST(BacklogHistoryTest, IgnoresARecordOlderThanTheNewest) {
  BacklogHistory history;
  history.Record("q", At(200), 1.0);
  history.Record("q", At(100), 3.0);
  EXPECT_EQ(history.records("q"), 1u);
  EXPECT_EQ(history.ShareAt("q", At(150)), std::nullopt);
  EXPECT_EQ(history.ShareAt("q", At(250)), 1.0);
}

TEST(BacklogHistoryTest, ForgetsTheOldestBeyondItsBound) {
  BacklogHistory history(3);
  for (int i = 0; i < 5; ++i) history.Record("q", At(100 * (i + 1)), i);
  EXPECT_EQ(history.records("q"), 3u);
  // Records at 100 and 200 are gone: a job submitted then has no known backlog.
  EXPECT_EQ(history.ShareAt("q", At(250)), std::nullopt);
  EXPECT_EQ(history.ShareAt("q", At(300)), 2.0);
  EXPECT_EQ(history.ShareAt("q", At(550)), 4.0);
}

}  // namespace
}  // namespace bplace
