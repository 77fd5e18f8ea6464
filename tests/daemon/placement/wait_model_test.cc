// The daemon's side of wait prediction: the model's generation
// (daemon/placement/wait_model.h), the words, the jobs tier's waits and
// the coverage record (job_waits.h, wait_coverage.h), and finding and
// reading LSF's event log (event_log_feed.h). No clock: times are given.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "daemon/placement/event_log_feed.h"
#include "daemon/placement/job_waits.h"
#include "daemon/placement/wait_coverage.h"
#include "daemon/placement/wait_model.h"

namespace bplace {
namespace {

using namespace std::chrono_literals;

SystemTime At(std::int64_t s) { return SystemTime{} + std::chrono::seconds(s); }

WaitObservation Wait(const std::string& queue, std::int64_t submitted, std::int64_t started) {
  WaitObservation wait;
  wait.queue = queue;
  wait.submitted = At(submitted);
  wait.started = At(started);
  return wait;
}

TEST(WaitModelTest, TheGenerationGrowsWithEveryWaitLearnedAndDispatchChange) {
  WaitModel model;
  EXPECT_EQ(model.generation(), 0u);
  EXPECT_EQ(model.Observe(Wait("q", 100, 160)), ObserveOutcome::kLearned);
  EXPECT_EQ(model.generation(), 1u);
  // Inconsistent times change nothing the model answers.
  EXPECT_EQ(model.Observe(Wait("q", 200, 100)), ObserveOutcome::kStartedBeforeSubmit);
  EXPECT_EQ(model.generation(), 1u);
  EXPECT_EQ(model.learned(), 1u);
  EXPECT_EQ(model.left_out(), 1u);
  model.SetQueueDispatching("q", true, At(300));  // already dispatching
  EXPECT_EQ(model.generation(), 1u);
  model.SetQueueDispatching("q", false, At(300));
  EXPECT_EQ(model.generation(), 2u);
  WaitQuery query;
  query.queue = "q";
  EXPECT_EQ(model.Predict(query).method, WaitMethod::kQueueInactive);
  model.SetQueueDispatching("q", true, At(400));
  EXPECT_EQ(model.generation(), 3u);
  EXPECT_EQ(model.RecentWaits("q", 10), (std::vector<std::int64_t>{60}));
}

TEST(WaitModelTest, AWaitWithoutABacklogIsGivenTheOneRecordedAtItsSubmission) {
  WaitPredictorOptions options;
  options.trim_on_change = false;
  options.adaptive_rate = 0.0;
  WaitModel model(options);
  // Up to 1,000 s the queue was nearly empty, then a capacity's worth behind.
  model.RecordBacklog("q", At(0), 0.1);
  model.RecordBacklog("q", At(1000), 1.0);
  const std::uint64_t before = model.generation();
  for (int i = 0; i < 70; ++i) model.Observe(Wait("q", 500, 500 + 60 + i));
  for (int i = 0; i < 70; ++i) model.Observe(Wait("q", 1500, 1500 + 3600 + i));
  EXPECT_EQ(model.generation(), before + 140) << "recording a backlog promises nothing";
  WaitQuery query;
  query.queue = "q";
  query.backlog = 0.1;
  const WaitEstimate light = model.Predict(query);
  EXPECT_EQ(light.method, WaitMethod::kClassBacklogHistory);
  ASSERT_TRUE(light.bound.has_value());
  EXPECT_LT(light.bound->count(), 200);
  query.backlog = 1.0;
  const WaitEstimate heavy = model.Predict(query);
  EXPECT_EQ(heavy.method, WaitMethod::kClassBacklogHistory);
  ASSERT_TRUE(heavy.bound.has_value());
  EXPECT_GE(heavy.bound->count(), 3600);
}

TEST(WaitModelTest, AWaitSubmittedBeforeAnyRecordOrWithItsOwnBacklogKeepsWhatItHas) {
  WaitPredictorOptions options;
  options.trim_on_change = false;
  options.adaptive_rate = 0.0;
  WaitModel model(options);
  model.RecordBacklog("q", At(1000), 0.1);
  // Before the first record: the queue's slot-class history only.
  for (int i = 0; i < 70; ++i) model.Observe(Wait("q", 500, 500 + 3600 + i));
  // Its own backlog (the replay's, or a caller's) is not replaced.
  for (int i = 0; i < 70; ++i) {
    WaitObservation wait = Wait("q", 1500, 1500 + 60 + i);
    wait.backlog_at_submit = 3.0;
    model.Observe(wait);
  }
  WaitQuery query;
  query.queue = "q";
  query.backlog = 0.1;
  EXPECT_EQ(model.Predict(query).method, WaitMethod::kClassHistory);
  query.backlog = 1.5;  // the class of (0.5, 2]: no wait learned in it
  EXPECT_EQ(model.Predict(query).method, WaitMethod::kClassHistory);
  query.backlog = 3.0;
  EXPECT_EQ(model.Predict(query).method, WaitMethod::kBacklogScaled);
}

TEST(WaitModelTest, EstimatesEverySlotClassOfAQueue) {
  // Without trimming or adaptive correction: the classes' series, as learned.
  WaitPredictorOptions options;
  options.trim_on_change = false;
  options.adaptive_rate = 0.0;
  WaitModel model(options);
  for (int i = 0; i < 70; ++i) model.Observe(Wait("q", 0, 100 + i));
  const auto classes = model.ClassEstimates("q");
  ASSERT_EQ(classes.size(), 6u);
  EXPECT_EQ(classes[0].slots, "1");
  EXPECT_EQ(classes[1].slots, "2-4");
  EXPECT_EQ(classes[5].slots, "257+");
  EXPECT_EQ(classes[5].min_slots, 257);
  EXPECT_EQ(classes[0].estimate.method, WaitMethod::kClassHistory);
  EXPECT_EQ(classes[0].estimate.samples, 70u);
  // No job of 2-4 slots seen: the whole queue's waits.
  EXPECT_EQ(classes[1].estimate.method, WaitMethod::kQueueHistory);
  EXPECT_EQ(model.ClassEstimates("other")[0].estimate.method, WaitMethod::kNoHistory);
}

TEST(WaitModelTest, SaysTheEstimateInWords) {
  WaitEstimate estimate;
  estimate.quantile = 0.95;
  EXPECT_EQ(DescribeWait(estimate), "no waits seen in this queue yet");
  estimate.method = WaitMethod::kClassHistory;
  estimate.p50 = 240s;
  estimate.bound = 1200s;
  EXPECT_EQ(DescribeWait(estimate), "~4 min, 95% bound 20 min");
  estimate.method = WaitMethod::kStartsNow;
  estimate.p50 = 0s;
  estimate.bound = 60s;
  EXPECT_EQ(DescribeWait(estimate), "starts now (95% within 1 min)");
  estimate.method = WaitMethod::kFewSamples;
  estimate.p50 = 30s;
  estimate.bound = 7500s;
  estimate.samples = 30;
  EXPECT_EQ(DescribeWait(estimate), "~30 s, 95% bound 2 h 5 min (from 30 waits only)");
  estimate.bound.reset();
  estimate.samples = 1;
  EXPECT_EQ(DescribeWait(estimate), "~30 s, no bound yet (from 1 wait only)");
  EXPECT_EQ(DescribeSeconds(3 * 86400 + 4 * 3600), "3 d 4 h");
}

// A job table of one job with these times.
std::shared_ptr<const JobTable> Table(std::optional<std::int64_t> started,
                                      std::optional<StartPrediction> prediction = {}) {
  auto table = std::make_shared<JobTable>();
  auto view = std::make_shared<JobView>();
  view->lsf.queue = "normal";
  view->lsf.slots = 4;
  view->submit_time = At(1000);
  if (started) view->start_time = At(*started);
  view->submitted_by_bplace = prediction.has_value();
  if (prediction) view->submitted_at = At(1000);
  view->predicted_start = prediction;
  table->jobs[JobKey{42, 0}] = view;
  return table;
}

TEST(JobWaitsTest, AJobIsAWaitOnceWhenItsStartTimeFirstShows) {
  const auto pending = Table(std::nullopt);
  const auto running = Table(1300);
  EXPECT_TRUE(NewlyStarted(nullptr, *pending).empty());
  const auto started = NewlyStarted(pending.get(), *running);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].wait.queue, "normal");
  EXPECT_EQ(started[0].wait.slots, 4);
  EXPECT_EQ(started[0].wait.started - started[0].wait.submitted, 300s);
  EXPECT_TRUE(NewlyStarted(running.get(), *running).empty());
}

