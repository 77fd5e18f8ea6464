#include "lsf_adapter/lsf_invoker.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <utility>

namespace bplace::lsf {
namespace {

bool KeepVariable(std::string_view entry) {
  const std::string_view name = entry.substr(0, entry.find('='));
  if (name == "LSB_BQUEUES_FORMAT" || name == "LSB_BJOBS_FORMAT" || name == "LSB_BHOSTS_FORMAT") {
    return false;
  }
  if (name == "PATH" || name == "LSF_ENVDIR") return false;  // set explicitly below
  return name == "HOME" || name == "USER" || name == "LOGNAME" || name == "LANG" || name == "TZ" ||
         name.starts_with("LC_") || name.starts_with("LSF_") || name.starts_with("LSB_") ||
         name == "LD_LIBRARY_PATH";
}

std::string Lookup(const std::vector<std::string>& env, std::string_view name) {
  for (const std::string& entry : env) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return "";
}

// LSF_UNIT_FOR_LIMITS of the lsf.conf in `env_dir` (LSF's /etc/lsf.conf
// when empty); LSF's defaults when there is no such file.
Result<LimitUnits> ReadLimitUnits(const std::string& env_dir) {
  std::ifstream file((env_dir.empty() ? std::string("/etc") : env_dir) + "/lsf.conf");
  if (!file) return LimitUnits{};
  std::ostringstream text;
  text << file.rdbuf();
  return LimitUnitsFromLsfConf(text.str());
}

}  // namespace

LsfInvoker::LsfInvoker(std::string bin_dir, std::string env_dir, std::chrono::milliseconds timeout,
                       const std::vector<std::string>& parent_env)
    : bin_dir_(std::move(bin_dir)), timeout_(timeout) {
  if (bin_dir_.empty()) bin_dir_ = Lookup(parent_env, "LSF_BINDIR");
  if (env_dir.empty()) env_dir = Lookup(parent_env, "LSF_ENVDIR");
  for (const std::string& entry : parent_env) {
    if (KeepVariable(entry)) env_.push_back(entry);
  }
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  if (!bin_dir_.empty()) path = bin_dir_ + ":" + path;
  env_.push_back("PATH=" + path);
  path_ = path;
  env_dir_ = env_dir;
  if (!env_dir.empty()) env_.push_back("LSF_ENVDIR=" + env_dir);
  limit_units_ = ReadLimitUnits(env_dir_);
}

CommandSpec LsfInvoker::SpecAs(const identity::UserIdentity& user, std::string_view command,
                               std::vector<std::string> args,
                               std::optional<std::string> stdin_data) const {
  CommandSpec spec = Spec(command, std::move(args), std::move(stdin_data));
  // Nothing of the daemon's environment: the child is the caller's, and a
  // variable of root's could change what LSF does for them.
  spec.env = {"HOME=" + user.home, "USER=" + user.name, "LOGNAME=" + user.name, "PATH=" + path_};
  if (!env_dir_.empty()) spec.env.push_back("LSF_ENVDIR=" + env_dir_);
  ApplyCommandRules(command, spec.env);
  spec.run_as = RunAsFor(user);
  return spec;
}

std::string LsfInvoker::Path(std::string_view command) const {
  if (bin_dir_.empty()) return std::string(command);
  return bin_dir_ + "/" + std::string(command);
}

void ApplyCommandRules(std::string_view command, std::vector<std::string>& env) {
  if (command != "bsub") return;
  // bsub retries a job refused by a pending-job threshold every
  // SUB_TRY_INTERVAL (60 s) until LSB_NTRIES tries, forever when unset: it
  // must answer now, so that the refusal is reported instead of ending in a
  // timeout whose outcome is unknown.
  std::erase_if(env, [](const std::string& entry) { return entry.starts_with("LSB_NTRIES="); });
  env.push_back("LSB_NTRIES=1");
}

CommandSpec LsfInvoker::Spec(std::string_view command, std::vector<std::string> args,
                             std::optional<std::string> stdin_data) const {
  CommandSpec spec;
  spec.argv.reserve(args.size() + 1);
  spec.argv.push_back(Path(command));
  for (std::string& arg : args) spec.argv.push_back(std::move(arg));
  spec.env = env_;
  ApplyCommandRules(command, spec.env);
  spec.stdin_data = std::move(stdin_data);
  spec.timeout = timeout_;
  return spec;
}

RunAs RunAsFor(const identity::UserIdentity& user) {
  struct stat st {};
  const bool home_is_dir =
      !user.home.empty() && ::stat(user.home.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  return RunAs{.user = user.name,
               .uid = user.uid,
               .gid = user.gid,
               .groups = user.groups,
               .work_dir = home_is_dir ? user.home : "/",
               .umask = std::nullopt};
}

RunAs RunAsSelf(std::string work_dir, std::optional<mode_t> umask) {
  RunAs self{.user = "",
             .uid = ::getuid(),
             .gid = ::getgid(),
             .groups = {},
             .work_dir = std::move(work_dir),
             .umask = umask};
  const int count = ::getgroups(0, nullptr);
  if (count > 0) {
    self.groups.resize(static_cast<std::size_t>(count));
    const int got = ::getgroups(count, self.groups.data());
    self.groups.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  }
  return self;
}

std::vector<std::string> LsfInvoker::CallerEnvironment(std::string_view command,
                                                       std::vector<std::string> caller_env) const {
  if (!env_dir_.empty()) {
    std::erase_if(caller_env,
                  [](const std::string& entry) { return entry.starts_with("LSF_ENVDIR="); });
    caller_env.push_back("LSF_ENVDIR=" + env_dir_);
  }
  ApplyCommandRules(command, caller_env);
  return caller_env;
}

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    env.emplace_back(*entry);
  }
  return env;
}

}  // namespace bplace::lsf
