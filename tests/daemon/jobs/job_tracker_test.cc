#include "daemon/jobs/job_tracker.h"

#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

#include "common/manual_clock.h"
#include "daemon/jobs/job_canceller.h"
#include "daemon/state/job_journal.h"
#include "lsf_adapter/bjobs_parser.h"
#include "tests/fakes/fake_command_runner.h"

namespace bplace {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using testing::FakeCommandRunner;

// One bjobs -o -json record (LSF 10.1 layout, docs/lsf-formats.md "bjobs -o
// -json").
std::string Record(const std::string& id, const std::string& stat, int index = 0,
                   const std::string& exit_code = "") {
  return "    {\n      \"JOBID\":\"" + id + "\",\n      \"JOBINDEX\":\"" + std::to_string(index) +
         "\",\n      \"USER\":\"alice\",\n      \"STAT\":\"" + stat +
         "\",\n      \"QUEUE\":\"normal\",\n      \"EXIT_CODE\":\"" + exit_code +
         "\",\n      \"SUBMIT_TIME\":\"Dec 31 23:50\",\n      \"JOB_DESCRIPTION\":\"bplace:t" + id +
         "\"\n    }";
}

std::string Answer(const std::vector<std::string>& records) {
  std::string text = "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":" + std::to_string(records.size()) +
                     ",\n  \"RECORDS\":[\n";
  for (std::size_t i = 0; i < records.size(); ++i) {
    text += records[i] + (i + 1 < records.size() ? ",\n" : "\n");
  }
  return text + "  ]\n}\n";
}

std::string NotFound(const std::string& id) {
  return "    {\n      \"JOBID\":\"" + id + "\",\n      \"ERROR\":\"Job <" + id +
         "> is not found\"\n    }";
}

bool IsBjobs(const lsf::CommandSpec& spec) { return spec.argv.at(0) == "bjobs"; }

class JobTrackerTest : public ::testing::Test {
 protected:
  JobTrackerTest() { clock_.SetSystemTime(std::chrono::sys_days(std::chrono::year(2027) / 1 / 1)); }

  JobTracker& Tracker() {
    if (!tracker_) {
      tracker_ = std::make_unique<JobTracker>(io_.get_executor(), fake_, clock_, store_, lsf_,
                                              nullptr, JobTrackerOptions{}, dialect_);
    }
    return *tracker_;
  }

  void Reply(std::string text, int exit_code = 0) {
    fake_.On(IsBjobs, [text, exit_code](const lsf::CommandSpec&) {
      return FakeCommandRunner::Reply(FakeCommandRunner::Output(text, "", exit_code));
    });
  }

  Result<void> Refresh() {
    std::optional<Result<void>> got;
    Tracker().Refresh([&](Result<void> r) { got = std::move(r); });
    io_.restart();
    io_.poll();
    return got.value_or(Fail(ErrorCode::kInternal, "no callback"));
  }

  const JobView* Job(std::int64_t id, std::int64_t index = 0) {
    const auto jobs = store_.Current()->jobs;
    return jobs ? jobs->Find(JobKey{id, index}) : nullptr;
  }

  // Follows jobs with a state store in a temporary directory.
  void UseStateStore() {
    std::string pattern = ::testing::TempDir() + "bplace-tracker-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto store = JobStore::Open(dir_);
    ASSERT_TRUE(store) << store.error().message;
    journal_ = std::make_unique<JobJournal>(std::move(*store));
    tracker_ = std::make_unique<JobTracker>(io_.get_executor(), fake_, clock_, store_, lsf_,
                                            journal_.get(), JobTrackerOptions{}, dialect_);
  }

  // The rows of the state store once the writes posted so far are done.
  std::vector<TrackedJob> StoredRows() {
    std::promise<std::vector<TrackedJob>> rows;
    journal_->Post([&](JobStore& store) {
      JobFilter filter;
      filter.limit = 1000;
      auto page = store.ListJobs(filter);
      rows.set_value(page ? page->jobs : std::vector<TrackedJob>{});
    });
    return rows.get_future().get();
  }