TEST(JobWaitsTest, PublishesTeachTheModelOnlyWhenTheEventLogIsNotReadAndCountCoverage) {
  StartPrediction promised;
  promised.method = "class_history";
  promised.bound_s = 250;
  ClusterSnapshot before;
  before.jobs = Table(std::nullopt, promised);
  ClusterSnapshot after;
  after.jobs = Table(1300, promised);  // waited 300 s: beyond the bound
  WaitModel model;
  WaitCoverage coverage;
  EXPECT_EQ(LearnFromPublish(before, after, /*events_read=*/true, model, coverage), 0u);
  EXPECT_EQ(model.learned(), 0u) << "the event log holds the job: it teaches and judges it";
  EXPECT_EQ(coverage.Total().predictions, 0u);
  LearnFromPublish(before, after, /*events_read=*/false, model, coverage);
  EXPECT_EQ(model.learned(), 1u);
  EXPECT_EQ(model.RecentWaits("normal", 5), (std::vector<std::int64_t>{300}));
  EXPECT_EQ(coverage.Total().predictions, 1u);
  EXPECT_EQ(coverage.Total().within_bound, 0u);
  // The same start again (a publish repeated, or the log read later):
  // neither learned nor judged twice.
  LearnFromPublish(before, after, /*events_read=*/false, model, coverage);
  EXPECT_EQ(model.learned(), 1u);
  EXPECT_EQ(coverage.Total().predictions, 1u);
  WaitObservation from_log;
  from_log.queue = "normal";
  from_log.submitted = At(1000);
  from_log.started = At(1300);
  from_log.job_id = 42;
  EXPECT_EQ(model.Observe(from_log), ObserveOutcome::kAlreadyLearned);
  EXPECT_EQ(JudgeEventWaits({from_log}, *after.jobs, coverage), 0u);
  EXPECT_EQ(model.learned(), 1u);
}

