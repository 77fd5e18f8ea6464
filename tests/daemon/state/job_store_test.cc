#include "daemon/state/job_store.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/daemon/state/job_store_fixture.h"

namespace bplace::testing {
namespace {

SubmissionOutcome Refused() {
  return {SubmissionState::kFailed, std::nullopt, 400, R"({"title":"bad -R"})"};
}

// --- Open -------------------------------------------------------------------

TEST_F(JobStoreTest, ReopeningKeepsTheSchemaVersion) {
  Reopen();
  Reopen();
  EXPECT_EQ(Count("SELECT count(*) FROM schema_version"), 1);
  EXPECT_EQ(Count("SELECT version FROM schema_version"), JobStore::kSchemaVersion);
}

TEST(JobStoreOpenTest, RefusesAFileFromANewerSchema) {
  const TempDir dir;
  ASSERT_TRUE(JobStore::Open(dir.path()));
  {
    Result<SqliteDb> db = SqliteDb::Open(dir.File(), std::chrono::milliseconds(1000));
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->Exec("UPDATE schema_version SET version = 99", "test"));
  }
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("schema version 99"), std::string::npos)
      << opened.error().message;
}

// --- Begin ------------------------------------------------------------------

TEST_F(JobStoreTest, BeginWritesAPendingIntent) {
  const BeginResult begun = MustBegin(Intent("t1"));
  EXPECT_EQ(begun.outcome, BeginOutcome::kNew);
  EXPECT_EQ(begun.submission.state, SubmissionState::kPending);
  EXPECT_EQ(begun.submission.tag, "t1");

  const Result<std::optional<StoredSubmission>> by_tag = store_->FindByTag("t1");
  ASSERT_TRUE(by_tag && *by_tag);
  const StoredSubmission& row = **by_tag;
  EXPECT_EQ(row.caller, "alice");
  EXPECT_EQ(row.idempotency_key, "key-1");
  EXPECT_EQ(row.request_id, "req-t1");
  EXPECT_EQ(row.body_sha256, Hash('a'));
  EXPECT_EQ(row.labels, (std::map<std::string, std::string>{{"workflow", "wf-1"}}));
  EXPECT_EQ(row.state, SubmissionState::kPending);
  EXPECT_EQ(row.job_id, std::nullopt);
  EXPECT_EQ(row.http_status, std::nullopt);
  EXPECT_EQ(row.response_body, std::nullopt);
  EXPECT_EQ(row.bsub_pid, std::nullopt);
  EXPECT_EQ(row.created_at, At(0));
  EXPECT_EQ(row.updated_at, At(0));

  const Result<std::optional<StoredSubmission>> by_key = store_->FindByKey("alice", "key-1");
  ASSERT_TRUE(by_key && *by_key);
  EXPECT_EQ((*by_key)->tag, "t1");
  EXPECT_EQ(store_->FindByKey("alice", "key-2").value(), std::nullopt);
  EXPECT_EQ(store_->FindByTag("t2").value(), std::nullopt);
}

TEST_F(JobStoreTest, SameKeyAndBodyWhilePendingIsInProgress) {
  MustBegin(Intent("t1"));
  const BeginResult again = MustBegin(Intent("t2"));
  EXPECT_EQ(again.outcome, BeginOutcome::kInProgress);
  EXPECT_EQ(again.submission.tag, "t1");
  EXPECT_EQ(store_->FindByTag("t2").value(), std::nullopt) << "nothing written";
}

TEST_F(JobStoreTest, SameKeyAndBodyWhileUnknownIsInProgress) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->MarkUnknown("t1", At(5)));
  EXPECT_EQ(MustBegin(Intent("t2")).outcome, BeginOutcome::kInProgress);
}

TEST_F(JobStoreTest, SameKeyAndBodyAfterSubmissionReplaysTheAnswer) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->Finish("t1", Submitted(4242), At(3)));
  const BeginResult again = MustBegin(Intent("t2", "key-1", Hash('a'), At(10)));
  EXPECT_EQ(again.outcome, BeginOutcome::kReplay);
  EXPECT_EQ(again.submission.state, SubmissionState::kSubmitted);
  EXPECT_EQ(again.submission.job_id, 4242);
  EXPECT_EQ(again.submission.http_status, 201);
  EXPECT_EQ(again.submission.response_body, R"({"job_id":"4242"})");
  EXPECT_EQ(again.submission.updated_at, At(3));
}

