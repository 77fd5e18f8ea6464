#pragma once

// Who may see and act on jobs, shared by the job routes
// (api/routes_job_status.h, api/routes_job_cancel.h) and the front door's
// bkill (api/routes_lsf.h).

#include <optional>
#include <string>
#include <vector>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/services.h"
#include "common/result.h"
#include "daemon/cluster/job_table.h"
#include "identity/user_identity.h"

namespace bplace::api {

// Why `caller` may not cancel jobs (the 403 problem naming the caller), or
// nullopt when it may: callers who may submit, and admins.
std::optional<Response> CancelRefusal(const Caller& caller);

// The user `caller` acts as: its own name, or the daemon's user
// (services.user) for a caller without one (no [auth]).
std::string CallerSelf(const Services& services, const Caller& caller);

// Whether identified callers see every job: no [auth], or [auth]
// job_visibility = "all".
bool EveryoneSeesAll(const Services& services);

// Why `caller` may not see the details of `jobs` (named `id_text` in the
// message), or nullopt when they may (docs/operations.md "Security"):
// anonymous callers see none (kUnauthenticated, also for an empty `jobs`);
// the `admin` scope sees all; others see their own, or all with [auth]
// job_visibility = "all" (else kPermissionDenied). The owner is not named:
// that too is a detail.
std::optional<Error> VisibilityRefusal(const Services& services, const Caller& caller,
                                       const std::vector<const JobView*>& jobs,
                                       const std::string& id_text);

// The name a caller's lookups of unknown job ids are counted under
// (JobLookups): the user, else "uid N" for a peer not in passwd.
std::string LookupCallerName(const Services& services, const Caller& caller);

// Who bkill runs as for `caller`: the caller's passwd identity in
// multi-user mode, nullopt (the daemon's user) otherwise. Errors as
// Authenticator::SubmitterIdentity (kPermissionDenied, kUnavailable when NSS
// cannot answer). May block on NSS (answers are cached).
Result<std::optional<identity::UserIdentity>> KillerIdentity(const Services& services,
                                                             const Caller& caller);

}  // namespace bplace::api
