#include "daemon/placement/event_waits.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace bplace {
namespace {

using namespace std::chrono_literals;

lsf::LsbEvent Record(std::int64_t time, lsf::LsbEventBody body) {
  return lsf::LsbEvent{"", "10.1", time, std::move(body)};
}

lsf::LsbEvent New(std::int64_t id, const std::string& queue, std::int64_t slots,
                  std::int64_t submit, std::int64_t begin = 0) {
  lsf::JobNewRecord job;
  job.job_id = id;
  job.queue = queue;
  job.num_processors = slots;
  job.submit_time = submit;
  job.begin_time = begin;
  return Record(submit, job);
}

lsf::LsbEvent Start(std::int64_t id, std::int64_t time, std::int64_t index = 0) {
  lsf::JobStartRecord start;
  start.job_id = id;
  start.array_index = index;
  start.status = lsf::job_stat::kRun;
  return Record(time, start);
}

SystemTime At(std::int64_t s) { return SystemTime{} + std::chrono::seconds(s); }

TEST(EventWaitsTest, AStartCompletesTheWaitOfItsSubmission) {
  EventWaits waits;
  EXPECT_FALSE(waits.Feed(New(7, "short", 4, 1000)));
  const auto wait = waits.Feed(Start(7, 1090));
  ASSERT_TRUE(wait.has_value());
  EXPECT_EQ(wait->queue, "short");
  EXPECT_EQ(wait->slots, 4);
  EXPECT_EQ(wait->started - wait->submitted, 90s);
  EXPECT_EQ(wait->submitted, At(1000));
  EXPECT_FALSE(wait->backlog_at_submit.has_value());
  EXPECT_EQ(waits.stats().learned, 1u);
}

TEST(EventWaitsTest, CountsFromTheBeginTimeOfAJobThatCouldNotStartBefore) {
  EventWaits waits;
  waits.Feed(New(7, "short", 1, 1000, /*begin=*/5000));
  EXPECT_EQ(waits.Feed(Start(7, 5010))->submitted, At(5000));
}

TEST(EventWaitsTest, EveryArrayElementWaitsFromTheArraysSubmission) {
  EventWaits waits;
  waits.Feed(New(9, "normal", 1, 1000));
  EXPECT_EQ(waits.Feed(Start(9, 1010, 1))->started, At(1010));
  EXPECT_EQ(waits.Feed(Start(9, 1500, 2))->started, At(1500));
  // A requeued element starting again is not a second wait.
  EXPECT_FALSE(waits.Feed(Start(9, 1600, 2)));
  EXPECT_EQ(waits.stats().restarts, 1u);
}

TEST(EventWaitsTest, LeavesOutJobsThatDidNotWaitAsTheirQueueMakesThem) {
  EventWaits waits;
  for (std::int64_t id : {1, 2, 3, 4}) waits.Feed(New(id, "normal", 1, 1000));
  lsf::JobSwitchRecord sw;
  sw.job_id = 1;
  sw.queue = "short";
  waits.Feed(Record(1100, sw));
  lsf::JobMoveRecord move;
  move.job_id = 2;
  waits.Feed(Record(1100, move));
  lsf::JobForceRecord force;
  force.job_id = 3;
  waits.Feed(Record(1100, force));
  lsf::JobStatusRecord held;
  held.job_id = 4;
  held.status = lsf::job_stat::kPsusp;
  waits.Feed(Record(1100, held));
  for (std::int64_t id : {1, 2, 3, 4}) EXPECT_FALSE(waits.Feed(Start(id, 1200))) << id;
  EXPECT_EQ(waits.stats().disturbed, 4u);
  EXPECT_EQ(waits.stats().learned, 0u);
}

TEST(EventWaitsTest, ForgetsEndedCleanedAndOldJobs) {
  EventWaits waits;
  waits.Feed(New(1, "q", 1, 1000));
  waits.Feed(New(2, "q", 1, 1000));
  waits.Feed(New(3, "q", 1, 9000));
  lsf::JobStatusRecord killed;
  killed.job_id = 1;
  killed.status = lsf::job_stat::kExit;  // killed while pending
  waits.Feed(Record(1100, killed));
  EXPECT_EQ(waits.tracked(), 2u);
  lsf::JobCleanRecord clean;
  clean.job_id = 2;
  waits.Feed(Record(1200, clean));
  EXPECT_EQ(waits.tracked(), 1u);
  waits.Feed(New(4, "q", 1, 1000));
  waits.Prune(At(5000));
  EXPECT_EQ(waits.tracked(), 1u);  // job 3 (submitted at 9000) stays
  EXPECT_FALSE(waits.Feed(Start(4, 6000)));
  EXPECT_EQ(waits.stats().unknown_start, 1u);
}

}  // namespace
}  // namespace bplace
