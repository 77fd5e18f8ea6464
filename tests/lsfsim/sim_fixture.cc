#include "tests/lsfsim/sim_fixture.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace bplace::lsfsim::testing {

void SimFixture::SetUp() {
  std::string pattern = (std::filesystem::temp_directory_path() / "lsfsim_test.XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  dir_ = pattern + "/envdir";
  struct passwd* pw = ::getpwuid(::getuid());
  user_ = pw != nullptr ? pw->pw_name : std::to_string(::getuid());
}

void SimFixture::TearDown() {
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(dir_).parent_path(), ec);
}

void SimFixture::Init(const std::string& toml) {
  std::string path = std::filesystem::path(dir_).parent_path() / "cluster.toml";
  std::ofstream(path) << toml;
  InitFromFile(path);
}

void SimFixture::InitFromFile(const std::string& path) {
  ProcessResult r = Sim({"init", "--state", dir_, "--cluster", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

ProcessResult SimFixture::Lsf(const std::string& command, const std::vector<std::string>& args,
                              const std::string& stdin_text, std::chrono::milliseconds timeout) {
  return RunProcess(
      BinDir() + "/" + command, args,
      {{"LSF_ENVDIR", dir_}, {"LSFSIM_NOW", kNow}, {"LSFSIM_FROM_HOST", "submit01"}, {"TZ", "UTC"}},
      stdin_text, timeout);
}

ProcessResult SimFixture::Sim(const std::vector<std::string>& args,
                              std::chrono::milliseconds timeout) {
  return RunProcess(BinDir() + "/lsfsim", args,
                    {{"LSF_ENVDIR", dir_}, {"LSFSIM_NOW", kNow}, {"TZ", "UTC"}}, "", timeout);
}

}  // namespace bplace::lsfsim::testing