  ~JobTrackerTest() override {
    tracker_.reset();
    journal_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::vector<std::vector<std::string>> BjobsCalls() const {
    std::vector<std::vector<std::string>> calls;
    for (const auto& call : fake_.Calls()) {
      if (call.argv.at(0) == "bjobs") calls.push_back(call.argv);
    }
    return calls;
  }

  static JobView Submitted(const std::string& id) {
    JobView view;
    view.lsf.job_id = id;
    view.lsf.status = kSubmittedStatus;
    view.submitted_by_bplace = true;
    view.tag = "t" + id;
    return view;
  }

  boost::asio::io_context io_;
  FakeCommandRunner fake_{io_.get_executor()};
  ManualClock clock_;
  SnapshotStore store_;
  lsf::LsfInvoker lsf_{"", "", 5000ms, {}};
  BjobsDialect dialect_;
  std::string dir_;
  std::unique_ptr<JobJournal> journal_;
  std::unique_ptr<JobTracker> tracker_;
};

TEST_F(JobTrackerTest, ASubmittedJobIsSubmittedUntilBjobsShowsIt) {
  Tracker().AddSubmitted({101, 0}, Submitted("101"));
  EXPECT_EQ(Job(101)->lsf.status, "SUBMITTED");
  Reply(Answer({NotFound("101")}), 255);
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(Job(101)->lsf.status, "SUBMITTED") << "LSF may not list a job at once";
  EXPECT_FALSE(Job(101)->not_found);
  Reply(Answer({Record("101", "RUN")}));
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(Job(101)->lsf.status, "RUN");
  EXPECT_TRUE(Job(101)->submitted_by_bplace) << "what bplace knew stays";
  EXPECT_EQ(Job(101)->tag, "t101");
}

TEST_F(JobTrackerTest, OneBjobsAsksForEveryFollowedJobAndFinishedOnesAreNotAskedAgain) {
  Tracker().AddSubmitted({1, 0}, Submitted("1"));
  Tracker().AddSubmitted({2, 0}, Submitted("2"));
  Reply(Answer({Record("1", "DONE"), Record("2", "RUN")}));
  ASSERT_TRUE(Refresh());
  ASSERT_EQ(BjobsCalls().size(), 1u);
  EXPECT_THAT(BjobsCalls()[0], ::testing::IsSupersetOf({"1", "2", "-a", "-json"}));
  EXPECT_TRUE(Job(1)->terminal);
  ASSERT_TRUE(Refresh());
  ASSERT_EQ(BjobsCalls().size(), 2u);
  EXPECT_THAT(BjobsCalls()[1], ::testing::Not(::testing::Contains("1")));
}

// Found by an attack run: one bjobs that exited 0 without the ids it was asked (or with
// other ids only) set left_lsf on the first miss, and the job was never
// asked about again: RUN for ever while LSF said DONE.
TEST_F(JobTrackerTest, OneAnswerWithoutTheJobNeverFreezesIt) {
  Tracker().AddSubmitted({7, 0}, Submitted("7"));
  Reply(Answer({Record("7", "RUN")}));
  ASSERT_TRUE(Refresh());
  Reply(Answer({}));
  ASSERT_TRUE(Refresh());
  EXPECT_FALSE(Job(7)->left_lsf);
  EXPECT_EQ(Job(7)->lsf.status, "RUN") << "a miss is no news about the job";
  EXPECT_EQ(Job(7)->misses, 1);
  Reply(Answer({Record("7", "DONE")}));
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(Job(7)->lsf.status, "DONE");
  EXPECT_TRUE(Job(7)->terminal);
  EXPECT_EQ(Job(7)->misses, 0);
  EXPECT_FALSE(Job(7)->missing_since);
}

TEST_F(JobTrackerTest, AJobLeavesLsfOnlyWhenItsOwnBjobsConfirmsRepeatedMisses) {
  Tracker().AddSubmitted({7, 0}, Submitted("7"));
  Reply(Answer({Record("7", "UNKWN")}));
  ASSERT_TRUE(Refresh());
  EXPECT_FALSE(Job(7)->terminal) << "UNKWN is not terminal";
  const SystemTime seen = *Job(7)->last_seen_in_lsf;
  Reply(Answer({NotFound("7")}), 255);
  for (int miss = 1; miss <= kMissesBeforeConfirming; ++miss) {
    clock_.Advance(10s);
    ASSERT_TRUE(Refresh());
    EXPECT_EQ(Job(7)->misses, miss);
    EXPECT_FALSE(Job(7)->left_lsf) << "after " << miss << " misses";
  }
  EXPECT_EQ(BjobsCalls().size(), 1u + kMissesBeforeConfirming) << "no per-id bjobs yet";
  EXPECT_THAT(store_.Current()->jobs->IdsToConfirm(), ElementsAre("7"));
  clock_.Advance(10s);
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(BjobsCalls().size(), 3u + kMissesBeforeConfirming) << "the answer, then 7 alone";
  EXPECT_THAT(BjobsCalls().back(), ::testing::Contains("7"));
  EXPECT_TRUE(Job(7)->left_lsf);
  EXPECT_EQ(Job(7)->left_lsf_at, clock_.SystemNow());
  EXPECT_EQ(Job(7)->lsf.status, "UNKWN") << "the last state stays";
  EXPECT_EQ(Job(7)->last_seen_in_lsf, seen) << "and says as of when";
  EXPECT_THAT(store_.Current()->jobs->IdsToAsk(), ElementsAre("7"))
      << "a job not seen to finish is still asked about";
  EXPECT_TRUE(store_.Current()->jobs->IdsToConfirm().empty());
  Reply(Answer({Record("7", "EXIT", 0, "1")}));
  ASSERT_TRUE(Refresh());
  EXPECT_FALSE(Job(7)->left_lsf);
  EXPECT_EQ(Job(7)->lsf.status, "EXIT");
}

TEST_F(JobTrackerTest, AMissTheJobsOwnBjobsDoesNotConfirmConcludesNothing) {
  Tracker().AddSubmitted({7, 0}, Submitted("7"));
  Reply(Answer({Record("7", "RUN")}));
  ASSERT_TRUE(Refresh());
  // Every answer, the per-id one too, exits 0 and leaves 7 out.
  Reply(Answer({Record("8", "RUN")}));
  for (int run = 0; run < 2 * kMissesBeforeConfirming; ++run) ASSERT_TRUE(Refresh());
  EXPECT_FALSE(Job(7)->left_lsf);
  EXPECT_EQ(Job(7)->lsf.status, "RUN");
  EXPECT_THAT(store_.Current()->jobs->IdsToConfirm(), ElementsAre("7")) << "asked again";
}

TEST_F(JobTrackerTest, AWatchedIdLsfNeverKnewIsNotFound) {
  Reply(Answer({NotFound("999")}), 255);
  std::optional<Result<void>> got;
  Tracker().Watch({{"999", 0}}, [&](Result<void> r) { got = r; });
  io_.poll();
  ASSERT_TRUE(got && *got);
  EXPECT_TRUE(Job(999)->not_found);
}

// Found by an attack run: every id a caller asked about stayed a followed row, in memory
// for 7 days and in the state store for ever (5,001 rows in 125 s).
TEST_F(JobTrackerTest, AnIdLsfNeverKnewCostsNoRowOnceAnswered) {
  UseStateStore();
  Reply(Answer({NotFound("999")}), 255);
  Tracker().Watch({{"999", 0}}, {});
  io_.poll();
  ASSERT_NE(Job(999), nullptr);
  EXPECT_TRUE(Job(999)->not_found) << "the lookup's own refresh answers it";
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(Job(999), nullptr) << "the next refresh drops it";
  EXPECT_TRUE(StoredRows().empty());
}

TEST_F(JobTrackerTest, AnIdTheTableFormLeftOutIsAskedAloneBeforeItIsNotFound) {
  // The table form lists every job and names no unknown id: a lookup is
  // concluded by the bjobs of its id alone, in the same Watch.
  fake_.On(IsBjobs, [](const lsf::CommandSpec& spec) {
    if (std::find(spec.argv.begin(), spec.argv.end(), "-json") != spec.argv.end()) {
      return FakeCommandRunner::Reply(FakeCommandRunner::Output(
          "", "<JOBINDEX> in the format string is not a valid field name.\n", 99));
    }
    if (std::find(spec.argv.begin(), spec.argv.end(), "all") != spec.argv.end()) {
      return FakeCommandRunner::Reply(FakeCommandRunner::Output(
          "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
          "5       bob     RUN   normal     login01     node002     other      Dec 31 23:50\n"));
    }
    return FakeCommandRunner::Reply(FakeCommandRunner::Output("", "Job <998> is not found\n", 255));
  });
  std::optional<Result<void>> got;
  Tracker().Watch({{"998", 0}}, [&](Result<void> r) { got = r; });
  io_.poll();
  ASSERT_TRUE(got && *got);
  ASSERT_NE(Job(998), nullptr);
  EXPECT_TRUE(Job(998)->not_found);
  EXPECT_THAT(BjobsCalls().back(), ElementsAre("bjobs", "-a", "-w", "998"));
}

TEST_F(JobTrackerTest, ARestartAfterTheRetentionKeepsTheJobsLsfStillLists) {
  JobView old = Submitted("9");
  old.lsf.status = "RUN";
  old.last_seen_in_lsf = clock_.SystemNow() - std::chrono::days(30);
  old.updated_at = *old.last_seen_in_lsf;
  Tracker().Load({ToTracked({9, 0}, old)});
  Reply(Answer({Record("9", "RUN")}));
  ASSERT_TRUE(Refresh());
  ASSERT_NE(Job(9), nullptr);
  EXPECT_EQ(Job(9)->last_seen_in_lsf, clock_.SystemNow());
}

TEST_F(JobTrackerTest, AJobListedAgainUnchangedIsStoredOncePerPeriod) {
  UseStateStore();
  Tracker().AddSubmitted({7, 0}, Submitted("7"));
  Reply(Answer({Record("7", "RUN")}));
  ASSERT_TRUE(Refresh());
  ASSERT_EQ(StoredRows().size(), 1u);
  const SystemTime first = clock_.SystemNow();
  EXPECT_EQ(StoredRows()[0].last_seen_in_lsf, first) << "the first listing is written";
  // Every refresh lists it unchanged: the table says when, the store
  // follows within kStoredSeenPeriod.
  bool moved = false;
  for (auto at = 10s; at <= kStoredSeenPeriod + 10s; at += 10s) {
    clock_.Advance(10s);
    ASSERT_TRUE(Refresh());
    EXPECT_EQ(Job(7)->last_seen_in_lsf, clock_.SystemNow());
    EXPECT_EQ(Job(7)->updated_at, clock_.SystemNow());
    const TrackedJob row = StoredRows().at(0);
    EXPECT_GE(*row.last_seen_in_lsf, clock_.SystemNow() - kStoredSeenPeriod - 10s);
    EXPECT_EQ(row.updated_at, *row.last_seen_in_lsf);
    EXPECT_EQ(row.status, "RUN");
    moved = moved || *row.last_seen_in_lsf != first;
  }
  EXPECT_TRUE(moved);
  // A change is written at once.
  Reply(Answer({Record("7", "DONE")}));
  clock_.Advance(10s);
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(StoredRows().at(0).status, "DONE");
  EXPECT_EQ(StoredRows().at(0).last_seen_in_lsf, clock_.SystemNow());
}

TEST_F(JobTrackerTest, StoreWriteForTellsAChangeFromAnotherListing) {
  JobView seen = Submitted("7");
  seen.lsf.status = "RUN";
  seen.last_seen_in_lsf = clock_.SystemNow();
  seen.updated_at = clock_.SystemNow();
  EXPECT_EQ(StoreWriteFor({7, 0}, seen, seen), StoreWrite::kNothing) << "the same row";
  JobView changed = seen;
  changed.lsf.status = "DONE";
  EXPECT_EQ(StoreWriteFor({7, 0}, seen, changed), StoreWrite::kRow);
  JobView first = seen;
  first.last_seen_in_lsf.reset();
  EXPECT_EQ(StoreWriteFor({7, 0}, first, seen), StoreWrite::kRow) << "listed for the first time";
  // Listed again every 10 s: one kSeen per period, whatever the phase.
  int writes = 0;
  JobView before = seen;
  for (int i = 1; i <= 6 * 60; ++i) {  // an hour
    JobView after = before;
    after.last_seen_in_lsf = *before.last_seen_in_lsf + 10s;
    after.updated_at = *after.last_seen_in_lsf;
    const StoreWrite write = StoreWriteFor({7, 0}, before, after);
    EXPECT_NE(write, StoreWrite::kRow);
    writes += write == StoreWrite::kSeen ? 1 : 0;
    before = after;
  }
  EXPECT_EQ(writes, 60 / kStoredSeenPeriod.count());
}

TEST_F(JobTrackerTest, RowsWhoseLifetimeEndedLeaveTheStateStoreToo) {
  UseStateStore();
  JobView gone = Submitted("10");
  gone.lsf.status = "RUN";
  gone.last_seen_in_lsf = clock_.SystemNow() - std::chrono::days(9);
  gone.left_lsf = true;
  gone.left_lsf_at = clock_.SystemNow() - std::chrono::days(8);
  gone.updated_at = *gone.left_lsf_at;
  Tracker().AddSubmitted({10, 0}, gone);
  ASSERT_EQ(StoredRows().size(), 1u);
  Reply(Answer({NotFound("10")}), 255);
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(Job(10), nullptr) << "left LSF more than the retention (7 days) ago";
  EXPECT_TRUE(StoredRows().empty());
}

TEST_F(JobTrackerTest, ArrayElementsReplaceTheJobAndInheritItsRequest) {
  Tracker().AddSubmitted({50, 0}, Submitted("50"));
  Reply(Answer({Record("50", "RUN", 1), Record("50", "PEND", 2)}));
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(Job(50), nullptr);
  ASSERT_NE(Job(50, 2), nullptr);
  EXPECT_EQ(Job(50, 2)->lsf.status, "PEND");
  EXPECT_EQ(Job(50, 1)->tag, "t50");
  EXPECT_THAT(store_.Current()->jobs->IdsToAsk(), ElementsAre("50[1]", "50[2]"));
}

TEST_F(JobTrackerTest, TimesGetTheYearAndExitCodesAreKept) {
  Tracker().AddSubmitted({3, 0}, Submitted("3"));
  Reply(Answer({Record("3", "EXIT", 0, "3")}));
  ASSERT_TRUE(Refresh());
  ASSERT_TRUE(Job(3)->submit_time);
  // "Dec 31 23:50" seen on 2027-01-01 is the last day of 2026.
  EXPECT_EQ(std::chrono::floor<std::chrono::days>(*Job(3)->submit_time),
            std::chrono::sys_days(std::chrono::year(2026) / 12 / 31));
  EXPECT_EQ(Job(3)->lsf.exit_code, 3);
}

TEST_F(JobTrackerTest, FallsBackToTheTableOnceWhenBjobsRefusesOutputFormat) {
  Tracker().AddSubmitted({4, 0}, Submitted("4"));
  fake_.On(IsBjobs, [](const lsf::CommandSpec& spec) {
    if (std::find(spec.argv.begin(), spec.argv.end(), "-json") != spec.argv.end()) {
      return FakeCommandRunner::Reply(FakeCommandRunner::Output(
          "", "<JOBINDEX> in the format string is not a valid field name.\n", 99));
    }
    return FakeCommandRunner::Reply(FakeCommandRunner::Output(
        "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
        "4       alice   RUN   normal     login01     node001     sleep 30   Dec 31 23:50\n"
        "5       bob     RUN   normal     login01     node002     other      Dec 31 23:50\n"));
  });
  EXPECT_FALSE(Refresh()) << "the refused run fails";
  ASSERT_TRUE(Refresh());
  EXPECT_TRUE(Tracker().UsesTableForm());
  EXPECT_EQ(Job(4)->lsf.status, "RUN");
  EXPECT_EQ(Job(5), nullptr) << "only followed jobs are kept";
}

// Found on volclava 2.2 (tests/realsched): a fresh bplaced's first bjobs
// was a caller's lookup of an id it did not follow; it learnt there that
// bjobs refuses -o/-json, and every caller asking got 503. Now the lookup
// is asked again at once in the table form, one bjobs for all the callers.
TEST_F(JobTrackerTest, AWatchThatFindsTheOutputFormatRefusedAsksAgainInTheTableForm) {
  fake_.On(IsBjobs, [](const lsf::CommandSpec& spec) {
    if (std::find(spec.argv.begin(), spec.argv.end(), "-json") != spec.argv.end()) {
      return FakeCommandRunner::Reply(FakeCommandRunner::Output(
          "", "<JOBINDEX> in the format string is not a valid field name.\n", 99));
    }
    return FakeCommandRunner::Reply(FakeCommandRunner::Output(
        "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
        "6       alice   PEND  short      login01                 sleep 2    Dec 31 23:50\n"));
  });
  std::vector<Result<void>> got;
  for (int caller = 0; caller < 3; ++caller) {
    Tracker().Watch({{"6", 0}}, [&](Result<void> r) { got.push_back(std::move(r)); });
  }
  io_.poll();
  ASSERT_EQ(got.size(), 3u);
  for (const Result<void>& r : got) EXPECT_TRUE(r) << r.error().message;
  ASSERT_NE(Job(6), nullptr);
  EXPECT_EQ(Job(6)->lsf.status, "PEND");
  EXPECT_FALSE(Job(6)->not_found);
  EXPECT_EQ(BjobsCalls().size(), 2u) << "the refused one, then one table for the three callers";
}

TEST_F(JobTrackerTest, NothingFollowedRunsNoBjobs) {
  ASSERT_TRUE(Refresh());
  EXPECT_TRUE(BjobsCalls().empty());
}

TEST_F(JobTrackerTest, RowsSurviveTheStateStoreRoundTrip) {
  JobView view = Submitted("8");
  view.labels = {{"workflow", "w1"}};
  view.lsf.exit_code = 2;
  view.submit_time = clock_.SystemNow();
  auto back = FromTracked(ToTracked({8, 0}, view));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->first.job_id, 8);
  EXPECT_EQ(back->second.labels.at("workflow"), "w1");
  EXPECT_EQ(back->second.lsf.exit_code, 2);
  EXPECT_EQ(back->second.submit_time, view.submit_time);
  EXPECT_TRUE(back->second.submitted_by_bplace);
  EXPECT_FALSE(back->second.start_seen_at.has_value());
  view.start_seen_at = clock_.SystemNow() + 10s;
  view.start_not_before = clock_.SystemNow() + 5s;
  back = FromTracked(ToTracked({8, 0}, view));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->second.start_seen_at, view.start_seen_at);
  EXPECT_EQ(back->second.start_not_before, view.start_not_before);
  EXPECT_FALSE(back->second.predicted_start.has_value());
  TrackedJob broken = ToTracked({8, 0}, view);
  broken.lsf_record = "{";
  EXPECT_FALSE(FromTracked(broken));
}

