// The checks of daemon/state/private_sqlite_file.h (the directory, the file,
// its mode, WAL, the integrity check), through JobStore::Open as the daemon
// meets them.

#include "daemon/state/job_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ios>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/daemon/state/job_store_fixture.h"

namespace bplace::testing {
namespace {

namespace fs = std::filesystem;

mode_t ModeOf(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

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

}  // namespace
}  // namespace bplace::testing
