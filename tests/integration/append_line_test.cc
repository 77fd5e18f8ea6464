#include "tests/integration/append_line.h"

#include <stdlib.h>

#include <atomic>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace bplace::testing {
namespace {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/bplace-append-XXXXXX";
    if (mkdtemp(pattern) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The 20-concurrent-submissions integration test records 20 answers at once;
// a record longer than a stream buffer (a job list, the OpenAPI document) was
// written in several pieces, and another thread's record landed between them.
TEST(AppendLine, LinesFromManyThreadsAtOnceStayWhole) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const auto file = dir.path() / "exchanges.jsonl";
  constexpr int kThreads = 8;
  constexpr int kLinesPerThread = 100;
  // Longer than a stream's buffer (BUFSIZ, 8 KiB), as a job list can be.
  const std::string padding(64 * 1024, 'x');
  std::atomic<int> waiting{kThreads};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // All start together, to write at the same time as often as can be.
      waiting.fetch_sub(1);
      while (waiting.load() > 0) std::this_thread::yield();
      for (int i = 0; i < kLinesPerThread; ++i) {
        const nlohmann::json record = {{"thread", t}, {"line", i}, {"body", padding}};
        EXPECT_TRUE(AppendLine(file, record.dump()));
      }
    });
  }
  for (auto& thread : threads) thread.join();

  std::ifstream in(file);
  std::set<std::pair<int, int>> seen;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    const auto record = nlohmann::json::parse(text, nullptr, false);
    ASSERT_FALSE(record.is_discarded()) << "line " << number << " is not JSON";
    EXPECT_EQ(record["body"], padding) << "line " << number;
    seen.insert({record["thread"].get<int>(), record["line"].get<int>()});
  }
  EXPECT_EQ(number, kThreads * kLinesPerThread);
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kLinesPerThread));
}

TEST(AppendLine, FailsWhenTheDirectoryIsMissing) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  EXPECT_FALSE(AppendLine(dir.path() / "missing" / "x.jsonl", "{}"));
}

TEST(AppendLine, AppendsToWhatIsThere) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const auto file = dir.path() / "x.jsonl";
  std::ofstream(file) << "first\n";
  ASSERT_TRUE(AppendLine(file, "second"));
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "first\nsecond\n");
}

}  // namespace
}  // namespace bplace::testing
