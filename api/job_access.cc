#include "api/job_access.h"

#include "api/http/problem.h"
#include "api/route_access.h"

namespace bplace::api {

std::optional<Response> CancelRefusal(const Caller& caller) {
  if (caller.can_submit || caller.is_admin) return std::nullopt;
  return MakeProblem(
      Error{ErrorCode::kPermissionDenied,
            caller.submit_refusal.empty()
                ? DescribeCaller(caller) + " lacks the `submit` scope, which cancelling jobs needs"
                : DescribeCaller(caller) + " cannot cancel jobs: " + caller.submit_refusal});
}

std::string LookupCallerName(const Services& services, const Caller& caller) {
  if (!caller.user.empty() || !caller.uid) return caller.user.empty() ? services.user : caller.user;
  return "uid " + std::to_string(*caller.uid);
}

Result<std::optional<identity::UserIdentity>> KillerIdentity(const Services& services,
                                                             const Caller& caller) {
  if (!services.multi_user()) return std::optional<identity::UserIdentity>();
  auto identity = services.auth->SubmitterIdentity(caller);
  if (!identity) return tl::unexpected(identity.error());
  return std::optional<identity::UserIdentity>(std::move(*identity));
}

}  // namespace bplace::api
