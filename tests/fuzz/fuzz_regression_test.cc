// Replays the fuzz corpus that is kept in git through the fuzz target bodies,
// in the normal build: every file under regressions/<target>/ (inputs that
// once crashed a target or broke an invariant), every file under
// seeds/<target>/, and the captures seed_captures.txt names. Then one small
// test per bug the fuzzers found, with the smallest input that shows it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "lsf_adapter/bsub_command.h"
#include "tests/fuzz/fuzz_targets.h"

namespace bplace::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kFuzzDir = BPLACE_FUZZ_DIR;
const fs::path kTestdataDir = BPLACE_TESTDATA_DIR;

std::string ReadFile(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file) << "cannot read " << path;
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// The failures reported by the target being replayed.
std::vector<std::string>* g_failures = nullptr;

void RecordFailure(std::string_view target, std::string_view what) {
  if (g_failures != nullptr) g_failures->push_back(std::string(target) + ": " + std::string(what));
}

// Runs one input through `target`, returning the invariants it broke.
std::vector<std::string> Replay(const FuzzTarget& target, std::string_view input) {
  std::vector<std::string> failures;
  g_failures = &failures;
  SetFailureHandler(RecordFailure);
  target.function(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  SetFailureHandler(nullptr);
  g_failures = nullptr;
  return failures;
}

// Every regular file under `dir`, sorted; none when it does not exist.
std::vector<fs::path> FilesUnder(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename() != ".gitkeep") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> CaptureSeeds(std::string_view target) {
  std::ifstream list(kFuzzDir / "seed_captures.txt");
  EXPECT_TRUE(list) << "cannot read seed_captures.txt";
  std::vector<fs::path> files;
  std::string line;
  while (std::getline(list, line)) {
    std::istringstream fields(line);
    std::string name, path;
    if (line.empty() || line.front() == '#' || !(fields >> name >> path)) continue;
    if (name == target) files.push_back(kTestdataDir / path);
  }
  return files;
}

class FuzzReplayTest : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzReplayTest, KeepsInvariantsOnEveryKeptInput) {
  const FuzzTarget& target = GetParam();
  std::vector<fs::path> inputs = FilesUnder(kFuzzDir / "regressions" / target.name);
  for (const fs::path& seed : FilesUnder(kFuzzDir / "seeds" / target.name)) inputs.push_back(seed);
  for (const fs::path& seed : CaptureSeeds(target.name)) inputs.push_back(seed);
  EXPECT_FALSE(inputs.empty()) << "no seed for " << target.name;
  for (const fs::path& input : inputs) {
    for (const std::string& failure : Replay(target, ReadFile(input))) {
      ADD_FAILURE() << input << ": " << failure;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryTarget, FuzzReplayTest, ::testing::ValuesIn(kFuzzTargets),
                         [](const ::testing::TestParamInfo<FuzzTarget>& info) {
                           return std::string(info.param.name);
                         });

TEST(FuzzReplayTest, EveryRegressionFolderNamesATarget) {
  for (const fs::path& dir : FilesUnder(kFuzzDir / "regressions")) ADD_FAILURE() << dir;
  if (!fs::is_directory(kFuzzDir / "regressions")) return;
  for (const auto& entry : fs::directory_iterator(kFuzzDir / "regressions")) {
    const std::string name = entry.path().filename().string();
    const bool known = std::any_of(std::begin(kFuzzTargets), std::end(kFuzzTargets),
                                   [&](const FuzzTarget& t) { return name == t.name; });
    EXPECT_TRUE(known) << entry.path() << " is not the name of a fuzz target";
  }
}

// ------------------------------------------------- bugs the fuzzers found

// fuzz_bsub_argv, regressions/bsub_argv/reserved_word_in_command_position:
// JoinShellQuoted left a reserved word bare in command position, so argv
// ["if", "true"] became "if true", a shell syntax error, and ["time", "x"]
// ran bash's keyword instead of the program.
TEST(FuzzFoundTest, JoinShellQuotedQuotesReservedWordInCommandPosition) {
  EXPECT_EQ(lsf::JoinShellQuoted({"if", "true"}), "'if' true");
  EXPECT_EQ(lsf::JoinShellQuoted({"time", "./a.out"}), "'time' ./a.out");
  EXPECT_EQ(lsf::JoinShellQuoted({"echo", "if"}), "echo if");
}

}  // namespace
}  // namespace bplace::fuzz
