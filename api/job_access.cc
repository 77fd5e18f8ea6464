#include "api/job_access.h"

#include "api/http/problem.h"
#include "api/route_access.h"

namespace bplace::api {
namespace {

// True for a caller who did not say who they are (TCP without a token).
// The caller made without an Authenticator is the daemon's user.
bool IsAnonymous(const Caller& caller) {
  return caller.method == AuthMethod::kAnonymous && caller.user.empty();
}

}  // namespace

std::optional<Response> CancelRefusal(const Caller& caller) {
  if (caller.can_submit || caller.is_admin) return std::nullopt;
  return MakeProblem(
      Error{ErrorCode::kPermissionDenied,
            caller.submit_refusal.empty()
                ? DescribeCaller(caller) + " lacks the `submit` scope, which cancelling jobs needs"
                : DescribeCaller(caller) + " cannot cancel jobs: " + caller.submit_refusal});
}

std::string LookupCallerName(const Services& services, const Caller& caller) {
  if (!caller.user.empty() || !caller.uid) return CallerSelf(services, caller);
  return "uid " + std::to_string(*caller.uid);
}

Result<std::optional<identity::UserIdentity>> KillerIdentity(const Services& services,
                                                             const Caller& caller) {
  if (!services.multi_user()) return std::optional<identity::UserIdentity>();
  auto identity = services.auth->SubmitterIdentity(caller);
  if (!identity) return tl::unexpected(identity.error());
  return std::optional<identity::UserIdentity>(std::move(*identity));
}

std::string CallerSelf(const Services& services, const Caller& caller) {
  return caller.user.empty() ? services.user : caller.user;
}

bool EveryoneSeesAll(const Services& s) {
  return s.auth == nullptr || s.auth->policy().job_visibility == JobVisibility::kAll;
}

std::optional<Error> VisibilityRefusal(const Services& s, const Caller& caller,
                                       const std::vector<const JobView*>& jobs,
                                       const std::string& id_text) {
  if (IsAnonymous(caller)) {
    return Error{ErrorCode::kUnauthenticated,
                 "anonymous callers never see jobs; send a bearer token, or use the Unix socket"};
  }
  if (caller.is_admin || EveryoneSeesAll(s)) return std::nullopt;
  for (const JobView* job : jobs) {
    if (caller.user.empty() || job->lsf.user != caller.user) {
      return Error{ErrorCode::kPermissionDenied,
                   "job " + id_text + " is not yours; " + DescribeCaller(caller) +
                       " sees only their own jobs ([auth] job_visibility = \"own\", as LSF's "
                       "SECURE_JOB_INFO_LEVEL=4); the `admin` scope sees every job"};
    }
  }
  return std::nullopt;
}

}  // namespace bplace::api
