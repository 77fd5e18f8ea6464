#include "identity/user_identity.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace bplace::identity {
namespace {

// glibc's suggestion for the getpw*_r buffer when sysconf has none; it grows
// on ERANGE (LDAP entries with many fields can exceed any fixed size).
constexpr std::size_t kFirstBufferBytes = 1024;
constexpr std::size_t kMaxBufferBytes = std::size_t{1} << 20;
constexpr int kFirstGroupCount = 64;

std::size_t FirstBufferSize() {
  const long suggested = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  return suggested > 0 ? static_cast<std::size_t>(suggested) : kFirstBufferBytes;
}

// getgrouplist says how many groups it needs when the array is too small;
// loop because the group database may change between the calls.
Result<std::vector<gid_t>> GroupsOf(const std::string& name, gid_t gid) {
  int count = kFirstGroupCount;
  std::vector<gid_t> groups;
  for (int attempt = 0; attempt < 8; ++attempt) {
    groups.resize(static_cast<std::size_t>(count));
    int found = count;
    if (::getgrouplist(name.c_str(), gid, groups.data(), &found) >= 0) {
      groups.resize(static_cast<std::size_t>(found));
      return groups;
    }
    // -1 with `found` raised: too small. Without growth there is no way on.
    if (found <= count) break;
    count = found;
  }
  return Fail(ErrorCode::kUnavailable, "getgrouplist " + name + ": the group list keeps growing");
}

// Runs a getpw*_r `lookup(pwd, buffer, size, result)` with a growing buffer
// and turns its answer into a UserIdentity. `what` names the key in messages
// ("uid 4242", "user alice").
template <typename Lookup>
Result<UserIdentity> LookupUser(const std::string& what, const char* call, Lookup lookup) {
  std::vector<char> buffer(FirstBufferSize());
  struct passwd pwd {};
  struct passwd* found = nullptr;
  for (;;) {
    const int rc = lookup(&pwd, buffer.data(), buffer.size(), &found);
    if (rc == ERANGE && buffer.size() < kMaxBufferBytes) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    // glibc answers "no such entry" with 0 and no result; other C libraries
    // and some NSS modules use ENOENT, ESRCH, EBADF or EPERM (getpwnam(3)).
    if (rc == 0 && found == nullptr) break;
    if (rc == ENOENT || rc == ESRCH || rc == EBADF || rc == EPERM) break;
    if (rc != 0) {
      return Fail(ErrorCode::kUnavailable,
                  std::string(call) + " " + what + ": " + std::system_category().message(rc));
    }
    UserIdentity user{.name = pwd.pw_name,
                      .uid = pwd.pw_uid,
                      .gid = pwd.pw_gid,
                      .home = pwd.pw_dir != nullptr ? pwd.pw_dir : "",
                      .groups = {}};
    Result<std::vector<gid_t>> groups = GroupsOf(user.name, user.gid);
    if (!groups) return tl::unexpected(groups.error());
    user.groups = std::move(*groups);
    return user;
  }
  return Fail(ErrorCode::kNotFound, what + ": not in the passwd database");
}

}  // namespace

Result<UserIdentity> LookupUserByUid(uid_t uid) {
  return LookupUser("uid " + std::to_string(uid), "getpwuid_r",
                    [uid](passwd* pwd, char* buffer, std::size_t size, passwd** found) {
                      return ::getpwuid_r(uid, pwd, buffer, size, found);
                    });
}

Result<UserIdentity> LookupUserByName(std::string_view name) {
  const std::string key(name);
  const std::string what = "user " + key;
  if (key.empty() || key.find('\0') != std::string::npos) {
    return Fail(ErrorCode::kNotFound, what + ": not in the passwd database");
  }
  return LookupUser(what, "getpwnam_r",
                    [&key](passwd* pwd, char* buffer, std::size_t size, passwd** found) {
                      return ::getpwnam_r(key.c_str(), pwd, buffer, size, found);
                    });
}

Result<void> CheckCaller(const UserIdentity& user, uid_t min_uid) {
  const std::string who = "uid " + std::to_string(user.uid) + " (" + user.name + ")";
  if (user.uid == 0) return Fail(ErrorCode::kRejected, who + " may not submit");
  if (user.uid < min_uid) {
    return Fail(ErrorCode::kRejected, who + " is below the minimum uid " + std::to_string(min_uid));
  }
  return {};
}

}  // namespace bplace::identity
