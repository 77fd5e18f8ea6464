#include "tests/lsfsim/sim_fixture.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace bplace::lsfsim::testing {

void SimFixture::SetUp() {
  std::string pattern = (std::filesystem::temp_directory_path() / "lsfsim_test.XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  // mkdtemp makes it 0700; tests that submit as other users (LsfAs) need to
  // reach the state directory inside.
  ASSERT_EQ(::chmod(pattern.c_str(), 0755), 0);
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
  return RunProcess(BinDir() + "/" + command, args, Env(true), stdin_text, timeout);
}

ProcessResult SimFixture::LsfAs(const std::string& user, const std::string& command,
                                const std::vector<std::string>& args, const std::string& stdin_text,
                                std::chrono::milliseconds timeout) {
  // getpwnam_r: tests call this from several threads at once, and
  // getpwnam's shared buffer once gave alice's bsub bob's uid.
  struct passwd pwd {};
  struct passwd* pw = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwnam_r(user.c_str(), &pwd, buffer.data(), buffer.size(), &pw) != 0 || pw == nullptr) {
    ProcessResult missing;
    missing.err = user + ": no such user\n";
    return missing;
  }
  std::vector<std::string> setpriv_args = {"--reuid=" + std::to_string(pw->pw_uid),
                                           "--regid=" + std::to_string(pw->pw_gid), "--init-groups",
                                           BinDir() + "/" + command};
  setpriv_args.insert(setpriv_args.end(), args.begin(), args.end());
  return RunProcess("/usr/bin/setpriv", setpriv_args, Env(true), stdin_text, timeout);
}

bool SimFixture::CanRunAs(const std::string& user) {
  return ::geteuid() == 0 && ::access("/usr/bin/setpriv", X_OK) == 0 &&
         ::getpwnam(user.c_str()) != nullptr;
}

ProcessResult SimFixture::Sim(const std::vector<std::string>& args,
                              std::chrono::milliseconds timeout) {
  return RunProcess(BinDir() + "/lsfsim", args, Env(false), "", timeout);
}

std::map<std::string, std::optional<std::string>> SimFixture::Env(bool lsf_command) const {
  std::map<std::string, std::optional<std::string>> env = env_;
  env["LSF_ENVDIR"] = dir_;
  env["LSFSIM_NOW"] = now_;
  env["TZ"] = "UTC";
  if (lsf_command) env["LSFSIM_FROM_HOST"] = "submit01";
  return env;
}

}  // namespace bplace::lsfsim::testing
