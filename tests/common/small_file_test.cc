// Reading a small file whole and replacing one atomically
// (common/small_file.h), on real files in a temporary directory.

#include "common/small_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class SmallFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "small_file_test.XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(SmallFileTest, ReadsAFileWhole) {
  std::ofstream(Path("f")) << "port = 1\n";
  EXPECT_EQ(ReadSmallFile(Path("f"), 64).value(), "port = 1\n");
}

TEST_F(SmallFileTest, RefusesWhatIsNotASmallRegularFile) {
  std::ofstream(Path("big")) << std::string(65, 'x');
  EXPECT_EQ(ReadSmallFile(Path("big"), 64).error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(ReadSmallFile(dir_.string(), 64).error().message, HasSubstr("not a regular file"));
  EXPECT_EQ(ReadSmallFile(Path("missing"), 64).error().code, ErrorCode::kNotFound);
  fs::create_symlink(Path("big"), Path("link"));
  SmallFileOptions no_links;
  no_links.follow_symlinks = false;
  EXPECT_THAT(ReadSmallFile(Path("link"), 64, no_links).error().message,
              HasSubstr("symbolic link"));
}

TEST_F(SmallFileTest, WriteFileAtomicallyReplacesTheFileAndLeavesNoTemporary) {
  const std::string path = Path("port");
  std::ofstream(path) << "an older, longer content\n";
  ASSERT_TRUE(WriteFileAtomically(path, "40123\n", 0600));
  EXPECT_EQ(ReadSmallFile(path, 64).value(), "40123\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u);  // 0600, less the umask
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(SmallFileTest, WriteFileAtomicallyNamesWhatFailed) {
  const auto written = WriteFileAtomically(Path("no-such-dir/port"), "1\n");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, ErrorCode::kUnavailable);
  EXPECT_THAT(written.error().message, StartsWith(Path("no-such-dir/port") + ".tmp."));
  EXPECT_THAT(written.error().message, HasSubstr(": open: No such file or directory"));

  // A directory in the way: the rename fails and the temporary is removed.
  fs::create_directory(Path("taken"));
  fs::create_directory(Path("taken/inside"));
  const auto over_dir = WriteFileAtomically(Path("taken"), "1\n");
  ASSERT_FALSE(over_dir);
  EXPECT_THAT(over_dir.error().message, HasSubstr(": rename: "));
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);  // only "taken"
}

}  // namespace
}  // namespace bplace
