#include "daemon/placement/event_log_tail.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

namespace bplace {
namespace {

namespace fs = std::filesystem;

// The tail on real files in a temporary log directory: mbatchd's appends
// and switches are done here with the same file operations (append, rename,
// a new file with its "#<offset>" first line).
class EventLogTailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("event_log_tail_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    log_ = dir_ / "lsb.events";
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Record(std::int64_t job_id) {
    return "\"JOB_CLEAN\" \"10.1\" 1700000000 " + std::to_string(job_id) + " 0\n";
  }
  void Append(const std::string& text, const fs::path& path) {
    std::ofstream(path, std::ios::app) << text;
  }
  void Append(const std::string& text) { Append(text, log_); }
  // A log switch: the live file becomes lsb.events.1 (older ones shift),
  // and the new one holds `copied` records before its history.
  void Switch(const std::vector<std::int64_t>& copied) {
    for (int k = 8; k >= 1; --k) {
      const fs::path from = dir_ / ("lsb.events." + std::to_string(k));
      if (fs::exists(from)) fs::rename(from, dir_ / ("lsb.events." + std::to_string(k + 1)));
    }
    fs::rename(log_, dir_ / "lsb.events.1");
    std::string body;
    for (const auto id : copied) body += Record(id);
    // "#<offset>" padded to a fixed width, as its value must fit before it is known.
    const std::string header_template = "#          \n";
    const std::string offset = std::to_string(header_template.size() + body.size());
    std::string header =
        "#" + offset + std::string(header_template.size() - 2 - offset.size(), ' ') + "\n";
    std::ofstream(log_) << header << body;
  }

  static std::vector<std::int64_t> JobIds(const EventLogBatch& batch) {
    std::vector<std::int64_t> ids;
    for (const auto& event : batch.events) {
      ids.push_back(std::get<lsf::JobCleanRecord>(event.body).job_id);
    }
    return ids;
  }

  EventLogTailOptions Options() {
    EventLogTailOptions options;
    options.file = log_;
    return options;
  }

  fs::path dir_;
  fs::path log_;
};

using IdList = std::vector<std::int64_t>;

TEST_F(EventLogTailTest, ReadsTheExistingRecordsThenOnlyNewOnes) {
  Append("#0\n" + Record(1) + Record(2));
  EventLogTail tail(Options());
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{1, 2}));
  EXPECT_EQ(JobIds(tail.Poll()), IdList{});
  Append(Record(3));
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{3}));
}

TEST_F(EventLogTailTest, StartsAtTheEndWhenToldNotToReadExistingRecords) {
  Append(Record(1));
  auto options = Options();
  options.read_existing = false;
  EventLogTail tail(options);
  EXPECT_EQ(JobIds(tail.Poll()), IdList{});
  Append(Record(2));
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{2}));
}

TEST_F(EventLogTailTest, LeavesALineStillBeingWrittenForTheNextPoll) {
  EventLogTail tail(Options());
  const std::string record = Record(7);
  Append(Record(6) + record.substr(0, 20));
  const auto first = tail.Poll();
  EXPECT_EQ(JobIds(first), (IdList{6}));
  EXPECT_TRUE(first.errors.empty());
  Append(record.substr(20));
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{7}));
}

TEST_F(EventLogTailTest, ReadsTheRestOfTheOldLogAfterASwitchAndSkipsTheCopies) {
  Append("#0\n" + Record(1) + Record(2));
  EventLogTail tail(Options());
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{1, 2}));
  Append(Record(3));  // written before the switch, never read
  Switch({2});        // job 2 unfinished: its record is copied into the new log
  Append(Record(4));
  const auto batch = tail.Poll();
  EXPECT_TRUE(batch.rotated);
  EXPECT_FALSE(batch.lost);
  EXPECT_EQ(JobIds(batch), (IdList{3, 4}));
  Append(Record(5));
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{5}));
}

TEST_F(EventLogTailTest, ReadsEveryLogSwitchedBetweenTwoPolls) {
  Append(Record(1));
  EventLogTail tail(Options());
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{1}));
  Append(Record(2));
  Switch({1});
  Append(Record(3));
  Switch({});
  Append(Record(4));
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{2, 3, 4}));
}

TEST_F(EventLogTailTest, ReportsACorruptRecordAndGoesOn) {
  Append(Record(1) + "\"JOB_START\" \"10.1\" 1700000000 12 4 0 0 1.0 3 \"n1\"\n" + Record(2));
  EventLogTail tail(Options());
  const auto batch = tail.Poll();
  EXPECT_EQ(JobIds(batch), (IdList{1, 2}));
  ASSERT_EQ(batch.errors.size(), 1u);
  EXPECT_EQ(batch.errors[0], "lsb.events at byte " + std::to_string(Record(1).size()) +
                                 ": JOB_START: execHosts: missing (record truncated?)");
}

TEST_F(EventLogTailTest, ATruncatedLastRecordOfASwitchedLogIsAnError) {
  Append(Record(1));
  EventLogTail tail(Options());
  tail.Poll();
  Append("\"JOB_CLEAN\" \"10.1\" 1700000000");  // mbatchd died mid-record, then the switch
  Switch({});
  Append(Record(2));
  const auto batch = tail.Poll();
  EXPECT_EQ(JobIds(batch), (IdList{2}));
  ASSERT_EQ(batch.errors.size(), 1u);
  EXPECT_NE(batch.errors[0].find("lsb.events.1 at byte"), std::string::npos) << batch.errors[0];
}

TEST_F(EventLogTailTest, SaysSoWhenTheFollowedLogIsGone) {
  Append(Record(1));
  EventLogTail tail(Options());
  tail.Poll();
  Append(Record(2));
  Switch({});
  fs::remove(dir_ / "lsb.events.1");
  Append(Record(3));
  const auto batch = tail.Poll();
  EXPECT_TRUE(batch.lost);
  EXPECT_EQ(JobIds(batch), (IdList{3}));
}

TEST_F(EventLogTailTest, WorksOffABacklogOverSeveralPollsInOrder) {
  std::string text;
  for (int i = 1; i <= 100; ++i) text += Record(i);
  Append(text);
  auto options = Options();
  options.max_bytes_per_poll = 10 * Record(1).size();
  EventLogTail tail(options);
  IdList all;
  for (int poll = 0; poll < 10; ++poll) {
    const auto ids = JobIds(tail.Poll());
    EXPECT_LE(ids.size(), 10u + 100u);  // a poll may read up to one whole chunk
    all.insert(all.end(), ids.begin(), ids.end());
  }
  ASSERT_EQ(all.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(all[i], i + 1);
}

TEST_F(EventLogTailTest, WaitsForAMissingLogAndReadsItOnceItAppears) {
  EventLogTail tail(Options());
  const auto missing = tail.Poll();
  ASSERT_TRUE(missing.unreadable.has_value());
  EXPECT_NE(missing.unreadable->find("cannot stat"), std::string::npos);
  Append(Record(1));
  EXPECT_EQ(JobIds(tail.Poll()), (IdList{1}));
}

TEST_F(EventLogTailTest, ReadsALogRewrittenShorterFromItsStart) {
  Append(Record(1) + Record(2));
  EventLogTail tail(Options());
  tail.Poll();
  fs::resize_file(log_, 0);
  Append(Record(9));
  const auto batch = tail.Poll();
  EXPECT_EQ(JobIds(batch), (IdList{9}));
  EXPECT_EQ(batch.errors.size(), 1u);
}

}  // namespace
}  // namespace bplace