TEST_F(JobStoreTest, SameKeyAndBodyAfterRefusalReplaysTheRefusal) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->Finish("t1", Refused(), At(3)));
  const BeginResult again = MustBegin(Intent("t2"));
  EXPECT_EQ(again.outcome, BeginOutcome::kReplay);
  EXPECT_EQ(again.submission.state, SubmissionState::kFailed);
  EXPECT_EQ(again.submission.job_id, std::nullopt);
  EXPECT_EQ(again.submission.http_status, 400);
  EXPECT_EQ(again.submission.response_body, R"({"title":"bad -R"})");
}

TEST_F(JobStoreTest, SameKeyWithAnotherBodyIsABodyMismatchInEveryState) {
  MustBegin(Intent("t1"));
  EXPECT_EQ(MustBegin(Intent("t2", "key-1", Hash('b'))).outcome, BeginOutcome::kBodyMismatch);
  ASSERT_TRUE(store_->MarkUnknown("t1", At(1)));
  EXPECT_EQ(MustBegin(Intent("t2", "key-1", Hash('b'))).outcome, BeginOutcome::kBodyMismatch);
  ASSERT_TRUE(store_->Finish("t1", Submitted(7), At(2)));
  const BeginResult mismatch = MustBegin(Intent("t2", "key-1", Hash('b')));
  EXPECT_EQ(mismatch.outcome, BeginOutcome::kBodyMismatch);
  EXPECT_EQ(mismatch.submission.tag, "t1");
  EXPECT_EQ(store_->FindByTag("t2").value(), std::nullopt);
}

TEST_F(JobStoreTest, KeysBelongToTheirCaller) {
  MustBegin(Intent("t1"));
  SubmissionIntent bob = Intent("t2");
  bob.caller = "bob";
  EXPECT_EQ(MustBegin(bob).outcome, BeginOutcome::kNew);
}

TEST_F(JobStoreTest, WithoutAKeyTheRequestIdIsTheKey) {
  EXPECT_EQ(MustBegin(Intent("t1", std::nullopt)).outcome, BeginOutcome::kNew);
  EXPECT_EQ(MustBegin(Intent("t2", std::nullopt)).outcome, BeginOutcome::kNew);
  SubmissionIntent retry = Intent("t3", std::nullopt);
  retry.request_id = "req-t1";
  EXPECT_EQ(MustBegin(retry).outcome, BeginOutcome::kInProgress);
}

TEST_F(JobStoreTest, BeginRefusesATagOrRequestIdOfAnotherSubmission) {
  MustBegin(Intent("t1", "key-1"));
  const Result<BeginResult> same_tag = store_->Begin(Intent("t1", "key-2"));
  ASSERT_FALSE(same_tag);
  EXPECT_EQ(same_tag.error().code, ErrorCode::kConflict);
  SubmissionIntent same_request = Intent("t2", "key-3");
  same_request.request_id = "req-t1";
  const Result<BeginResult> refused = store_->Begin(same_request);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
}

TEST_F(JobStoreTest, BeginRefusesAnIncompleteIntent) {
  std::vector<SubmissionIntent> bad(6, Intent("t1"));
  bad[0].caller.clear();
  bad[1].request_id.clear();
  bad[2].tag.clear();
  bad[3].idempotency_key = "";
  bad[4].body_sha256 = Hash('A');
  bad[5].body_sha256 = "abc";
  for (const SubmissionIntent& intent : bad) {
    const Result<BeginResult> begun = store_->Begin(intent);
    ASSERT_FALSE(begun);
    EXPECT_EQ(begun.error().code, ErrorCode::kInvalidArgument);
  }
  EXPECT_TRUE(store_->Unreconciled().value().empty());
}

// Eight threads, and two connections (as two processes would have), race on
// one key: the write lock taken at the look-up lets exactly one insert.
TEST_F(JobStoreTest, ConcurrentBeginOnOneKeyMakesExactlyOneNew) {
  Result<std::unique_ptr<JobStore>> second = JobStore::Open(dir_.path());
  ASSERT_TRUE(second) << second.error().message;
  std::atomic<int> fresh{0}, in_progress{0}, failed{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    JobStore* store = i % 2 == 0 ? store_.get() : second->get();
    threads.emplace_back([&, store, i] {
      while (!go.load()) std::this_thread::yield();
      const Result<BeginResult> begun = store->Begin(Intent("t" + std::to_string(i)));
      if (!begun) {
        ++failed;
      } else if (begun->outcome == BeginOutcome::kNew) {
        ++fresh;
      } else if (begun->outcome == BeginOutcome::kInProgress) {
        ++in_progress;
      }
    });
  }
  go = true;
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(fresh.load(), 1);
  EXPECT_EQ(in_progress.load(), 7);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(store_->Unreconciled().value().size(), 1U);
}