TEST(JobWaitsTest, ABplaceJobIsLearnedBehindTheBacklogItsPlacementSaw) {
  // The load tier's backlog history lags a burst; bplace's own jobs carry
  // the share placement saw, its in-flight submissions included.
  StartPrediction promised;
  promised.method = "class_history";
  promised.bound_s = 250;
  promised.backlog = 2.5;
  auto started = NewlyStarted(Table(std::nullopt, promised).get(), *Table(1300, promised));
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].wait.backlog_at_submit, 2.5);
  EXPECT_FALSE(started[0].wait.could_start_at_submit);
  promised.method = "starts_now";
  promised.backlog = 0.0;
  started = NewlyStarted(Table(std::nullopt, promised).get(), *Table(1300, promised));
  ASSERT_EQ(started.size(), 1u);
  EXPECT_TRUE(started[0].wait.could_start_at_submit);

  // The same from the event log's waits, found by job id.
  const auto table = Table(1300, promised);
  WaitObservation ours;
  ours.queue = "normal";
  ours.submitted = At(1001);
  ours.job_id = 42;
  AddSubmissionContext(*table, ours);
  EXPECT_TRUE(ours.could_start_at_submit);
  EXPECT_EQ(ours.backlog_at_submit, 0.0);
  // Not for another job: another user's, another queue (bswitch), or an
  // older job of the same id (ids wrap).
  WaitObservation other_users = ours;
  other_users.could_start_at_submit = false;
  other_users.backlog_at_submit.reset();
  other_users.job_id = 7;
  WaitObservation switched = other_users;
  switched.job_id = 42;
  switched.queue = "long";
  WaitObservation older = other_users;
  older.job_id = 42;
  older.submitted = At(1000 - 3600);
  for (WaitObservation* wait : {&other_users, &switched, &older}) {
    AddSubmissionContext(*table, *wait);
    EXPECT_FALSE(wait->could_start_at_submit) << wait->job_id << " " << wait->queue;
    EXPECT_FALSE(wait->backlog_at_submit.has_value()) << wait->job_id << " " << wait->queue;
  }
  // Nor for an array's elements: placement judged one element, the rest
  // wait behind it (each element's row copies the job's prediction).
  auto with_element = std::make_shared<JobTable>(*Table(std::nullopt, promised));
  auto element = std::make_shared<JobView>(*with_element->jobs.at(JobKey{42, 0}));
  with_element->jobs[JobKey{42, 3}] = element;
  auto started_element = std::make_shared<JobTable>(*with_element);
  for (auto& [key, view] : started_element->jobs) {
    auto copy = std::make_shared<JobView>(*view);
    copy->start_time = At(1300);
    view = copy;
  }
  for (const StartedJob& job : NewlyStarted(with_element.get(), *started_element)) {
    EXPECT_EQ(job.wait.could_start_at_submit, job.key.array_index == 0) << job.key.array_index;
  }
  const auto not_placed = Table(1300);  // followed, not submitted by bplace
  WaitObservation followed;
  followed.job_id = 42;
  AddSubmissionContext(*not_placed, followed);
  EXPECT_FALSE(followed.backlog_at_submit.has_value());
}

