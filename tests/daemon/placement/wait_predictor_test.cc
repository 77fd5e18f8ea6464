#include "daemon/placement/wait_predictor.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bplace {
namespace {

using namespace std::chrono_literals;

// A fixed origin: the predictor takes every time as an argument.
const SystemTime kT0 = SystemTime{} + 1'000'000s;

WaitObservation Wait(const std::string& queue, std::int64_t slots, std::chrono::seconds submit_at,
                     std::chrono::seconds wait, bool could_start = false) {
  return WaitObservation{queue,       slots,       kT0 + submit_at, kT0 + submit_at + wait,
                         could_start, std::nullopt};
}

WaitQuery Query(std::string_view queue, std::int64_t slots, bool starts_now) {
  return WaitQuery{queue, slots, starts_now, std::nullopt};
}

// Feeds `count` waits of `slots` slots cycling through 1..10 times `scale`.
void Learn(WaitPredictor& predictor, const std::string& queue, std::int64_t slots, int count,
           std::int64_t scale, std::chrono::seconds from = 0s) {
  for (int i = 0; i < count; ++i) {
    const auto wait = std::chrono::seconds((1 + i % 10) * scale);
    ASSERT_EQ(predictor.Observe(Wait(queue, slots, from + std::chrono::seconds(i), wait)),
              ObserveOutcome::kLearned);
  }
}

TEST(WaitPredictorTest, SaysNothingWithoutHistory) {
  const WaitPredictor predictor;
  const auto estimate = predictor.Predict(Query("normal", 1, false));
  EXPECT_EQ(estimate.method, WaitMethod::kNoHistory);
  EXPECT_EQ(estimate.bound, std::nullopt);
  EXPECT_EQ(estimate.samples, 0u);
  EXPECT_STREQ(WaitMethodName(estimate.method), "no_history");
}

TEST(WaitPredictorTest, BoundsFromTheJobsSlotClass) {
  WaitPredictor predictor;
  Learn(predictor, "normal", 1, 100, 10);    // serial jobs: 10..100 s
  Learn(predictor, "normal", 64, 100, 100);  // 64-slot jobs: 100..1000 s
  const auto serial = predictor.Predict(Query("normal", 1, false));
  EXPECT_EQ(serial.method, WaitMethod::kClassHistory);
  EXPECT_EQ(serial.bound, 100s);
  EXPECT_EQ(serial.p50, 50s);
  EXPECT_EQ(serial.samples, 100u);
  EXPECT_EQ(serial.quantile, 0.95);
  EXPECT_EQ(serial.confidence, 0.95);
  EXPECT_EQ(predictor.Predict(Query("normal", 40, false)).bound, 1000s);
}

TEST(WaitPredictorTest, FallsBackToTheQueueWhenTheClassHasTooFewWaits) {
  WaitPredictor predictor;
  Learn(predictor, "normal", 1, 100, 10);
  Learn(predictor, "normal", 8, 10, 10);  // 5-16 slots: only 10 waits
  const auto estimate = predictor.Predict(Query("normal", 8, false));
  EXPECT_EQ(estimate.method, WaitMethod::kQueueHistory);
  EXPECT_EQ(estimate.samples, 110u);
  EXPECT_EQ(estimate.confidence, 0.95);
}

TEST(WaitPredictorTest, StatesTheLowerConfidenceOfFewWaits) {
  WaitPredictor predictor;
  Learn(predictor, "normal", 1, 20, 10);
  const auto estimate = predictor.Predict(Query("normal", 1, false));
  EXPECT_EQ(estimate.method, WaitMethod::kFewSamples);
  EXPECT_EQ(estimate.bound, 100s);  // the largest
  EXPECT_EQ(estimate.samples, 20u);
  EXPECT_NEAR(estimate.confidence, 1 - std::pow(0.95, 20), 1e-12);
}

TEST(WaitPredictorTest, AJobThatCanStartNowIsToldNowNotHistory) {
  WaitPredictor predictor;
  Learn(predictor, "normal", 1, 200, 600);  // the queue's waits are long
  const auto estimate = predictor.Predict(Query("normal", 1, true));
  EXPECT_EQ(estimate.method, WaitMethod::kStartsNow);
  EXPECT_EQ(estimate.p50, 0s);
  // No dispatch delay known yet: the allowance, promised at no confidence.
  EXPECT_EQ(estimate.bound, 60s);
  EXPECT_EQ(estimate.samples, 0u);
  EXPECT_EQ(estimate.confidence, 0.0);
  // Unknown queues too: a job that can start is not waiting on history.
  EXPECT_EQ(predictor.Predict(Query("other", 1, true)).method, WaitMethod::kStartsNow);
}

TEST(WaitPredictorTest, LearnsTheDispatchDelayOfJobsThatCouldStart) {
  WaitPredictor predictor;
  for (int i = 0; i < 59; ++i) {
    predictor.Observe(Wait("normal", 1, std::chrono::seconds(i), std::chrono::seconds(1 + i % 5),
                           /*could_start=*/true));
  }
  const auto estimate = predictor.Predict(Query("normal", 1, true));
  EXPECT_EQ(estimate.bound, 5s);
  EXPECT_EQ(estimate.confidence, 0.95);
  EXPECT_EQ(estimate.samples, 59u);
  // Those delays are not waits of the queue's jobs that had to wait.
  EXPECT_EQ(predictor.Predict(Query("normal", 1, false)).method, WaitMethod::kNoHistory);
  EXPECT_TRUE(predictor.RecentWaits("normal", 10).empty());
}

TEST(WaitPredictorTest, LeavesOutWaitsThatOverlappedAnInactiveQueue) {
  WaitPredictor predictor;
  predictor.SetQueueDispatching("normal", false, kT0 + 100s);
  EXPECT_EQ(predictor.Predict(Query("normal", 1, false)).method, WaitMethod::kQueueInactive);
  EXPECT_EQ(predictor.Predict(Query("normal", 1, true)).method, WaitMethod::kQueueInactive);
  predictor.SetQueueDispatching("normal", true, kT0 + 200s);
  // Submitted before the close, started after it: left out.
  EXPECT_EQ(predictor.Observe(Wait("normal", 1, 50s, 100s)), ObserveOutcome::kOverlappedInactive);
  // Entirely inside the inactive interval: left out.
  EXPECT_EQ(predictor.Observe(Wait("normal", 1, 120s, 10s)), ObserveOutcome::kOverlappedInactive);
  // Started at the moment it closed, or submitted when it opened: kept.
  EXPECT_EQ(predictor.Observe(Wait("normal", 1, 90s, 10s)), ObserveOutcome::kLearned);
  EXPECT_EQ(predictor.Observe(Wait("normal", 1, 200s, 7s)), ObserveOutcome::kLearned);
  EXPECT_EQ(predictor.RecentWaits("normal", 10), (std::vector<std::int64_t>{7, 10}));
  // Another queue is not affected.
  EXPECT_EQ(predictor.Observe(Wait("short", 1, 50s, 100s)), ObserveOutcome::kLearned);
}

TEST(WaitPredictorTest, AQueueStillInactiveLeavesOutEveryWaitSinceItStopped) {
  WaitPredictor predictor;
  predictor.SetQueueDispatching("normal", false, kT0 + 100s);
  predictor.SetQueueDispatching("normal", false, kT0 + 150s);  // no change
  EXPECT_EQ(predictor.Observe(Wait("normal", 1, 5000s, 1s)), ObserveOutcome::kOverlappedInactive);
  EXPECT_EQ(predictor.Observe(Wait("normal", 1, 0s, 99s)), ObserveOutcome::kLearned);
}

TEST(WaitPredictorTest, RefusesAStartBeforeTheSubmission) {
  WaitPredictor predictor;
  EXPECT_EQ(predictor.Observe(Wait("normal", 1, 100s, -5s)), ObserveOutcome::kStartedBeforeSubmit);
  EXPECT_TRUE(predictor.RecentWaits("normal", 10).empty());
}

TEST(WaitPredictorTest, SlotClassesFollowTheLimits) {
  const WaitPredictor predictor;
  EXPECT_EQ(predictor.SlotClass(1), 0u);
  EXPECT_EQ(predictor.SlotClass(2), 1u);
  EXPECT_EQ(predictor.SlotClass(4), 1u);
  EXPECT_EQ(predictor.SlotClass(5), 2u);
  EXPECT_EQ(predictor.SlotClass(256), 4u);
  EXPECT_EQ(predictor.SlotClass(257), 5u);
}

TEST(WaitPredictorTest, FollowsAChangeOfTheQueuesWaits) {
  WaitPredictor predictor;
  Learn(predictor, "normal", 1, 500, 10);  // 10..100 s
  ASSERT_EQ(predictor.Predict(Query("normal", 1, false)).bound, 100s);
  // The queue fills up: waits of hours. Two misses in a row are a change.
  predictor.Observe(Wait("normal", 1, 1000s, 7200s));
  predictor.Observe(Wait("normal", 1, 1001s, 7300s));
  EXPECT_EQ(predictor.Predict(Query("normal", 1, false)).bound, 7300s);
}

TEST(WaitPredictorTest, WithoutTrimmingAChangeIsFollowedOnlySlowly) {
  WaitPredictorOptions options;
  options.trim_on_change = false;
  WaitPredictor predictor(options);
  Learn(predictor, "normal", 1, 500, 10);
  predictor.Observe(Wait("normal", 1, 1000s, 7200s));
  predictor.Observe(Wait("normal", 1, 1001s, 7300s));
  EXPECT_EQ(predictor.Predict(Query("normal", 1, false)).bound, 100s);
}

WaitObservation WaitBehind(double backlog, std::chrono::seconds submit_at,
                           std::chrono::seconds wait) {
  WaitObservation observation = Wait("normal", 1, submit_at, wait);
  observation.backlog_at_submit = backlog;
  return observation;
}

WaitQuery QueryBehind(double backlog) { return WaitQuery{"normal", 1, false, backlog}; }

TEST(WaitPredictorTest, FewWaitsBehindABacklogScaleWithIt) {
  WaitPredictor predictor;
  // Twenty waits of 10..29 s, each behind half a capacity: 20..58 s per capacity.
  for (int i = 0; i < 20; ++i) {
    predictor.Observe(WaitBehind(0.5, std::chrono::seconds(i), std::chrono::seconds(10 + i)));
  }
  // A burst's later job, four capacities behind: the largest rate seen
  // times the backlog, not the largest wait.
  const auto deep = predictor.Predict(QueryBehind(4.0));
  EXPECT_EQ(deep.method, WaitMethod::kFewSamples);
  EXPECT_EQ(deep.bound, 232s);
  EXPECT_NEAR(deep.confidence, 1 - std::pow(0.95, 20), 1e-12);
  // Behind little work the largest wait stays the bound.
  EXPECT_EQ(predictor.Predict(QueryBehind(0.1)).bound, 29s);
}

TEST(WaitPredictorTest, TooFewWaitsForALargestToBoundGiveNoBound) {
  // 18 waits: the largest is under a 19th drawn alike with probability
  // 18/19 < 0.95, at any confidence. The median is still said.
  WaitPredictor predictor;
  for (int i = 0; i < 18; ++i) {
    predictor.Observe(Wait("normal", 1, std::chrono::seconds(i), std::chrono::seconds(i)));
  }
  auto estimate = predictor.Predict(Query("normal", 1, false));
  EXPECT_EQ(estimate.method, WaitMethod::kFewSamples);
  EXPECT_FALSE(estimate.bound.has_value());
  EXPECT_EQ(estimate.p50, 8s);  // the lower median of 0..17
  EXPECT_EQ(estimate.samples, 18u);
  EXPECT_EQ(estimate.confidence, 0.0);
  predictor.Observe(Wait("normal", 1, 100s, 18s));
  estimate = predictor.Predict(Query("normal", 1, false));
  EXPECT_EQ(estimate.bound, 18s);
  EXPECT_EQ(estimate.samples, 19u);
}

TEST(WaitPredictorTest, BoundsFromWaitsBehindAsMuchWork) {
  WaitPredictor predictor;
  for (int i = 0; i < 100; ++i) {
    predictor.Observe(WaitBehind(0.1, std::chrono::seconds(i), std::chrono::seconds(10 + i % 10)));
    predictor.Observe(
        WaitBehind(1.0, std::chrono::seconds(i), std::chrono::seconds(1000 + i % 10)));
  }
  const auto little = predictor.Predict(QueryBehind(0.2));
  EXPECT_EQ(little.method, WaitMethod::kClassBacklogHistory);
  EXPECT_EQ(little.bound, 19s);
  const auto much = predictor.Predict(QueryBehind(1.5));
  EXPECT_EQ(much.method, WaitMethod::kClassBacklogHistory);
  EXPECT_EQ(much.bound, 1009s);
  // Without a backlog: the slot class, all 200 waits.
  const auto unknown = predictor.Predict(Query("normal", 1, false));
  EXPECT_EQ(unknown.method, WaitMethod::kClassHistory);
  EXPECT_EQ(unknown.samples, 200u);
  EXPECT_EQ(predictor.BacklogClass(0.5), 0u);
  EXPECT_EQ(predictor.BacklogClass(0.51), 1u);
  EXPECT_EQ(predictor.BacklogClass(2.5), 2u);
}

TEST(WaitPredictorTest, ScalesTheBoundWithADeepBacklog) {
  WaitPredictor predictor;
  // Half a capacity ahead, waits of 500..509 s: 1000..1018 s per capacity.
  for (int i = 0; i < 100; ++i) {
    predictor.Observe(WaitBehind(0.5, std::chrono::seconds(i), std::chrono::seconds(500 + i % 10)));
  }
  // Ten capacities ahead (a burst): ten times the drain time, not the
  // waits seen behind half a capacity.
  const auto deep = predictor.Predict(QueryBehind(10.0));
  EXPECT_EQ(deep.method, WaitMethod::kBacklogScaled);
  EXPECT_EQ(deep.bound, 10180s);
  EXPECT_EQ(deep.samples, 100u);
  EXPECT_STREQ(WaitMethodName(deep.method), "backlog_scaled");
  // At or under backlog_scale_from (2): history, not scaling (here the
  // slot class's: no wait was seen behind 0.5 to 2 capacities).
  EXPECT_EQ(predictor.Predict(QueryBehind(2.0)).method, WaitMethod::kClassHistory);
}

TEST(WaitPredictorTest, ShallowBacklogsDoNotTeachTheDrainRate) {
  WaitPredictor predictor;
  // A quarter of a capacity or less ahead: backfilled, dispatch delays.
  for (int i = 0; i < 100; ++i) {
    predictor.Observe(WaitBehind(0.01, std::chrono::seconds(i), std::chrono::seconds(60)));
  }
  const auto deep = predictor.Predict(QueryBehind(10.0));
  EXPECT_NE(deep.method, WaitMethod::kBacklogScaled);
  EXPECT_EQ(deep.bound, 60s);
}

TEST(WaitPredictorTest, AdaptiveCorrectionRaisesTheQuantileAfterMisses) {
  WaitPredictorOptions options;
  options.trim_on_change = false;
  options.adaptive_rate = 0.01;
  WaitPredictor adaptive(options);
  options.adaptive_rate = 0.0;
  WaitPredictor plain(options);
  for (WaitPredictor* predictor : {&adaptive, &plain}) {
    Learn(*predictor, "normal", 1, 1000, 1);  // 1..10 s, bound 10 s
    // Misses spread out (no change-point run): one in 8 above the bound.
    for (int i = 0; i < 400; ++i) {
      const auto wait =
          i % 8 == 0 ? std::chrono::seconds(1000 + i) : std::chrono::seconds(1 + i % 9);
      predictor->Observe(Wait("normal", 1, std::chrono::seconds(2000 + i), wait));
    }
  }
  EXPECT_GT(*adaptive.Predict(Query("normal", 1, false)).bound,
            *plain.Predict(Query("normal", 1, false)).bound);
  EXPECT_EQ(adaptive.Predict(Query("normal", 1, false)).quantile,
            0.95);  // the target stays as stated
}

TEST(WaitPredictorTest, AQuantileRaisedBeyondTheHistoryTakesTheLargestWait) {
  WaitPredictorOptions options;
  options.adaptive_rate = 1.0;  // one miss raises the quantile to the cap, 0.999
  WaitPredictor predictor(options);
  Learn(predictor, "normal", 1, 100, 1);  // 1..10 s
  predictor.Observe(Wait("normal", 1, 500s, 1000s));
  const auto estimate = predictor.Predict(Query("normal", 1, false));
  // 101 waits cannot bound the 0.999 quantile; their largest is still a
  // bound on the configured 0.95 at its confidence, not "few samples", and
  // it comes from the job's own slot class, which holds them all.
  EXPECT_EQ(estimate.method, WaitMethod::kClassHistory);
  EXPECT_EQ(estimate.bound, 1000s);
  EXPECT_EQ(estimate.confidence, 0.95);
  EXPECT_EQ(estimate.quantile, 0.95);
}

TEST(WaitPredictorTest, ARaisedQuantileKeepsTheBoundOfTheJobsBacklogClass) {
  WaitPredictorOptions options;
  options.adaptive_rate = 1.0;  // one miss raises the quantile to the cap, 0.999
  options.trim_on_change = false;
  WaitPredictor predictor(options);
  for (int i = 0; i < 100; ++i) {
    // Short waits behind little work, long ones behind more than the
    // capacity (backlog classes up to 0.5 and 0.5-2).
    predictor.Observe(WaitBehind(0.1, std::chrono::seconds(i), std::chrono::seconds(1 + i % 10)));
    predictor.Observe(WaitBehind(1.5, std::chrono::seconds(i), std::chrono::seconds(100 + i % 10)));
  }
  predictor.Observe(WaitBehind(1.5, 500s, 1000s));  // a miss: the quantile goes up
  // Neither class can bound 0.999; each gives its own largest wait, so the
  // bound still follows the backlog instead of being the queue's 1000 s.
  const auto shallow = predictor.Predict(QueryBehind(0.1));
  EXPECT_EQ(shallow.method, WaitMethod::kClassBacklogHistory);
  EXPECT_EQ(shallow.bound, 10s);
  EXPECT_EQ(shallow.confidence, 0.95);
  const auto deep = predictor.Predict(QueryBehind(1.5));
  EXPECT_EQ(deep.method, WaitMethod::kClassBacklogHistory);
  EXPECT_EQ(deep.bound, 1000s);
}

}  // namespace
}  // namespace bplace