TEST_F(JobTrackerTest, ThePredictionGivenForAJobSurvivesTheStateStoreRoundTrip) {
  JobView view = Submitted("8");
  StartPrediction prediction;
  prediction.method = "class_history";
  prediction.p50_s = 240;
  prediction.bound_s = 1200;
  prediction.quantile = 0.95;
  prediction.confidence = 0.95;
  prediction.samples = 180;
  prediction.backlog = 2.5;
  view.predicted_start = prediction;
  auto back = FromTracked(ToTracked({8, 0}, view));
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->second.predicted_start.has_value());
  const StartPrediction& read = *back->second.predicted_start;
  EXPECT_EQ(read.method, "class_history");
  EXPECT_EQ(read.p50_s, 240);
  EXPECT_EQ(read.bound_s, 1200);
  EXPECT_DOUBLE_EQ(read.quantile, 0.95);
  EXPECT_EQ(read.samples, 180);
  EXPECT_EQ(read.backlog, 2.5);
  // No time promised: the bound stays absent.
  view.predicted_start->bound_s.reset();
  back = FromTracked(ToTracked({8, 0}, view));
  ASSERT_TRUE(back && back->second.predicted_start);
  EXPECT_FALSE(back->second.predicted_start->bound_s.has_value());
  // A record from before bplace kept the backlog reads without one.
  view.predicted_start->backlog.reset();
  back = FromTracked(ToTracked({8, 0}, view));
  ASSERT_TRUE(back && back->second.predicted_start);
  EXPECT_FALSE(back->second.predicted_start->backlog.has_value());
}

