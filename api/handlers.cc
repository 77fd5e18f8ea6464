#include "api/handlers.h"

#include <boost/beast/http/verb.hpp>

#include "api/route_access.h"
#include "api/routes_daemon.h"
#include "api/routes_job_status.h"
#include "api/routes_jobs.h"
#include "api/routes_lists.h"
#include "api/routes_placement.h"
#include "api/routes_read.h"

namespace bplace::api {

void RegisterRoutes(Router& router, const Services& services) {
  using boost::beast::http::verb;
  const Services& s = services;

  router.Add(verb::get, "/healthz", Public(s, GetHealthz));
  router.Add(verb::get, "/readyz", Public(s, GetReadyz));

  router.Add(verb::get, "/v1/cluster", Guarded(s, Access::kRead, GetCluster));
  router.Add(verb::get, "/v1/queues", Guarded(s, Access::kRead, GetQueues));
  router.Add(verb::get, "/v1/queues/{name}", Guarded(s, Access::kRead, GetQueue));
  router.Add(verb::get, "/v1/hosts", Guarded(s, Access::kRead, GetHosts));
  router.Add(verb::get, "/v1/hosts/{host}", Guarded(s, Access::kRead, GetHost));
  router.Add(verb::get, "/v1/hostgroups", Guarded(s, Access::kRead, GetHostGroups));
  router.Add(verb::get, "/v1/hostgroups/{name}", Guarded(s, Access::kRead, GetHostGroup));
  router.Add(verb::get, "/v1/usergroups", Guarded(s, Access::kRead, GetUserGroups));
  router.Add(verb::get, "/v1/ib", Guarded(s, Access::kRead, GetIb));
  router.Add(verb::get, "/v1/placement", Guarded(s, Access::kRead, GetPlacement));

  // Job routes (api/routes_jobs.h). Submitting is more than a scope (the
  // service account, uid rules), so Admit decides it for any identified
  // caller.
  router.Add(verb::post, "/v1/jobs",
             GuardedAsync(s, Access::kIdentified, PostJobs, AuditAccessRefusal));
  // Following and cancelling (api/routes_job_status.h): answered from the
  // jobs tier; cancelling needs what submitting needs (CancelRefusal).
  router.Add(verb::get, "/v1/jobs", GuardedAsync(s, Access::kRead, ListJobs));
  router.Add(verb::get, "/v1/jobs/{id}", GuardedAsync(s, Access::kRead, GetJob));
  router.Add(verb::delete_, "/v1/jobs/{id}", GuardedAsync(s, Access::kIdentified, DeleteJob));
  router.Add(verb::post, "/v1/jobs:cancel", GuardedAsync(s, Access::kIdentified, CancelJobs));

  router.Add(verb::post, "/v1/cache/refresh", Guarded(s, Access::kAdmin, PostCacheRefresh));
}

}  // namespace bplace::api