// --- After Begin ------------------------------------------------------------

TEST_F(JobStoreTest, SetBsubPidRecordsThePidAndFinishClearsIt) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->SetBsubPid("t1", 31337));
  EXPECT_EQ(store_->FindByTag("t1").value()->bsub_pid, 31337);
  ASSERT_TRUE(store_->Finish("t1", Submitted(9), At(1)));
  EXPECT_EQ(store_->FindByTag("t1").value()->bsub_pid, std::nullopt);
}

TEST_F(JobStoreTest, SetBsubPidRefusesWhatItCannotRecord) {
  MustBegin(Intent("t1"));
  EXPECT_EQ(store_->SetBsubPid("t1", 0).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->SetBsubPid("nope", 5).error().code, ErrorCode::kNotFound);
  ASSERT_TRUE(store_->Finish("t1", Refused(), At(1)));
  EXPECT_EQ(store_->SetBsubPid("t1", 5).error().code, ErrorCode::kConflict);
}

TEST_F(JobStoreTest, FinishStoresTheAnswer) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->Finish("t1", Submitted(4242), At(7)));
  const StoredSubmission row = *store_->FindByTag("t1").value();
  EXPECT_EQ(row.state, SubmissionState::kSubmitted);
  EXPECT_EQ(row.job_id, 4242);
  EXPECT_EQ(row.http_status, 201);
  EXPECT_EQ(row.response_body, R"({"job_id":"4242"})");
  EXPECT_EQ(row.created_at, At(0));
  EXPECT_EQ(row.updated_at, At(7));
}

TEST_F(JobStoreTest, FinishNeverRewritesAFinishedRow) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->Finish("t1", Submitted(1), At(1)));
  const Result<void> again = store_->Finish("t1", Submitted(2), At(2));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kConflict);
  EXPECT_NE(again.error().message.find("submitted"), std::string::npos);
  EXPECT_EQ(store_->FindByTag("t1").value()->job_id, 1);
}

TEST_F(JobStoreTest, FinishRefusesAnInconsistentOutcome) {
  MustBegin(Intent("t1"));
  const std::vector<SubmissionOutcome> bad = {
      {SubmissionState::kPending, std::nullopt, 202, "{}"},
      {SubmissionState::kUnknown, std::nullopt, 202, "{}"},
      {SubmissionState::kSubmitted, std::nullopt, 201, "{}"},
      {SubmissionState::kSubmitted, 0, 201, "{}"},
      {SubmissionState::kFailed, 5, 400, "{}"},
      {SubmissionState::kFailed, std::nullopt, 99, "{}"},
      {SubmissionState::kFailed, std::nullopt, 600, "{}"},
  };
  for (const SubmissionOutcome& outcome : bad) {
    const Result<void> finished = store_->Finish("t1", outcome, At(1));
    ASSERT_FALSE(finished);
    EXPECT_EQ(finished.error().code, ErrorCode::kInvalidArgument);
  }
  EXPECT_EQ(store_->FindByTag("t1").value()->state, SubmissionState::kPending);
  EXPECT_EQ(store_->Finish("nope", Refused(), At(1)).error().code, ErrorCode::kNotFound);
}

TEST_F(JobStoreTest, MarkUnknownKeepsThePidAndIsIdempotent) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->SetBsubPid("t1", 77));
  ASSERT_TRUE(store_->MarkUnknown("t1", At(4)));
  ASSERT_TRUE(store_->MarkUnknown("t1", At(9)));
  const StoredSubmission row = *store_->FindByTag("t1").value();
  EXPECT_EQ(row.state, SubmissionState::kUnknown);
  EXPECT_EQ(row.bsub_pid, 77);
  EXPECT_EQ(row.updated_at, At(4)) << "a second MarkUnknown leaves the row as it is";
  EXPECT_EQ(store_->MarkUnknown("nope", At(1)).error().code, ErrorCode::kNotFound);
}