TEST(JobWaitsTest, TheFirstTableIsWhereWatchingStarts) {
  // After a restart the restored table (or the first bjobs) shows jobs
  // already started: their waits were learned and judged by the run that
  // saw them start.
  StartPrediction promised;
  promised.method = "class_history";
  promised.bound_s = 250;
  ClusterSnapshot before;
  ClusterSnapshot after;
  after.jobs = Table(1300, promised);
  WaitModel model;
  WaitCoverage coverage;
  EXPECT_EQ(LearnFromPublish(before, after, /*events_read=*/false, model, coverage), 0u);
  EXPECT_EQ(model.learned(), 0u);
  EXPECT_EQ(coverage.Total().predictions, 0u);
}

TEST(JobWaitsTest, AWaitPrintedToTheMinuteIsNarrowedByWhenBplaceSawTheStart) {
  // bsub answered at 14:11:26; bjobs said PEND at 14:11:50 and RUN at
  // 14:12:00, with START_TIME "14:11" (LSF prints no seconds): the job
  // started at 14:11:59 at the latest, 33 s after it was submitted, not 0.
  const std::int64_t minute = 60 * 851;
  JobView job;
  job.submitted_by_bplace = true;
  job.submitted_at = At(minute + 26);
  job.submit_time = At(minute);
  job.start_time = At(minute);
  job.start_not_before = At(minute + 50);
  job.start_seen_at = At(minute + 60);
  EXPECT_EQ(RealisedWait(job), 33s);
  // Seen started sooner than the minute ends: that is the latest start.
  job.start_not_before = At(minute + 30);
  job.start_seen_at = At(minute + 40);
  EXPECT_EQ(RealisedWait(job), 14s);
  // A START_TIME with seconds (volclava's -o, bjobs -l) is exact.
  job.start_time = At(minute + 35);
  EXPECT_EQ(RealisedWait(job), 9s);
  // Clocks that disagree (seen not started after the minute LSF gives):
  // LSF's time.
  job.start_time = At(minute);
  job.start_not_before = At(minute + 70);
  job.start_seen_at = At(minute + 80);
  EXPECT_EQ(RealisedWait(job), std::nullopt) << "LSF's minute is before bsub answered";
  // Not submitted by bplace: LSF's submit time, to the minute.
  job.submitted_by_bplace = false;
  EXPECT_EQ(RealisedWait(job), 0s);
}

// bplace's prediction "starts now, within 5 s".
StartPrediction StartsNowWithin5s() {
  StartPrediction promised;
  promised.method = "starts_now";
  promised.bound_s = 5;
  return promised;
}

TEST(JobWaitsTest, TheEventLogJudgesBplacesJobsToTheSecond) {
  const auto jobs = Table(std::nullopt, StartsNowWithin5s());  // job 42, bplace's
  WaitCoverage coverage;
  WaitObservation wait = Wait("normal", 1000, 1004);
  wait.job_id = 42;
  WaitObservation stranger = wait;  // another user's job
  stranger.job_id = 7;
  EXPECT_EQ(JudgeEventWaits({wait, stranger}, *jobs, coverage), 1u);
  EXPECT_EQ(coverage.Total().predictions, 1u);
  EXPECT_EQ(coverage.Total().within_bound, 1u);
  // The job shows the wait it was judged on (api/job_json.h).
  const std::optional<JudgedWait> judged = coverage.Judged(JobKey{42, 0}, At(1000));
  ASSERT_TRUE(judged.has_value());
  EXPECT_EQ(judged->wait_s, 4);
  EXPECT_EQ(judged->within_bound, true);
  EXPECT_FALSE(coverage.Judged(JobKey{7, 0}, At(1000)).has_value()) << "not bplace's";
  // Read again (a log reopened), later: judged once, on its first reading.
  wait.started = At(1009);
  EXPECT_EQ(JudgeEventWaits({wait}, *jobs, coverage), 0u) << "judged once";
  EXPECT_EQ(coverage.Judged(JobKey{42, 0}, At(1000))->wait_s, 4);
}

