#include "lsf_adapter/resolve_executable.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>

namespace bplace::lsf {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

// Done here rather than by posix_spawnp or execvp, for two reasons: the PATH
// searched is the child's (the daemon's own PATH may lack LSF_BINDIR; see
// docs/lsf-formats.md "Rules for every parser", 7), and "not found" becomes a
// message naming it. A daemon's working directory is no place to find LSF
// commands, hence no empty entries.
Result<std::string> ResolveExecutable(const std::string& name,
                                      const std::vector<std::string>& env) {
  if (name.find('/') != std::string::npos) return name;
  auto path_entry = std::find_if(env.begin(), env.end(),
                                 [](const std::string& e) { return e.rfind("PATH=", 0) == 0; });
  if (path_entry == env.end()) {
    return Fail(ErrorCode::kCommandFailed,
                name + ": not found: the command's environment has no PATH");
  }
  std::string_view dirs = std::string_view(*path_entry).substr(5);
  while (true) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty() && !name.empty()) {
      std::string candidate = std::string(dir) + "/" + name;
      if (IsExecutableFile(candidate)) return candidate;
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return Fail(ErrorCode::kCommandFailed, name + ": not found in " + *path_entry);
}

}  // namespace bplace::lsf