TEST(JobTableTest, AStartIsPlacedBetweenTheAnswersThatSawItComing) {
  // LSF prints START_TIME to the minute; bplace keeps when it saw the job
  // not started, and first started.
  const SystemTime minute = std::chrono::sys_days(std::chrono::year(2026) / 12 / 3) + 14h + 11min;
  JobTable submitted;
  auto view = std::make_shared<JobView>();
  view->lsf.job_id = "41";
  view->lsf.status = "SUBMITTED";
  view->submitted_by_bplace = true;
  view->submitted_at = minute + 26s;
  submitted.jobs[{41, 0}] = view;
  lsf::JobRecord record;
  record.job_id = "41";
  record.status = "PEND";
  record.queue = "gpu";
  record.submit_time = "Dec  3 14:11";
  BjobsAnswer answer;
  answer.records = {record};
  answer.now = minute + 50s;
  answer.asked = {"41"};
  const auto pending = MergeBjobs(submitted, answer);
  const JobView* seen = pending->Find({41, 0});
  ASSERT_NE(seen, nullptr);
  EXPECT_FALSE(seen->start_seen_at.has_value());
  record.status = "RUN";
  record.start_time = "Dec  3 14:11";
  answer.records = {record};
  answer.now = minute + 60s;
  const auto running = MergeBjobs(*pending, answer);
  seen = running->Find({41, 0});
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen->start_time, minute);
  EXPECT_EQ(seen->start_seen_at, minute + 60s);
  EXPECT_EQ(seen->start_not_before, minute + 50s);
  // A later answer keeps when the start was first seen.
  answer.now = minute + 70s;
  EXPECT_EQ(MergeBjobs(*running, answer)->Find({41, 0})->start_seen_at, minute + 60s);
}

