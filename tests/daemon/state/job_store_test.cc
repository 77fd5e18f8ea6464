#include "daemon/state/job_store.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "daemon/state/sqlite_db.h"

namespace bplace {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

// Fixed instants: the store takes every time as an argument, so the tests
// never read a clock.
const SystemTime kT0 = SystemTime(seconds(1'700'000'000));
SystemTime At(int s) { return kT0 + seconds(s); }

std::string Hash(char digit) { return std::string(64, digit); }

SubmissionIntent Intent(std::string tag, std::optional<std::string> key = "key-1",
                        std::string body = Hash('a'), SystemTime now = At(0)) {
  SubmissionIntent intent;
  intent.caller = "alice";
  intent.idempotency_key = std::move(key);
  intent.request_id = "req-" + tag;
  intent.body_sha256 = std::move(body);
  intent.tag = std::move(tag);
  intent.labels = {{"workflow", "wf-1"}};
  intent.now = now;
  return intent;
}

SubmissionOutcome Submitted(std::int64_t job_id) {
  return {SubmissionState::kSubmitted, job_id, 201,
          R"({"job_id":")" + std::to_string(job_id) + R"("})"};
}

SubmissionOutcome Refused() {
  return {SubmissionState::kFailed, std::nullopt, 400, R"({"title":"bad -R"})"};
}

TrackedJob Job(std::int64_t job_id, int submitted_s, std::string user = "alice",
               std::int64_t array_index = 0) {
  TrackedJob job;
  job.job_id = job_id;
  job.array_index = array_index;
  job.user = std::move(user);
  job.queue = "normal";
  job.status = "PEND";
  job.lsf_record = R"({"JOBID":")" + std::to_string(job_id) + R"("})";
  job.submitted_at = At(submitted_s);
  job.updated_at = At(submitted_s);
  return job;
}

std::vector<std::int64_t> Ids(const std::vector<TrackedJob>& jobs) {
  std::vector<std::int64_t> ids;
  for (const TrackedJob& job : jobs) ids.push_back(job.job_id);
  return ids;
}

mode_t ModeOf(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

// A fresh private directory (mkdtemp: mode 0700), removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "bplace-store-XXXXXX";
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string File() const { return path_ + "/bplace.sqlite"; }

 private:
  std::string path_;
};

class JobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  // Closes the store (if open) and opens the same directory again: what a
  // restarted daemon sees.
  void Reopen() {
    store_.reset();
    Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir_.path());
    ASSERT_TRUE(opened) << opened.error().message;
    store_ = std::move(*opened);
  }

  BeginResult MustBegin(const SubmissionIntent& intent) {
    Result<BeginResult> begun = store_->Begin(intent);
    EXPECT_TRUE(begun) << begun.error().message;
    return begun ? *begun : BeginResult{};
  }

  void MustUpsert(const std::vector<TrackedJob>& jobs) {
    const Result<void> done = store_->UpsertJobs(jobs);
    ASSERT_TRUE(done) << done.error().message;
  }

  JobPage MustList(const JobFilter& filter) {
    Result<JobPage> page = store_->ListJobs(filter);
    EXPECT_TRUE(page) << page.error().message;
    return page ? *page : JobPage{};
  }

  // One value straight from the file, through a second connection.
  std::int64_t Count(const std::string& sql) {
    Result<SqliteDb> db = SqliteDb::Open(dir_.File(), std::chrono::milliseconds(1000));
    EXPECT_TRUE(db) << db.error().message;
    Result<SqliteStatement> select = db->Prepare(sql, "test query");
    EXPECT_TRUE(select) << select.error().message;
    const Result<bool> row = select->Step();
    EXPECT_TRUE(row && *row);
    return select->Int(0);
  }

  TempDir dir_;
  std::unique_ptr<JobStore> store_;
};

// --- Open -------------------------------------------------------------------

TEST_F(JobStoreTest, CreatesThePrivateFileAndItsWal) {
  EXPECT_EQ(store_->path(), dir_.File());
  EXPECT_EQ(ModeOf(dir_.File()), 0600U);
  MustBegin(Intent("t1"));
  // SQLite gives the -wal file the mode of the database file.
  EXPECT_EQ(ModeOf(dir_.File() + "-wal"), 0600U);
  EXPECT_EQ(Count("SELECT version FROM schema_version"), JobStore::kSchemaVersion);
}

TEST_F(JobStoreTest, CreatesTheFileMode0600WhateverTheUmask) {
  store_.reset();
  fs::remove(dir_.File());
  const mode_t old_umask = ::umask(0277);
  Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir_.path());
  ::umask(old_umask);
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(ModeOf(dir_.File()), 0600U);
}

TEST_F(JobStoreTest, ReopeningKeepsTheSchemaVersion) {
  Reopen();
  Reopen();
  EXPECT_EQ(Count("SELECT count(*) FROM schema_version"), 1);
  EXPECT_EQ(Count("SELECT version FROM schema_version"), JobStore::kSchemaVersion);
}