TEST_F(JobStoreTest, AnUnknownSubmissionIsReconciledByFinish) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->MarkUnknown("t1", At(4)));
  ASSERT_TRUE(store_->Finish("t1", Submitted(55), At(8)));
  EXPECT_EQ(store_->FindByTag("t1").value()->state, SubmissionState::kSubmitted);
  EXPECT_EQ(store_->MarkUnknown("t1", At(9)).error().code, ErrorCode::kConflict);
  EXPECT_TRUE(store_->Unreconciled().value().empty());
}

TEST_F(JobStoreTest, UnreconciledListsPendingAndUnknownOldestFirst) {
  MustBegin(Intent("late", "k1", Hash('a'), At(30)));
  MustBegin(Intent("early", "k2", Hash('a'), At(10)));
  MustBegin(Intent("done", "k3", Hash('a'), At(5)));
  MustBegin(Intent("middle", "k4", Hash('a'), At(20)));
  ASSERT_TRUE(store_->Finish("done", Submitted(3), At(40)));
  ASSERT_TRUE(store_->MarkUnknown("middle", At(41)));
  const std::vector<StoredSubmission> open = store_->Unreconciled().value();
  ASSERT_EQ(open.size(), 3U);
  EXPECT_EQ(open[0].tag, "early");
  EXPECT_EQ(open[1].tag, "middle");
  EXPECT_EQ(open[1].state, SubmissionState::kUnknown);
  EXPECT_EQ(open[2].tag, "late");
}

TEST_F(JobStoreTest, ReleaseLetsTheKeyBeTriedAgain) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->MarkUnknown("t1", At(1)));
  ASSERT_TRUE(store_->Release("t1"));
  EXPECT_EQ(store_->FindByTag("t1").value(), std::nullopt);
  EXPECT_EQ(MustBegin(Intent("t2")).outcome, BeginOutcome::kNew);
}

TEST_F(JobStoreTest, ReleaseNeverDeletesAStoredAnswer) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->Finish("t1", Submitted(1), At(1)));
  EXPECT_EQ(store_->Release("t1").error().code, ErrorCode::kConflict);
  EXPECT_EQ(store_->Release("nope").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(MustBegin(Intent("t2")).outcome, BeginOutcome::kReplay);
}

// --- Restarts ---------------------------------------------------------------

TEST_F(JobStoreTest, AnswersSurviveAReopen) {
  MustBegin(Intent("t1"));
  ASSERT_TRUE(store_->Finish("t1", Submitted(4242), At(3)));
  MustUpsert({Job(4242, 3)});
  Reopen();
  const BeginResult again = MustBegin(Intent("t2"));
  EXPECT_EQ(again.outcome, BeginOutcome::kReplay);
  EXPECT_EQ(again.submission.job_id, 4242);
  EXPECT_TRUE(store_->FindJob(4242, 0).value());
}

// A child process writes and is killed with SIGKILL, without closing
// anything, at the two points that matter: between Begin and Finish, and
// right after Finish. What the returned calls wrote must be there.
class JobStoreCrashTest : public JobStoreTest {
 protected:
  void RunAndKill(const std::function<void(JobStore&)>& work) {
    store_.reset();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir_.path());
      if (!opened) ::_exit(1);
      work(**opened);
      ::kill(::getpid(), SIGKILL);
      ::_exit(2);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
    Reopen();
  }
};

TEST_F(JobStoreCrashTest, ACrashBetweenBeginAndFinishLeavesAPendingRow) {
  RunAndKill([](JobStore& store) {
    if (!store.Begin(Intent("t1")) || !store.SetBsubPid("t1", 4321)) ::_exit(3);
  });
  const std::vector<StoredSubmission> open = store_->Unreconciled().value();
  ASSERT_EQ(open.size(), 1U);
  EXPECT_EQ(open[0].tag, "t1");
  EXPECT_EQ(open[0].state, SubmissionState::kPending);
  EXPECT_EQ(open[0].bsub_pid, 4321);
  EXPECT_EQ(MustBegin(Intent("t2")).outcome, BeginOutcome::kInProgress);
}

TEST_F(JobStoreCrashTest, ACrashAfterFinishKeepsTheAnswer) {
  RunAndKill([](JobStore& store) {
    if (!store.Begin(Intent("t1")) || !store.Finish("t1", Submitted(99), At(1))) ::_exit(3);
  });
  EXPECT_TRUE(store_->Unreconciled().value().empty());
  const BeginResult again = MustBegin(Intent("t2"));
  EXPECT_EQ(again.outcome, BeginOutcome::kReplay);
  EXPECT_EQ(again.submission.job_id, 99);
}

}  // namespace
}  // namespace bplace::testing