TEST(JobTableTest, EveryRowHasALifetimeExceptJobsLsfLists) {
  const SystemTime now = std::chrono::sys_days(std::chrono::year(2027) / 1 / 1);
  const SystemTime cutoff = now - std::chrono::days(7);
  const SystemTime old = cutoff - std::chrono::hours(1);
  JobTable table;
  auto add = [&](std::int64_t id, auto edit) {
    JobView view;
    view.lsf.job_id = std::to_string(id);
    view.lsf.status = "RUN";
    view.submitted_by_bplace = true;
    view.submitted_at = old;
    view.updated_at = old;
    view.last_seen_in_lsf = old;
    edit(view);
    table.jobs[{id, 0}] = std::make_shared<const JobView>(view);
  };
  add(1, [](JobView&) {});  // listed by the last bjobs: no lifetime
  add(2, [&](JobView& v) {
    v.terminal = true;
    v.lsf.status = "DONE";
  });
  add(3, [&](JobView& v) {
    v.left_lsf = true;
    v.left_lsf_at = old;
  });
  add(4, [&](JobView& v) {
    v.left_lsf = true;
    v.left_lsf_at = now;
  });
  add(5, [&](JobView& v) {
    v.misses = 3;
    v.missing_since = old;
  });
  add(6, [&](JobView& v) {  // a lookup LSF never answered, first asked long ago
    v.submitted_by_bplace = false;
    v.last_seen_in_lsf.reset();
    v.lsf.status.clear();
  });
  add(7, [&](JobView& v) {
    v.last_seen_in_lsf.reset();
    v.lsf.status = kSubmittedStatus;
  });
  const auto kept = WithoutOldJobs(table, cutoff);
  std::vector<std::int64_t> ids;
  for (const auto& [key, view] : kept->jobs) ids.push_back(key.job_id);
  EXPECT_THAT(ids, ElementsAre(1, 4, 7));
}