TEST(JobStoreOpenTest, RefusesAMissingDirectory) {
  const TempDir dir;
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path() + "/absent");
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(opened.error().message.find(dir.path() + "/absent does not exist"), std::string::npos)
      << opened.error().message;
}

TEST(JobStoreOpenTest, RefusesAPathThatIsNotADirectory) {
  const TempDir dir;
  std::ofstream(dir.path() + "/plain") << "x";
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path() + "/plain");
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(opened.error().message.find("is not a directory"), std::string::npos);
}

TEST(JobStoreOpenTest, RefusesAGroupOrOtherWritableDirectory) {
  for (const mode_t mode : {0770, 0707, 01777}) {
    const TempDir dir;
    ASSERT_EQ(::chmod(dir.path().c_str(), mode), 0);
    const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
    ASSERT_FALSE(opened) << std::oct << mode;
    EXPECT_EQ(opened.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(opened.error().message.find(dir.path() + " is writable by group or others"),
              std::string::npos)
        << opened.error().message;
    EXPECT_FALSE(fs::exists(dir.File())) << "nothing is created in a refused directory";
  }
}

TEST(JobStoreOpenTest, AcceptsAGroupReadableDirectory) {
  const TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  EXPECT_TRUE(JobStore::Open(dir.path()));
}

TEST(JobStoreOpenTest, RefusesADirectoryOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  const TempDir dir;
  ASSERT_EQ(::chown(dir.path().c_str(), 12345, 12345), 0);
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("owned by uid 12345"), std::string::npos)
      << opened.error().message;
}

TEST(JobStoreOpenTest, RefusesASymlinkInPlaceOfTheFile) {
  const TempDir dir;
  const TempDir elsewhere;
  ASSERT_TRUE(JobStore::Open(elsewhere.path()));
  fs::create_symlink(elsewhere.File(), dir.File());
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(opened.error().message.find(dir.File() + " is a symbolic link"), std::string::npos)
      << opened.error().message;
}

TEST(JobStoreOpenTest, RefusesAFileThatIsNotRegular) {
  const TempDir dir;
  fs::create_directory(dir.File());
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("is not a regular file"), std::string::npos)
      << opened.error().message;
}

TEST(JobStoreOpenTest, RefusesAGroupWritableFile) {
  const TempDir dir;
  ASSERT_TRUE(JobStore::Open(dir.path()));
  ASSERT_EQ(::chmod(dir.File().c_str(), 0620), 0);
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(opened.error().message.find("mode 0620"), std::string::npos) << opened.error().message;
}

TEST(JobStoreOpenTest, RefusesAFileOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  const TempDir dir;
  ASSERT_TRUE(JobStore::Open(dir.path()));
  ASSERT_EQ(::chown(dir.File().c_str(), 12345, 12345), 0);
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("owned by uid 12345"), std::string::npos)
      << opened.error().message;
}

TEST(JobStoreOpenTest, ReportsAFileOfGarbageClearly) {
  const TempDir dir;
  {
    std::ofstream out(dir.File(), std::ios::binary);
    for (int i = 0; i < 1000; ++i) out << "this is not a database ";
  }
  ASSERT_EQ(::chmod(dir.File().c_str(), 0600), 0);
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kInternal);
  EXPECT_NE(opened.error().message.find(dir.File()), std::string::npos) << opened.error().message;
  EXPECT_NE(opened.error().message.find("file is not a database"), std::string::npos)
      << opened.error().message;
}

// One page in the middle of the jobs, which Open itself would not read.
TEST(JobStoreOpenTest, ReportsADamagedPageClearly) {
  const TempDir dir;
  {
    Result<std::unique_ptr<JobStore>> store = JobStore::Open(dir.path());
    ASSERT_TRUE(store);
    std::vector<TrackedJob> jobs;
    for (int id = 1; id <= 2000; ++id) jobs.push_back(Job(id, id));
    ASSERT_TRUE((*store)->UpsertJobs(jobs));
  }  // the last connection closes: the -wal file is checkpointed into the file
  const auto size = static_cast<std::streamoff>(fs::file_size(dir.File()));
  ASSERT_GT(size, 16 * 4096);
  {
    std::fstream file(dir.File(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(size / 2 / 4096 * 4096);
    for (int i = 0; i < 4096; ++i) file.put(static_cast<char>(0xA5));
  }
  const Result<std::unique_ptr<JobStore>> opened = JobStore::Open(dir.path());
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kInternal);
  EXPECT_NE(opened.error().message.find(dir.File() + ": "), std::string::npos)
      << opened.error().message;
  EXPECT_NE(opened.error().message.find("damaged"), std::string::npos) << opened.error().message;
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
}  // namespace bplace