TEST(JobWaitsTest, TheEventLogJudgesAnArrayOnItsFirstElementBeforeBjobsListsThem) {
  const auto jobs = Table(std::nullopt, StartsNowWithin5s());  // job 42, the array's row only
  WaitCoverage coverage;
  WaitObservation first = Wait("normal", 1000, 1002);
  first.job_id = 42;
  first.array_index = 3;
  WaitObservation later = first;
  later.array_index = 1;
  later.started = At(1600);
  EXPECT_EQ(JudgeEventWaits({first, later}, *jobs, coverage), 1u) << "the array, once";
  EXPECT_EQ(coverage.Total().within_bound, 1u);
  EXPECT_EQ(coverage.Judged(JobKey{42, 0}, At(1000))->wait_s, 2);
}

TEST(JobWaitsTest, TheEventLogLeavesOutAnotherJobOfTheSameId) {
  // LSF's ids wrap: a job 42 submitted an hour before bplace's job 42.
  const auto jobs = Table(std::nullopt, StartsNowWithin5s());  // bplace's, submitted at 1000
  WaitCoverage coverage;
  WaitObservation older = Wait("normal", 1000 - 3600, 1000 - 3000);
  older.job_id = 42;
  EXPECT_EQ(JudgeEventWaits({older}, *jobs, coverage), 0u);
  EXPECT_FALSE(coverage.Judged(JobKey{42, 0}, At(1000 - 3600)).has_value());
}

// A snapshot of one queue on one host of `max` slots, all taken, with
// `pend` slots pending, as the load tier read it at `as_of`.
ClusterSnapshot FullQueue(std::int64_t max, std::int64_t pend, std::int64_t as_of) {
  lsf::QueueDefinition definition;
  definition.name = "normal";
  definition.status.text = "Open:Active";
  definition.status.open = definition.status.active = true;
  definition.hosts = {"node01"};
  definition.users = {"all"};
  ClusterSnapshot snapshot;
  snapshot.topology = Topology::Build({definition}, {}, {});
  auto load = std::make_shared<LoadState>();
  lsf::QueueLoad queue;
  queue.name = "normal";
  queue.status = definition.status;
  queue.pend = pend;
  queue.run = max;
  load->queues.emplace(queue.name, queue);
  lsf::HostStatus host;
  host.name = "node01";
  host.status = "ok";
  host.max = max;
  host.njobs = host.run = max;
  load->hosts = {host};
  load->host_index.emplace(host.name, 0);
  snapshot.load = load;
  snapshot.load_as_of = At(as_of);
  snapshot.host_counts = CountQueueHosts(*snapshot.topology, *snapshot.load, nullptr);
  return snapshot;
}

TEST(JobWaitsTest, EachLoadRecordsTheQueuesBacklogForTheWaitsLearnedLater) {
  WaitPredictorOptions options;
  options.trim_on_change = false;
  options.adaptive_rate = 0.0;
  WaitModel model(options);
  WaitCoverage coverage;
  // 4 slots, 3 pending: a one-slot job has 4 slots to free, one capacity.
  const ClusterSnapshot deep = FullQueue(4, 3, 1000);
  LearnFromPublish(ClusterSnapshot{}, deep, /*events_read=*/true, model, coverage);
  // The same load published again records nothing new.
  LearnFromPublish(deep, deep, /*events_read=*/true, model, coverage);
  for (int i = 0; i < 70; ++i) model.Observe(Wait("normal", 1010, 1010 + 600 + i));
  WaitQuery query;
  query.queue = "normal";
  query.backlog = 1.0;
  EXPECT_EQ(model.Predict(query).method, WaitMethod::kClassBacklogHistory);
  query.backlog = 0.1;  // no wait learned behind so little
  EXPECT_EQ(model.Predict(query).method, WaitMethod::kClassHistory);
}

