#include "frontdoor/real_lsf.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace bplace::frontdoor {
namespace {

namespace fs = std::filesystem;

class RealCommandPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/bplace-realcmd-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ / "lsf");
    fs::create_directories(dir_ / "door");
    Executable(dir_ / "lsf" / "bsub");
    Executable(dir_ / "door" / "bplace-lsf");
    fs::create_symlink("bplace-lsf", dir_ / "door" / "bsub");
  }
  void TearDown() override { fs::remove_all(dir_); }
  static void Executable(const fs::path& path) {
    std::ofstream(path) << "#!/bin/sh\n";
    ::chmod(path.c_str(), 0755);
  }
  fs::path dir_;
};

TEST_F(RealCommandPathTest, TakesBplaceLsfBindirFirstThenLsfBindir) {
  const std::string self = (dir_ / "door" / "bplace-lsf").string();
  auto path = RealCommandPath("bsub", {{"LSF_BINDIR", (dir_ / "lsf").string()}}, self);
  ASSERT_TRUE(path) << path.error().message;
  EXPECT_EQ(*path, (dir_ / "lsf" / "bsub").string());
  path = RealCommandPath(
      "bsub", {{"BPLACE_LSF_BINDIR", (dir_ / "lsf").string()}, {"LSF_BINDIR", "/nope"}}, self);
  ASSERT_TRUE(path);
  EXPECT_EQ(*path, (dir_ / "lsf" / "bsub").string());
}

TEST_F(RealCommandPathTest, NeverLooksInPath) {
  const auto path = RealCommandPath("bsub", {{"PATH", (dir_ / "lsf").string()}});
  ASSERT_FALSE(path);
  EXPECT_NE(path.error().message.find("LSF_BINDIR is not set"), std::string::npos);
}

TEST_F(RealCommandPathTest, RefusesToRunItself) {
  // LSF_BINDIR pointing at the front door's own folder would loop for ever.
  const std::string self = (dir_ / "door" / "bplace-lsf").string();
  const auto path = RealCommandPath("bsub", {{"LSF_BINDIR", (dir_ / "door").string()}}, self);
  ASSERT_FALSE(path);
  EXPECT_EQ(path.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(path.error().message.find("front door"), std::string::npos);
}

TEST_F(RealCommandPathTest, AMissingCommandIsNotFound) {
  const auto path = RealCommandPath("bkill", {{"LSF_BINDIR", (dir_ / "lsf").string()}});
  ASSERT_FALSE(path);
  EXPECT_EQ(path.error().code, ErrorCode::kNotFound);
}

TEST(RunRealCommandWithInputTest, FeedsStdinAndReturnsTheExitStatus) {
  EXPECT_EQ(
      RunRealCommandWithInput("/bin/sh", "sh", {"-c", "read x; test \"$x\" = hello"}, "hello\n"),
      0);
  EXPECT_EQ(RunRealCommandWithInput("/bin/sh", "sh", {"-c", "exit 7"}, ""), 7);
  EXPECT_EQ(RunRealCommandWithInput("/nonexistent", "x", {}, ""), 255);
}

TEST(RunRealCommandReadingStdoutTest, ReadsStdoutAndReturnsTheExitStatus) {
  std::string out;
  EXPECT_EQ(RunRealCommandReadingStdout("/bin/sh", "sh", {"-c", "echo one; echo two; exit 3"}, out),
            3);
  EXPECT_EQ(out, "one\ntwo\n");
}

// volclava 2.2's `bjobs -json -o "jobid stat start_time"` when no job
// matches (cJSON's layout, tests/lsfsim/openlava.cc), exit 255.
TEST(IsEmptyJsonAnswerTest, OnlyAJsonAnswerWithoutRecordsIsEmpty) {
  EXPECT_TRUE(
      IsEmptyJsonAnswer("{\n\t\"COMMAND\":\t\"bjobs\",\n\t\"JOBS\":\t0,\n"
                        "\t\"RECORDS\":\t[]\n}\n"));
  EXPECT_FALSE(IsEmptyJsonAnswer(R"({"COMMAND":"bjobs","JOBS":1,"RECORDS":[{"JOBID":"1"}]})"));
  EXPECT_FALSE(IsEmptyJsonAnswer(""));
  EXPECT_FALSE(IsEmptyJsonAnswer("Failed in an LSF library call: LIM is down; try later\n"));
  EXPECT_FALSE(IsEmptyJsonAnswer(R"({"COMMAND":"bjobs"})"));
}

}  // namespace
}  // namespace bplace::frontdoor
