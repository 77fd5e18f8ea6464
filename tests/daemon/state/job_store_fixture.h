#pragma once

// What the tests of the job store share (job_store_test.cc,
// job_store_jobs_test.cc, private_sqlite_file_test.cc): fixed instants,
// intents, outcomes and jobs to store, a private temporary directory, and
// JobStoreTest, a store open on one.

#include <stdlib.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "daemon/state/job_store.h"
#include "daemon/state/sqlite_db.h"

namespace bplace::testing {

// Fixed instants: the store takes every time as an argument, so the tests
// never read a clock.
inline const SystemTime kT0 = SystemTime(std::chrono::seconds(1'700'000'000));
inline SystemTime At(int s) { return kT0 + std::chrono::seconds(s); }

inline std::string Hash(char digit) { return std::string(64, digit); }

inline SubmissionIntent Intent(std::string tag, std::optional<std::string> key = "key-1",
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

inline SubmissionOutcome Submitted(std::int64_t job_id) {
  return {SubmissionState::kSubmitted, job_id, 201,
          R"({"job_id":")" + std::to_string(job_id) + R"("})"};
}

inline TrackedJob Job(std::int64_t job_id, int submitted_s, std::string user = "alice",
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
    std::filesystem::remove_all(path_, ignored);
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

}  // namespace bplace::testing
