#include "tests/lsfsim/job_usage.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace bplace::lsfsim {
namespace {

// The process group of /proc/<pid>/stat (field 5); -1 when unreadable.
int ProcessGroupOf(const std::filesystem::path& proc_dir) {
  std::ifstream in(proc_dir / "stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');  // the command name may hold blanks and ')'
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 1));
  std::string state;
  int ppid = 0;
  int group = -1;
  fields >> state >> ppid >> group;
  return state == "Z" ? -1 : group;
}

long long PeakResidentKb(const std::filesystem::path& proc_dir) {
  std::ifstream in(proc_dir / "status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

}  // namespace

std::optional<long long> RunningJobMemoryKb(int pgid) {
  if (pgid <= 0) return std::nullopt;
  std::optional<long long> total;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (ProcessGroupOf(entry.path()) != pgid) continue;
    total = total.value_or(0) + PeakResidentKb(entry.path());
  }
  return total;
}

}  // namespace bplace::lsfsim
