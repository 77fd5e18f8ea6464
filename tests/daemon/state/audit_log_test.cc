#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "daemon/state/audit_log.h"

namespace bplace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class AuditFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("bplace-audit-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    SetAuditSink(nullptr);
    fs::remove_all(dir_);
  }

  std::vector<json> Records(const fs::path& path) const {
    std::vector<json> records;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) records.push_back(json::parse(line));
    return records;
  }

  fs::path dir_;
};

TEST_F(AuditFileTest, DefaultFileIsInTheStateDir) {
  EXPECT_EQ(AuditFilePath({}, "/var/lib/bplace"), "/var/lib/bplace/audit.log");
  AuditOptions options;
  options.file = "/srv/audit.jsonl";
  EXPECT_EQ(AuditFilePath(options, "/var/lib/bplace"), "/srv/audit.jsonl");
}

TEST_F(AuditFileTest, EachRecordIsOneJsonLineWithItsTimeOwnerOnly) {
  ::umask(022);
  auto sink = OpenAuditFile({}, dir_.string());
  ASSERT_TRUE(sink) << sink.error().message;
  SetAuditSink(*sink);
  LogAudit({{"event", "submit"}, {"caller", "alice"}, {"reason", "bad \xff byte"}});
  LogAudit({{"event", "submit"}, {"job_id", "42"}});
  LogAudit(json::array({1, 2}));  // not an object: wrapped, still one line
  const std::vector<json> records = Records(dir_ / "audit.log");  // flushed per record
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0]["caller"], "alice");
  EXPECT_EQ(records[0]["reason"], "bad \xEF\xBF\xBD byte");  // repaired UTF-8
  EXPECT_EQ(records[1]["job_id"], "42");
  EXPECT_EQ(records[2]["record"], json::array({1, 2}));
  for (const json& record : records) {
    const std::string time = record["time"];
    // 2026-12-01T16:50:00.123456Z
    EXPECT_EQ(time.size(), 27u) << time;
    EXPECT_EQ(time.back(), 'Z') << time;
  }
  EXPECT_EQ(fs::status(dir_ / "audit.log").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(AuditFileTest, RotatesBySizeKeepingMaxFilesAllOwnerOnly) {
  ::umask(022);
  AuditOptions options;
  options.file = (dir_ / "a.log").string();
  options.max_file_bytes = 1000;
  options.max_files = 2;
  auto sink = OpenAuditFile(options, "/unused");
  ASSERT_TRUE(sink) << sink.error().message;
  SetAuditSink(*sink);
  for (int i = 0; i < 40; ++i) LogAudit({{"n", i}, {"pad", std::string(100, 'x')}});
  EXPECT_TRUE(fs::exists(dir_ / "a.log"));
  EXPECT_TRUE(fs::exists(dir_ / "a.1.log"));
  EXPECT_TRUE(fs::exists(dir_ / "a.2.log"));
  EXPECT_FALSE(fs::exists(dir_ / "a.3.log"));
  for (const char* name : {"a.log", "a.1.log", "a.2.log"}) {
    EXPECT_EQ(fs::status(dir_ / name).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write)
        << name;
  }
  // The newest record is the last line of the current file.
  EXPECT_EQ(Records(dir_ / "a.log").back()["n"], 39);
}

TEST_F(AuditFileTest, UnopenableFileIsUnavailableNamingIt) {
  std::ofstream(dir_ / "plain").put('x');
  AuditOptions options;
  options.file = (dir_ / "plain" / "audit.log").string();  // under a regular file
  auto sink = OpenAuditFile(options, "/unused");
  ASSERT_FALSE(sink);
  EXPECT_EQ(sink.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(sink.error().message.find("cannot open the audit file " + options.file),
            std::string::npos)
      << sink.error().message;
}

}  // namespace
}  // namespace bplace
