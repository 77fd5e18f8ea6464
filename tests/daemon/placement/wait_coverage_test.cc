// The live coverage record (daemon/placement/wait_coverage.h): what it
// counts, the judgement a job then shows, once per submission of a job id.

#include "daemon/placement/wait_coverage.h"

#include <chrono>
#include <optional>

#include <gtest/gtest.h>

namespace bplace {
namespace {

SystemTime At(std::int64_t s) { return SystemTime{} + std::chrono::seconds(1'700'000'000 + s); }

StartPrediction Bound(std::int64_t bound_s) {
  StartPrediction prediction;
  prediction.method = "class_history";
  prediction.bound_s = bound_s;
  return prediction;
}

TEST(WaitCoverageTest, APredictionWithoutABoundPromisedNothing) {
  WaitCoverage coverage;
  StartPrediction none;
  none.method = "no_history";
  EXPECT_FALSE(coverage.Record(JobKey{1, 0}, "q", At(0), 10, none));
  EXPECT_EQ(coverage.Total().predictions, 0u);
  // Its wait is still the one its job shows.
  const std::optional<JudgedWait> judged = coverage.Judged(JobKey{1, 0}, At(0));
  ASSERT_TRUE(judged.has_value());
  EXPECT_EQ(judged->wait_s, 10);
  EXPECT_FALSE(judged->within_bound.has_value());
  EXPECT_TRUE(coverage.Record(JobKey{2, 0}, "q", At(0), 10, Bound(10)));
  EXPECT_EQ(coverage.Total().within_bound, 1u) << "the bound is inclusive";
  EXPECT_EQ(coverage.Judged(JobKey{2, 0}, At(0))->within_bound, true);
}

TEST(WaitCoverageTest, ASubmissionIsJudgedOnceOnItsFirstWait) {
  WaitCoverage coverage;
  // The jobs tier saw it first (bjobs' wait, to the minute); the event log's
  // exact wait comes later and changes nothing.
  EXPECT_TRUE(coverage.Record(JobKey{7, 0}, "q", At(0), 65, Bound(60)));
  EXPECT_FALSE(coverage.Record(JobKey{7, 0}, "q", At(-2), 58, Bound(60)));
  EXPECT_EQ(coverage.Total().predictions, 1u);
  EXPECT_EQ(coverage.Total().within_bound, 0u);
  EXPECT_EQ(coverage.Judged(JobKey{7, 0}, At(0))->wait_s, 65);
  EXPECT_EQ(coverage.ByQueue().at("q").predictions, 1u);
}

TEST(WaitCoverageTest, AnotherJobOfTheSameIdIsJudgedAfreshAndTheOldJudgementIsNotShown) {
  // LSF's job ids wrap at MAX_JOBID: job 7 again, a day later.
  WaitCoverage coverage;
  EXPECT_TRUE(coverage.Record(JobKey{7, 0}, "q", At(0), 5, Bound(60)));
  EXPECT_FALSE(coverage.Judged(JobKey{7, 0}, At(86400)).has_value()) << "not yet judged";
  EXPECT_TRUE(coverage.Record(JobKey{7, 0}, "q", At(86400), 90, Bound(60)));
  EXPECT_EQ(coverage.Total().predictions, 2u);
  EXPECT_EQ(coverage.Judged(JobKey{7, 0}, At(86400))->wait_s, 90);
  EXPECT_FALSE(coverage.Judged(JobKey{7, 0}, At(0)).has_value()) << "replaced";
  // Minutes apart is the same submission (bsub's seconds, LSF's and
  // bplace's clocks); more than five is not.
  EXPECT_TRUE(SameSubmission(At(0), At(300)));
  EXPECT_TRUE(SameSubmission(At(300), At(0)));
  EXPECT_FALSE(SameSubmission(At(0), At(301)));
}

TEST(WaitCoverageTest, AnArrayIsJudgedOnceOnItsFirstElementToStart) {
  WaitCoverage coverage;
  EXPECT_TRUE(coverage.Record(JobKey{9, 4}, "q", At(0), 3, Bound(60)));
  EXPECT_FALSE(coverage.Record(JobKey{9, 1}, "q", At(0), 600, Bound(60)));
  EXPECT_EQ(coverage.Total().predictions, 1u);
  EXPECT_EQ(coverage.Total().within_bound, 1u);
  EXPECT_EQ(coverage.Judged(JobKey{9, 0}, At(0))->wait_s, 3) << "the array's wait";
  EXPECT_FALSE(coverage.Judged(JobKey{9, 1}, At(0)).has_value()) << "an element shows its own";
}

}  // namespace
}  // namespace bplace