TEST(JobWaitsTest, TheRecordOfAnEstimateKeepsItsNumbers) {
  WaitEstimate estimate;
  estimate.method = WaitMethod::kStartsNow;
  estimate.p50 = 0s;
  estimate.bound = 45s;
  estimate.quantile = 0.95;
  estimate.confidence = 0.9;
  estimate.samples = 12;
  const StartPrediction record = ToPrediction(estimate, 0.0);
  EXPECT_EQ(record.method, "starts_now");
  EXPECT_EQ(record.backlog, 0.0);
  EXPECT_EQ(record.bound_s, 45);
  EXPECT_EQ(record.p50_s, 0);
  EXPECT_EQ(record.samples, 12);
  EXPECT_DOUBLE_EQ(record.confidence, 0.9);
}

TEST(JobWaitsTest, TheRecordStandsForTheEstimateItWasMadeFrom) {
  WaitEstimate estimate;
  estimate.method = WaitMethod::kBacklogScaled;
  estimate.p50 = 240s;
  estimate.bound = 1200s;
  estimate.quantile = 0.95;
  estimate.confidence = 0.95;
  estimate.samples = 180;
  const std::optional<WaitEstimate> back = FromPrediction(ToPrediction(estimate, 3.5));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->method, WaitMethod::kBacklogScaled);
  EXPECT_EQ(back->p50, 240s);
  EXPECT_EQ(back->bound, 1200s);
  EXPECT_EQ(back->samples, 180u);
  EXPECT_EQ(DescribeWait(*back), DescribeWait(estimate));
  StartPrediction foreign = ToPrediction(estimate, std::nullopt);
  foreign.method = "oracle";
  EXPECT_FALSE(FromPrediction(foreign).has_value());
}

TEST(JobWaitsTest, EveryMethodNameReadsBack) {
  for (WaitMethod method :
       {WaitMethod::kStartsNow, WaitMethod::kClassBacklogHistory, WaitMethod::kBacklogHistory,
        WaitMethod::kBacklogScaled, WaitMethod::kClassHistory, WaitMethod::kQueueHistory,
        WaitMethod::kFewSamples, WaitMethod::kNoHistory, WaitMethod::kQueueInactive}) {
    EXPECT_EQ(WaitMethodOfName(WaitMethodName(method)), method) << WaitMethodName(method);
  }
  EXPECT_FALSE(WaitMethodOfName("unknown").has_value());
  EXPECT_FALSE(WaitMethodOfName("").has_value());
}

TEST(JobWaitsTest, TheRealisedWaitIsStartLessSubmitOnceStarted) {
  JobView job;
  EXPECT_FALSE(RealisedWait(job).has_value());
  job.submit_time = At(1000);
  EXPECT_FALSE(RealisedWait(job).has_value()) << "not started";
  job.start_time = At(1300);
  EXPECT_EQ(RealisedWait(job), 300s);
  job.start_time = At(999);
  EXPECT_FALSE(RealisedWait(job).has_value()) << "started before submitted: inconsistent";
}

TEST(JobWaitsTest, WithinTheBoundIncludesTheBoundAndNeedsOne) {
  StartPrediction prediction;
  prediction.method = "class_history";
  EXPECT_FALSE(WithinBound(5, prediction).has_value());
  prediction.bound_s = 60;
  EXPECT_EQ(WithinBound(60, prediction), true);
  EXPECT_EQ(WithinBound(61, prediction), false);
}

TEST(EventLogFeedTest, ReadsLsbSharedirFromLsfConf) {
  EXPECT_EQ(*LsbSharedirOf("# LSB_SHAREDIR=/no\nLSF_TOP=/opt\nLSB_SHAREDIR=/opt/lsf/work\n"),
            "/opt/lsf/work");
  EXPECT_EQ(*LsbSharedirOf("LSB_SHAREDIR = \"/shared/work\"\n"), "/shared/work");
  EXPECT_FALSE(LsbSharedirOf("LSF_TOP=/opt\n"));
  EXPECT_FALSE(LsbSharedirOf("LSB_SHAREDIR=\n"));
}

class EventLogFeedFileTest : public ::testing::Test {
 protected:
  EventLogFeedFileTest() {
    char pattern[] = "/tmp/bplace_feed_XXXXXX";
    dir_ = ::mkdtemp(pattern);
  }
  ~EventLogFeedFileTest() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text, bool append = false) {
    std::filesystem::create_directories(std::filesystem::path(dir_ + "/" + name).parent_path());
    std::ofstream(dir_ + "/" + name, append ? std::ios::app : std::ios::trunc) << text;
  }
  std::string dir_;
};