TEST(JobCancellerTest, OneBkillForTheBatchAndAResultPerId) {
  boost::asio::io_context io;
  FakeCommandRunner fake(io.get_executor());
  fake.On([](const lsf::CommandSpec& spec) { return spec.argv.at(0) == "bkill"; },
          [](const lsf::CommandSpec&) {
            return FakeCommandRunner::Reply(FakeCommandRunner::Output(
                "Job <1> is being terminated\n", "Job <2>: Job has already finished\n", 255));
          });
  lsf::LsfInvoker lsf{"", "", 5000ms, {}};
  JobCanceller canceller(fake, lsf);
  std::optional<Result<std::vector<CancelResult>>> got;
  canceller.Cancel({{"1", 0}, {"2", 0}, {"3", 0}}, std::nullopt, [&](auto r) { got = r; });
  io.poll();
  ASSERT_TRUE(got && *got);
  ASSERT_EQ(fake.Calls().size(), 1u);
  EXPECT_THAT(fake.Calls()[0].argv, ElementsAre("bkill", "1", "2", "3"));
  EXPECT_EQ((**got)[0].outcome, lsf::BkillOutcome::kTerminating);
  EXPECT_EQ((**got)[1].outcome, lsf::BkillOutcome::kAlreadyFinished);
  EXPECT_EQ((**got)[2].outcome, lsf::BkillOutcome::kUnknown);
}

