// Who bplaced runs as and the privileges of its [auth] mode
// (bplaced/privileges.h).
#include "bplaced/privileges.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace bplace {

Result<std::string> CurrentUserName() {
  const uid_t uid = geteuid();
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  const int rc = getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found);
  if (rc != 0 || found == nullptr) {
    return Fail(ErrorCode::kNotFound,
                "no user name for uid " + std::to_string(uid) + " in the passwd database");
  }
  return std::string(found->pw_name);
}

Result<void> CheckModePrivileges(api::AuthMode mode) {
  if (mode == api::AuthMode::kServiceAccount) {
    if (geteuid() == 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  "refusing to run as root in service-account mode ([auth] mode); run bplaced as "
                  "the service user, or set mode = \"multi-user\" to submit as each caller");
    }
    return {};
  }
  // Root: setresuid from a non-zero uid would keep capabilities in the child.
  if (geteuid() != 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "multi-user mode ([auth] mode) runs as root (with CAP_SETUID, CAP_SETGID and "
                "CAP_KILL only, see deploy/bplaced-multiuser.service); bplaced runs as uid " +
                    std::to_string(geteuid()));
  }
  // CapEff in /proc/self/status: bit 5 is CAP_KILL, 6 CAP_SETGID, 7 CAP_SETUID.
  std::ifstream status("/proc/self/status");
  std::string line;
  std::uint64_t effective = 0;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      effective = std::strtoull(line.c_str() + 7, nullptr, 16);
    }
  }
  constexpr std::uint64_t kNeeded = (1ULL << 5) | (1ULL << 6) | (1ULL << 7);
  if ((effective & kNeeded) != kNeeded) {
    return Fail(ErrorCode::kInvalidArgument,
                "multi-user mode ([auth] mode) needs CAP_SETUID and CAP_SETGID to run bsub as "
                "each caller and CAP_KILL to stop it at its timeout; CapEff is " +
                    std::to_string(effective));
  }
  return {};
}

}  // namespace bplace
