// The loader (config/config_loader.cc): defaults for absent keys, TOML
// syntax and structure, checks that relate two keys, every problem in file
// order, and reading the file (LoadConfigFile).

#include "config/config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/config/parse_helpers.h"

namespace bplace::config {
namespace {

using std::chrono::seconds;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ParseConfigTest, EmptyTextGivesDefaults) {
  const Config config = MustParse("");
  ExpectSameConfig(config, Config{});
  EXPECT_EQ(config.server.listen, std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(config.refresh.load_interval, seconds(15));
  EXPECT_EQ(config.refresh.load_after_submit, seconds(2));
  EXPECT_EQ(config.log.level, "info");
}

TEST(ParseConfigTest, EmptyTablesAndCommentsGiveDefaults) {
  ExpectSameConfig(MustParse("# nothing set\n[server]\n[lsf]\n[submit]\n[placement]\n[log]\n"),
                   Config{});
}

TEST(ParseConfigTest, AcceptsDottedKeysAndInlineTables) {
  const Config config = MustParse("lsf.load_refresh_s = 30\nsubmit = { max_attempts = 7 }\n");
  EXPECT_EQ(config.refresh.load_interval, seconds(30));
  EXPECT_EQ(config.submit.max_attempts, 7);
}

// --- Errors --------------------------------------------------------------------

TEST(ParseConfigErrorTest, SyntaxErrorNamesFileLineAndColumn) {
  const std::string message = ErrorOf("[server]\nthreads = = 3\n");
  EXPECT_THAT(message, AllOf(StartsWith("cfg.toml:2:"), HasSubstr("syntax error")));
}

TEST(ParseConfigErrorTest, DuplicateKeyIsASyntaxError) {
  EXPECT_THAT(ErrorOf("[server]\nthreads = 3\nthreads = 4\n"),
              AllOf(StartsWith("cfg.toml:3:"), HasSubstr("syntax error")));
}

TEST(ParseConfigErrorTest, ValueWhereATableBelongs) {
  EXPECT_EQ(ErrorOf("log = \"debug\"\n"), "cfg.toml:1: log: expected table, got string");
  EXPECT_EQ(ErrorOf("[[server]]\nthreads = 2\n"), "cfg.toml:1: server: expected table, got array");
}

TEST(ParseConfigErrorTest, TopologyRefreshShorterThanLoadRefresh) {
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_s = 60\ntopology_refresh_s = 30\n"),
            "cfg.toml:3: lsf.topology_refresh_s: must be >= lsf.load_refresh_s (60 s), got 30");
  // Against the defaults: load_refresh_s 15, topology_refresh_s 300.
  EXPECT_EQ(ErrorOf("[lsf]\ntopology_refresh_s = 10\n"),
            "cfg.toml:2: lsf.topology_refresh_s: must be >= lsf.load_refresh_s (15 s), got 10");
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_s = 600\n"),
            "cfg.toml:2: lsf.load_refresh_s: must be <= lsf.topology_refresh_s (300 s, the "
            "default), got 600");
}

TEST(ParseConfigErrorTest, NoOrderingErrorWhenARefreshIsAlreadyWrong) {
  EXPECT_EQ(ErrorOf("[lsf]\nload_refresh_s = 600\ntopology_refresh_s = \"x\"\n"),
            "cfg.toml:3: lsf.topology_refresh_s: expected integer, got string");
}

TEST(ParseConfigErrorTest, ReportsEveryProblemInFileOrder) {
  // [server] sorts after [lsf]; the file has it first, and so must the message.
  EXPECT_EQ(ErrorOf("[server]\nthreads = 0\n\n[lsf]\nbin_dir = 1\nnope = 2\n"),
            "cfg.toml:2: server.threads: must be between 1 and 64, got 0\n"
            "cfg.toml:5: lsf.bin_dir: expected string, got integer\n"
            "cfg.toml:6: lsf.nope: unknown key");
}

// --- LoadConfigFile ------------------------------------------------------------

class LoadConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "config_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& path : created_) {
      remove(path.c_str());
    }
    rmdir(dir_.c_str());
  }
  std::string Path(const std::string& name) {
    created_.push_back(dir_ + "/" + name);
    return created_.back();
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = Path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::string dir_;
  std::vector<std::string> created_;
};

TEST_F(LoadConfigFileTest, ReadsAFile) {
  auto config = LoadConfigFile(Write("ok.toml", "[server]\nthreads = 4\n"));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->server.threads, 4);
}

TEST_F(LoadConfigFileTest, ErrorsNameThePath) {
  const std::string path = Write("bad.toml", "[server]\nthreads = 0\n");
  auto config = LoadConfigFile(path);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(config.error().message, StartsWith(path + ":2: server.threads: "));
}

TEST_F(LoadConfigFileTest, MissingFileIsNotFound) {
  const std::string path = dir_ + "/absent.toml";
  auto config = LoadConfigFile(path);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(config.error().message, path + ": open: No such file or directory");
}

TEST_F(LoadConfigFileTest, DirectoryIsRefused) {
  auto config = LoadConfigFile(dir_);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(config.error().message, dir_ + ": not a regular file (directory)");
}

TEST_F(LoadConfigFileTest, FifoIsRefusedWithoutBlocking) {
  const std::string path = Path("fifo.toml");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  auto config = LoadConfigFile(path);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().message, path + ": not a regular file (fifo)");
}

TEST_F(LoadConfigFileTest, FileOverOneMebibyteIsRefused) {
  const std::string path = Write("big.toml", std::string(1024 * 1024 + 1, '#'));
  auto config = LoadConfigFile(path);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(config.error().message, AllOf(StartsWith(path + ": "), HasSubstr("larger than")));
}

TEST_F(LoadConfigFileTest, FileOfExactlyOneMebibyteIsRead) {
  std::string text = "[log]\nlevel = \"warn\"\n";
  text.resize(1024 * 1024, '\n');
  auto config = LoadConfigFile(Write("full.toml", text));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->log.level, "warn");
}

}  // namespace
}  // namespace bplace::config
