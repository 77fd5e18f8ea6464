#pragma once

// Who may act on jobs, shared by the job routes (api/routes_job_status.h)
// and the front door's bkill (api/routes_lsf.h).

#include <optional>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/services.h"
#include "common/result.h"
#include "identity/user_identity.h"

namespace bplace::api {

// Why `caller` may not cancel jobs (the 403 problem naming the caller), or
// nullopt when it may: callers who may submit, and admins.
std::optional<Response> CancelRefusal(const Caller& caller);

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
