#include "daemon/state/job_store.h"

#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "tests/daemon/state/job_store_fixture.h"

namespace bplace::testing {
namespace {

std::vector<std::int64_t> Ids(const std::vector<TrackedJob>& jobs) {
  std::vector<std::int64_t> ids;
  for (const TrackedJob& job : jobs) ids.push_back(job.job_id);
  return ids;
}

// --- Tracked jobs -----------------------------------------------------------

TEST_F(JobStoreTest, UpsertStoresEveryField) {
  TrackedJob job = Job(100, 5, "bob", 3);
  job.status = "RUN";
  job.request_id = "req-1";
  job.tag = "t1";
  job.labels = {{"step", "align"}, {"workflow", "wf-1"}};
  job.updated_at = At(6);
  job.last_seen_in_lsf = At(7);
  MustUpsert({job});
  const std::optional<TrackedJob> found = store_->FindJob(100, 3).value();
  ASSERT_TRUE(found);
  EXPECT_EQ(found->user, "bob");
  EXPECT_EQ(found->queue, "normal");
  EXPECT_EQ(found->status, "RUN");
  EXPECT_FALSE(found->terminal);
  EXPECT_EQ(found->lsf_record, R"({"JOBID":"100"})");
  EXPECT_EQ(found->request_id, "req-1");
  EXPECT_EQ(found->tag, "t1");
  EXPECT_EQ(found->labels, job.labels);
  EXPECT_EQ(found->submitted_at, At(5));
  EXPECT_EQ(found->updated_at, At(6));
  EXPECT_EQ(found->last_seen_in_lsf, At(7));
  EXPECT_EQ(store_->FindJob(100, 0).value(), std::nullopt);
  EXPECT_EQ(store_->FindJob(101, 3).value(), std::nullopt);
}

TEST_F(JobStoreTest, MarkSeenMovesOnlyTheTimesOfStoredJobs) {
  TrackedJob job = Job(100, 5);
  job.status = "RUN";
  job.labels = {{"workflow", "wf-1"}};
  job.last_seen_in_lsf = At(6);
  MustUpsert({job});
  ASSERT_TRUE(store_->MarkSeen({{100, 0, At(60), At(61)}, {999, 0, At(60), At(60)}}));
  const TrackedJob found = *store_->FindJob(100, 0).value();
  EXPECT_EQ(found.last_seen_in_lsf, At(60));
  EXPECT_EQ(found.updated_at, At(61));
  EXPECT_EQ(found.status, "RUN");
  EXPECT_EQ(found.lsf_record, job.lsf_record);
  EXPECT_EQ(found.labels, job.labels);
  EXPECT_EQ(found.submitted_at, At(5));
  EXPECT_EQ(store_->FindJob(999, 0).value(), std::nullopt) << "a job not stored is skipped";
}

TEST_F(JobStoreTest, UpsertTakesLsfFieldsAndKeepsWhatBjobsCannotKnow) {
  TrackedJob submitted = Job(100, 5);
  submitted.status = "SUBMITTED";
  submitted.request_id = "req-1";
  submitted.tag = "t1";
  submitted.labels = {{"workflow", "wf-1"}};
  MustUpsert({submitted});
  TrackedJob from_bjobs = Job(100, 8, "alice");
  from_bjobs.queue = "long";
  from_bjobs.status = "DONE";
  from_bjobs.terminal = true;
  from_bjobs.lsf_record = R"({"STAT":"DONE"})";
  from_bjobs.updated_at = At(20);
  from_bjobs.last_seen_in_lsf = At(20);
  MustUpsert({from_bjobs});
  from_bjobs.last_seen_in_lsf.reset();
  from_bjobs.updated_at = At(30);
  MustUpsert({from_bjobs});

  const TrackedJob found = *store_->FindJob(100, 0).value();
  EXPECT_EQ(found.queue, "long");
  EXPECT_EQ(found.status, "DONE");
  EXPECT_TRUE(found.terminal);
  EXPECT_EQ(found.lsf_record, R"({"STAT":"DONE"})");
  EXPECT_EQ(found.request_id, "req-1");
  EXPECT_EQ(found.tag, "t1");
  EXPECT_EQ(found.labels, submitted.labels);
  EXPECT_EQ(found.submitted_at, At(5)) << "the first insert's";
  EXPECT_EQ(found.updated_at, At(30));
  EXPECT_EQ(found.last_seen_in_lsf, At(20)) << "kept when not given";
}

TEST_F(JobStoreTest, UpsertWritesNothingWhenOneJobIsInvalid) {
  TrackedJob bad = Job(0, 2);
  EXPECT_EQ(store_->UpsertJobs({Job(1, 1), bad}).error().code, ErrorCode::kInvalidArgument);
  TrackedJob negative = Job(3, 2, "alice", -1);
  EXPECT_EQ(store_->UpsertJobs({Job(1, 1), negative}).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->FindJob(1, 0).value(), std::nullopt);
}

TEST_F(JobStoreTest, ActiveJobsAreTheNonTerminalOnesByIdAndIndex) {
  TrackedJob done = Job(5, 1);
  done.terminal = true;
  MustUpsert({Job(9, 1), done, Job(7, 1, "alice", 2), Job(7, 1, "alice", 1), Job(3, 1)});
  const std::vector<TrackedJob> active = store_->ActiveJobs().value();
  ASSERT_EQ(active.size(), 4U);
  EXPECT_EQ(Ids(active), (std::vector<std::int64_t>{3, 7, 7, 9}));
  EXPECT_EQ(active[1].array_index, 1);
  EXPECT_EQ(active[2].array_index, 2);
}

TEST_F(JobStoreTest, FindArrayJobReturnsEveryElement) {
  MustUpsert({Job(7, 1, "alice", 3), Job(7, 1, "alice", 1), Job(8, 1), Job(7, 1, "alice", 2)});
  const std::vector<TrackedJob> elements = store_->FindArrayJob(7).value();
  ASSERT_EQ(elements.size(), 3U);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    EXPECT_EQ(elements[i].array_index, static_cast<std::int64_t>(i + 1));
  }
  EXPECT_TRUE(store_->FindArrayJob(6).value().empty());
}

// --- ListJobs ---------------------------------------------------------------

TEST_F(JobStoreTest, ListsNewestFirstThenByJobIdThenIndex) {
  MustUpsert({Job(1, 10), Job(2, 30), Job(3, 20), Job(4, 30), Job(4, 30, "alice", 1)});
  const JobPage page = MustList({});
  EXPECT_EQ(Ids(page.jobs), (std::vector<std::int64_t>{4, 4, 2, 3, 1}));
  EXPECT_EQ(page.jobs[0].array_index, 1);
  EXPECT_EQ(page.next_cursor, "");
}

TEST_F(JobStoreTest, ListsByUserStatusAndSince) {
  TrackedJob running = Job(3, 30, "alice");
  running.status = "RUN";
  MustUpsert({Job(1, 10, "alice"), Job(2, 20, "bob"), running, Job(4, 40, "bob")});
  JobFilter alice;
  alice.user = "alice";
  EXPECT_EQ(Ids(MustList(alice).jobs), (std::vector<std::int64_t>{3, 1}));
  JobFilter statuses;
  statuses.statuses = {"RUN", "DONE"};
  EXPECT_EQ(Ids(MustList(statuses).jobs), (std::vector<std::int64_t>{3}));
  JobFilter since;
  since.since = At(20);
  EXPECT_EQ(Ids(MustList(since).jobs), (std::vector<std::int64_t>{4, 3, 2}));
  JobFilter bob_pending;
  bob_pending.user = "bob";
  bob_pending.statuses = {"PEND"};
  bob_pending.since = At(25);
  EXPECT_EQ(Ids(MustList(bob_pending).jobs), (std::vector<std::int64_t>{4}));
}

TEST_F(JobStoreTest, ListsByLabel) {
  std::vector<TrackedJob> jobs = {Job(1, 10, "alice"), Job(2, 20, "bob"), Job(3, 30, "alice"),
                                  Job(4, 40, "alice")};
  jobs[0].labels = {{"workflow", "wf-1"}, {"step", "a"}};
  jobs[1].labels = {{"workflow", "wf-1"}};
  jobs[2].labels = {{"workflow", "wf-2"}};
  jobs[3].labels = {{"step", "wf-1"}};
  MustUpsert(jobs);
  JobFilter wf1;
  wf1.label = {"workflow", "wf-1"};
  EXPECT_EQ(Ids(MustList(wf1).jobs), (std::vector<std::int64_t>{2, 1}));
  wf1.user = "alice";
  EXPECT_EQ(Ids(MustList(wf1).jobs), (std::vector<std::int64_t>{1}));
  JobFilter none;
  none.label = {"workflow", "wf-9"};
  EXPECT_TRUE(MustList(none).jobs.empty());
}

TEST_F(JobStoreTest, NewLabelsReplaceTheOldOnesInTheFilter) {
  TrackedJob job = Job(1, 10);
  job.labels = {{"workflow", "wf-1"}};
  MustUpsert({job});
  job.labels = {{"workflow", "wf-2"}};
  MustUpsert({job});
  JobFilter old_label;
  old_label.label = {"workflow", "wf-1"};
  EXPECT_TRUE(MustList(old_label).jobs.empty());
  JobFilter new_label;
  new_label.label = {"workflow", "wf-2"};
  EXPECT_EQ(Ids(MustList(new_label).jobs), (std::vector<std::int64_t>{1}));
}

// Keyset pages: jobs inserted between two pages, newer or older than the
// cursor, never make a row repeat or go missing; older ones show up on a
// later page, newer ones on none.
class JobStorePagingTest : public JobStoreTest, public ::testing::WithParamInterface<bool> {};

TEST_P(JobStorePagingTest, PagesStayStableWhenJobsArriveBetweenThem) {
  const bool by_label = GetParam();
  std::vector<TrackedJob> jobs;
  for (int id = 1; id <= 10; ++id) {
    jobs.push_back(Job(id, id * 10));
    jobs.back().labels = {{"workflow", "wf-1"}};
  }
  MustUpsert(jobs);
  JobFilter filter;
  filter.limit = 3;
  if (by_label) filter.label = {"workflow", "wf-1"};
  std::vector<std::int64_t> seen;
  for (int page_number = 0; page_number < 20; ++page_number) {
    const JobPage page = MustList(filter);
    for (const TrackedJob& job : page.jobs) seen.push_back(job.job_id);
    if (page.next_cursor.empty()) break;
    TrackedJob newer = Job(100 + page_number, 1000);
    TrackedJob older = Job(200 + page_number, 9 - page_number);
    newer.labels = older.labels = {{"workflow", "wf-1"}};
    MustUpsert({newer, older});
    filter.cursor = page.next_cursor;
  }
  EXPECT_EQ(seen, (std::vector<std::int64_t>{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 200, 201, 202, 203}));
}

INSTANTIATE_TEST_SUITE_P(AllAndByLabel, JobStorePagingTest, ::testing::Bool());

TEST_F(JobStoreTest, ListRefusesABadLimitOrCursor) {
  for (const int limit : {0, -1, 1001}) {
    JobFilter filter;
    filter.limit = limit;
    EXPECT_EQ(store_->ListJobs(filter).error().code, ErrorCode::kInvalidArgument);
  }
  JobFilter max;
  max.limit = 1000;
  EXPECT_TRUE(store_->ListJobs(max));
  for (const char* cursor :
       {"x", "c1.", "c1.1.2", "c1.1.2.3.4", "c1.1.2.x", "c2.1.2.3", "c1.1..3"}) {
    JobFilter filter;
    filter.cursor = cursor;
    const Result<JobPage> page = store_->ListJobs(filter);
    ASSERT_FALSE(page) << cursor;
    EXPECT_EQ(page.error().code, ErrorCode::kInvalidArgument);
  }
}

TEST_F(JobStoreTest, JobsSurviveAReopen) {
  TrackedJob job = Job(5, 5);
  job.labels = {{"workflow", "wf-1"}};
  MustUpsert({job});
  Reopen();
  JobFilter filter;
  filter.label = {"workflow", "wf-1"};
  EXPECT_EQ(Ids(MustList(filter).jobs), (std::vector<std::int64_t>{5}));
}

// --- Prune ------------------------------------------------------------------

TEST_F(JobStoreTest, PruneDeletesOnlyOldTerminalJobsAndOldFinishedSubmissions) {
  TrackedJob old_done = Job(1, 1);
  old_done.terminal = true;
  old_done.updated_at = At(50);
  old_done.labels = {{"workflow", "wf-1"}};
  TrackedJob new_done = Job(2, 1);
  new_done.terminal = true;
  new_done.updated_at = At(150);
  TrackedJob old_running = Job(3, 1);
  old_running.updated_at = At(50);
  MustUpsert({old_done, new_done, old_running});
  MustBegin(Intent("old-finished", "k1", Hash('a'), At(0)));
  ASSERT_TRUE(store_->Finish("old-finished", Submitted(1), At(50)));
  MustBegin(Intent("new-finished", "k2", Hash('a'), At(0)));
  ASSERT_TRUE(store_->Finish("new-finished", Submitted(2), At(150)));
  MustBegin(Intent("old-pending", "k3", Hash('a'), At(0)));

  EXPECT_EQ(store_->Prune(At(100)).value(), 2U);
  EXPECT_EQ(store_->FindJob(1, 0).value(), std::nullopt);
  EXPECT_TRUE(store_->FindJob(2, 0).value());
  EXPECT_TRUE(store_->FindJob(3, 0).value());
  EXPECT_EQ(store_->FindByTag("old-finished").value(), std::nullopt);
  EXPECT_TRUE(store_->FindByTag("new-finished").value());
  EXPECT_TRUE(store_->FindByTag("old-pending").value());
  EXPECT_EQ(Count("SELECT count(*) FROM job_labels"), 0) << "labels go with their job";
  // The pruned key is new again (the contract's warning).
  EXPECT_EQ(MustBegin(Intent("retry", "k1")).outcome, BeginOutcome::kNew);
  EXPECT_EQ(store_->Prune(At(100)).value(), 0U);
}

TEST_F(JobStoreTest, PruneRemovesMoreThanOneBatch) {
  std::vector<TrackedJob> jobs;
  const int count = static_cast<int>(JobStore::kPruneBatch) * 2 + 500;
  for (int id = 1; id <= count; ++id) {
    jobs.push_back(Job(id, 1));
    jobs.back().terminal = true;
    jobs.back().labels = {{"workflow", "wf-1"}};
  }
  MustUpsert(jobs);
  EXPECT_EQ(store_->Prune(At(100)).value(), static_cast<std::size_t>(count));
  EXPECT_EQ(Count("SELECT count(*) FROM tracked_jobs"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM job_labels"), 0);
}

}  // namespace
}  // namespace bplace::testing