TEST(JobCancellerTest, LsfDownIsAnError) {
  const auto matched = MatchBkillReply(
      {{"1", 0}}, lsf::ClassifyBkillReply(255, "", "lsb_init: Failed in an LSF library call\n"));
  ASSERT_FALSE(matched);
  EXPECT_EQ(matched.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace bplace

namespace bplace {
namespace {

// bjobs lists (docs/lsf-front-door.md "bjobs lists"): the view of every
// job is read only while callers ask for lists, one query per cycle
// however many ask, with -a only while lists of finished jobs are asked.
TEST_F(JobTrackerTest, TheListOfEveryJobIsReadOnlyWhileListsAreAsked) {
  ASSERT_TRUE(Refresh());
  EXPECT_TRUE(BjobsCalls().empty()) << "no ids, no list callers: no bjobs at all";
  EXPECT_EQ(Tracker().list_view().Current(), nullptr);
  for (int caller = 0; caller < 50; ++caller) {
    EXPECT_FALSE(Tracker().list_view().Ask(clock_.SystemNow(), false))
        << "no list read since the demand began: wait for the next run";
  }
  Reply(Answer({Record("5", "RUN"), Record("3", "PEND")}));
  ASSERT_TRUE(Refresh());
  ASSERT_EQ(BjobsCalls().size(), 1u);
  EXPECT_THAT(BjobsCalls()[0],
              ElementsAre("bjobs", "-u", "all", "-o", lsf::BjobsOutputFields(), "-json"));
  const auto list = Tracker().list_view().Current();
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->records.size(), 2u);
  EXPECT_EQ(list->records[0].job_id, "5") << "mbatchd's order is kept";
  EXPECT_EQ(list->by_user.at("alice").size(), 2u);
  EXPECT_TRUE(list->Holds(3, 0));
  EXPECT_FALSE(list->with_finished);
  EXPECT_TRUE(Tracker().list_view().Ask(clock_.SystemNow(), false));
  // A list of finished jobs: the next cycles add -a.
  EXPECT_FALSE(Tracker().list_view().Ask(clock_.SystemNow(), true));
  ASSERT_TRUE(Refresh());
  EXPECT_THAT(BjobsCalls().back(), ::testing::Contains("-a"));
  EXPECT_TRUE(Tracker().list_view().Current()->with_finished);
  // Nobody asks for kListDemandLinger: the tier stops reading the list.
  clock_.Advance(kListDemandLinger + 1s);
  const std::size_t before = BjobsCalls().size();
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(BjobsCalls().size(), before);
}

TEST_F(JobTrackerTest, AFailedListKeepsTheLastOneAndFailsNothingElse) {
  Tracker().AddSubmitted({1, 0}, Submitted("1"));
  Tracker().list_view().Ask(clock_.SystemNow(), false);
  Reply(Answer({Record("1", "RUN")}));
  ASSERT_TRUE(Refresh());
  const auto first = Tracker().list_view().Current();
  ASSERT_NE(first, nullptr);
  fake_.On(IsBjobs, [](const lsf::CommandSpec& spec) {
    const bool list = spec.argv.size() > 2 && spec.argv[1] == "-u";
    return FakeCommandRunner::Reply(
        list ? FakeCommandRunner::Output("", "LSF is down. Please wait ...\n", 255)
             : FakeCommandRunner::Output(Answer({Record("1", "DONE")}), "", 0));
  });
  ASSERT_TRUE(Refresh());
  EXPECT_EQ(Tracker().list_view().Current(), first);
  EXPECT_EQ(Job(1)->lsf.status, "DONE");
  EXPECT_TRUE(Tracker().list_view().Ask(clock_.SystemNow(), false))
      << "a list was tried since the demand began: callers do not wait again";
}

TEST_F(JobTrackerTest, AnEmptyClusterIsAnEmptyList) {
  Tracker().list_view().Ask(clock_.SystemNow(), false);
  fake_.On(IsBjobs, [](const lsf::CommandSpec&) {
    return FakeCommandRunner::Reply(
        FakeCommandRunner::Output("", "No unfinished job found\n", 255));
  });
  ASSERT_TRUE(Refresh());
  const auto list = Tracker().list_view().Current();
  ASSERT_NE(list, nullptr);
  EXPECT_TRUE(list->records.empty());
}

}  // namespace
}  // namespace bplace
