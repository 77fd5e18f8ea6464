// The JSON of a followed job (api/job_json.h): what its placement predicted
// of its start, as the placement answered it, and the wait LSF gave it
// against that bound. Pure: views built by hand.

#include "api/job_json.h"

#include <chrono>
#include <memory>
#include <optional>

#include <gtest/gtest.h>

#include "api/job_filter.h"
#include "api/json_mapping.h"
#include "daemon/placement/job_waits.h"
#include "daemon/placement/wait_coverage.h"

namespace bplace::api {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

SystemTime At(std::int64_t s) { return SystemTime{} + std::chrono::seconds(1'700'000'000 + s); }

StartPrediction ClassHistory() {
  StartPrediction prediction;
  prediction.method = "class_history";
  prediction.p50_s = 240;
  prediction.bound_s = 1200;
  prediction.quantile = 0.95;
  prediction.confidence = 0.95;
  prediction.samples = 180;
  return prediction;
}

// A job bplace submitted with `prediction`, submitted at 0 and, when
// `started` is set, started that many seconds later.
JobView Job(std::optional<StartPrediction> prediction, std::optional<std::int64_t> started) {
  JobView view;
  view.lsf.job_id = "42";
  view.lsf.status = started ? "RUN" : "PEND";
  view.lsf.queue = "normal";
  view.submitted_by_bplace = prediction.has_value();
  view.predicted_start = std::move(prediction);
  view.submit_time = At(0);
  if (started) view.start_time = At(*started);
  return view;
}

TEST(JobJsonTest, AJobBplacePlacedCarriesItsExpectedStartAsThePlacementAnsweredIt) {
  const json body = JobJson(Job(ClassHistory(), std::nullopt), nullptr);
  // The same object, words included, that the candidate of its placement had.
  EXPECT_EQ(body["expected_start"], ExpectedStartJson(*FromPrediction(ClassHistory())));
  EXPECT_EQ(body["expected_start"]["summary"], "~4 min, 95% bound 20 min");
  EXPECT_EQ(body["expected_start"]["method"], "class_history");
  EXPECT_EQ(body["expected_start"]["bound_s"], 1200);
  EXPECT_EQ(body["expected_start"]["samples"], 180);
  EXPECT_TRUE(body["wait_s"].is_null()) << "not started yet";
  EXPECT_TRUE(body["within_bound"].is_null());
}

TEST(JobJsonTest, AStartedJobSaysHowLongItWaitedAndWhetherThatWasWithinTheBound) {
  json body = JobJson(Job(ClassHistory(), 1200), nullptr);
  EXPECT_EQ(body["wait_s"], 1200);
  EXPECT_EQ(body["within_bound"], true) << "the bound is inclusive";
  body = JobJson(Job(ClassHistory(), 1201), nullptr);
  EXPECT_EQ(body["wait_s"], 1201);
  EXPECT_EQ(body["within_bound"], false);
}

TEST(JobJsonTest, APredictionWithoutABoundPromisedNothing) {
  StartPrediction none;
  none.method = "no_history";
  const json body = JobJson(Job(none, 90), nullptr);
  EXPECT_EQ(body["expected_start"]["method"], "no_history");
  EXPECT_TRUE(body["expected_start"]["bound_s"].is_null());
  EXPECT_EQ(body["wait_s"], 90);
  EXPECT_TRUE(body["within_bound"].is_null());
}

TEST(JobJsonTest, AJobBplaceDidNotPlaceHasNoExpectedStartButItsWait) {
  const json body = JobJson(Job(std::nullopt, 75), nullptr);
  ASSERT_TRUE(body.contains("expected_start"));
  EXPECT_TRUE(body["expected_start"].is_null());
  EXPECT_EQ(body["wait_s"], 75);
  EXPECT_TRUE(body["within_bound"].is_null());
}

TEST(JobJsonTest, ARecordWithAMethodBplaceDoesNotKnowIsNoPrediction) {
  StartPrediction foreign = ClassHistory();
  foreign.method = "oracle";
  const json body = JobJson(Job(foreign, 60), nullptr);
  EXPECT_TRUE(body["expected_start"].is_null());
  EXPECT_TRUE(body["within_bound"].is_null()) << "no verdict on a prediction not shown";
}

TEST(JobJsonTest, AJobJudgedByTheCoverageShowsTheWaitItWasJudgedOn) {
  // bjobs gave the start to the minute (a whole minute, 1180 s after the
  // submission): a wait of up to 1239 s, beyond the bound. The event log
  // gave 1195 s, within it; the job says what the counters say.
  JobView job = Job(ClassHistory(), 1200 - (1'700'001'200 % 60));
  EXPECT_EQ(JobJson(job, nullptr)["wait_s"], 1239);
  WaitCoverage coverage;
  ASSERT_TRUE(coverage.Record(JobKey{42, 0}, "normal", At(0), 1195, ClassHistory()));
  json body = JobJson(job, &coverage);
  EXPECT_EQ(body["wait_s"], 1195);
  EXPECT_EQ(body["within_bound"], true);
  // Judged before the jobs tier saw it start: its wait is known already.
  body = JobJson(Job(ClassHistory(), std::nullopt), &coverage);
  EXPECT_EQ(body["wait_s"], 1195);
  EXPECT_EQ(body["within_bound"], true);
  // Another job, not judged: its own wait.
  JobView other = Job(ClassHistory(), 1201);
  other.lsf.job_id = "43";
  body = JobJson(other, &coverage);
  EXPECT_EQ(body["wait_s"], 1201);
  EXPECT_EQ(body["within_bound"], false);
  // A job bplace did not place is never shown a judgement.
  JobView stranger = Job(std::nullopt, 30);
  EXPECT_EQ(JobJson(stranger, &coverage)["wait_s"], 30);
  // Nor is a later job of the same id (LSF's ids wrap): its own wait.
  JobView again = Job(ClassHistory(), 86400 + 70);
  again.submit_time = At(86400);
  body = JobJson(again, &coverage);
  EXPECT_EQ(body["wait_s"], 70);
  // The list shows the same judgement as the job.
  JobTable table;
  table.jobs[JobKey{42, 0}] = std::make_shared<const JobView>(job);
  const json page = JobPage(table, JobFilterQuery{}, &coverage);
  ASSERT_EQ(page["jobs"].size(), 1u) << page.dump();
  EXPECT_EQ(page["jobs"][0]["wait_s"], 1195);
  EXPECT_EQ(page["jobs"][0]["within_bound"], true);
}

TEST(JobJsonTest, AnArrayJobsElementsCarryTheirOwn) {
  JobView element = Job(ClassHistory(), 30);
  element.lsf.array_index = 2;
  // The coverage judged the array on its first element to start (index 1,
  // after 20 s); element 2 still shows its own wait.
  WaitCoverage coverage;
  ASSERT_TRUE(coverage.Record(JobKey{42, 1}, "normal", At(0), 20, ClassHistory()));
  const json body = ArrayJobJson(42, {&element}, &coverage);
  EXPECT_EQ(body["elements"][0]["wait_s"], 30);
  EXPECT_EQ(body["elements"][0]["within_bound"], true);
}

}  // namespace
}  // namespace bplace::api
