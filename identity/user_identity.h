#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace bplace::identity {

// A local or directory (LDAP, SSSD) user as the passwd and group databases
// describe it: whom a job is submitted as.
struct UserIdentity {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;  // primary group
  std::string home;
  // Every group the user is in, primary included, as getgrouplist(3)
  // returns them (order as NSS gives it).
  std::vector<gid_t> groups;
};

// Looks `uid` up with getpwuid_r(3), then its groups with getgrouplist(3).
// Blocks: NSS may ask LDAP or SSSD over the network, so call it on a worker
// thread, never on an io_context thread. Thread-safe.
// Returns kNotFound "uid 4242: not in the passwd database", or kUnavailable
// naming the call and errno when the lookup itself failed (e.g. the
// directory is unreachable).
Result<UserIdentity> LookupUserByUid(uid_t uid);

// As LookupUserByUid, by login name with getpwnam_r(3). Returns kNotFound
// "user nosuch: not in the passwd database" (also for an empty name or one
// containing a NUL byte), or kUnavailable as above. Blocks; thread-safe.
Result<UserIdentity> LookupUserByName(std::string_view name);

// The caller policy: may `user` submit jobs through bplace? Root never may
// (LSF would run the job as root; sites refuse that with LSF_ROOT_REX off),
// and neither may any uid below `min_uid` (system and service accounts;
// 1000 on Debian, see UID_MIN in /etc/login.defs). Pure; never blocks.
// Returns kRejected "uid 0 (root) may not submit" or "uid 999 (sys) is below
// the minimum uid 1000".
Result<void> CheckCaller(const UserIdentity& user, uid_t min_uid);

}  // namespace bplace::identity