TEST_F(EventLogFeedFileTest, FindsTheLogUnderLsbSharedirOfTheCluster) {
  Write("conf/lsf.conf", "LSB_SHAREDIR=" + dir_ + "/work\n");
  const auto file = DefaultEventsFile(dir_ + "/conf", "cluster1");
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->string(), dir_ + "/work/cluster1/logdir/lsb.events");
  EXPECT_FALSE(DefaultEventsFile(dir_ + "/conf", "")) << "lsid has not named the cluster";
  EXPECT_FALSE(DefaultEventsFile(dir_ + "/nowhere", "cluster1"));
}

// JOB_NEW then JOB_START of job `id` (LSF 10.1 layout, as the parser's
// tests write them).
std::string NewRecord(int id, std::int64_t submit) {
  return "\"JOB_NEW\" \"10.1\" " + std::to_string(submit) + " " + std::to_string(id) +
         " 1001 33554434 0 1 " + std::to_string(submit) +
         " 0 0 0 0 0 \"alice\" -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 \"\" 1.00 18 \"normal\"\n";
}
std::string StartRecord(int id, std::int64_t at) {
  return "\"JOB_START\" \"10.1\" " + std::to_string(at) + " " + std::to_string(id) +
         " 4 0 0 1.00 1 \"node01\" \"\" \"\" 0 \"\" 0\n";
}

TEST_F(EventLogFeedFileTest, LearnsFromTheLogSkipsCorruptRecordsAndSurvivesItsAbsence) {
  WaitModel model;
  EventLogTailOptions options;
  options.file = dir_ + "/lsb.events";
  EventLogFeed feed(options, model);
  auto poll = feed.Poll(At(10000));
  EXPECT_TRUE(poll.unreadable.has_value());
  EXPECT_FALSE(feed.readable());
  Write("lsb.events",
        "#0\n" + NewRecord(1, 1000) + "\"JOB_START\" \"10.1\" garbage\n" + StartRecord(1, 1090));
  poll = feed.Poll(At(10000));
  EXPECT_TRUE(feed.readable());
  EXPECT_EQ(poll.errors, 1u) << poll.first_error.value_or("");
  EXPECT_EQ(poll.learned, 1u);
  EXPECT_EQ(model.RecentWaits("normal", 5), (std::vector<std::int64_t>{90}));
  // Truncated mid-record: the rest is read when it is written.
  const std::string next = NewRecord(2, 2000);
  Write("lsb.events", next.substr(0, 15), true);
  EXPECT_EQ(feed.Poll(At(10000)).records, 0u);
  Write("lsb.events", next.substr(15) + StartRecord(2, 2030), true);
  EXPECT_EQ(feed.Poll(At(10000)).learned, 1u);
  EXPECT_EQ(model.RecentWaits("normal", 5), (std::vector<std::int64_t>{30, 90}));
}

TEST_F(EventLogFeedFileTest, WaitsAreAnnotatedBeforeTheModelLearnsThem) {
  // bplace placed job 1 where it could start at once: its wait is a
  // dispatch delay, not one of the queue's waits.
  WaitModel model;
  EventLogTailOptions options;
  options.file = dir_ + "/lsb.events";
  std::size_t annotated = 0;
  EventLogFeed feed(options, model, [&](std::vector<WaitObservation>& waits) {
    for (WaitObservation& wait : waits) {
      ++annotated;
      if (wait.job_id == 1) wait.could_start_at_submit = true;
    }
  });
  Write("lsb.events", "#0\n" + NewRecord(1, 1000) + StartRecord(1, 1005) + NewRecord(2, 1000) +
                          StartRecord(2, 1040));
  const EventFeedPoll poll = feed.Poll(At(10000));
  EXPECT_EQ(annotated, 2u);
  EXPECT_EQ(poll.learned, 2u);
  EXPECT_EQ(model.RecentWaits("normal", 5), (std::vector<std::int64_t>{40}));
  ASSERT_EQ(poll.waits.size(), 2u);
  EXPECT_TRUE(poll.waits[0].could_start_at_submit);
}

}  // namespace
}  // namespace bplace
