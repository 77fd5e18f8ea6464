#include "api/handlers.h"

#include <boost/beast/http/verb.hpp>

#include "api/route_access.h"
#include "api/routes_daemon.h"
#include "api/routes_job_cancel.h"
#include "api/routes_job_status.h"
#include "api/routes_jobs.h"
#include "api/routes_lists.h"
#include "api/routes_lsf.h"
#include "api/routes_metrics.h"
#include "api/routes_openapi.h"
#include "api/routes_placement.h"
#include "api/routes_read.h"
#include "api/routes_waits.h"
#include "api/status_page.h"

namespace bplace::api {

void RegisterRoutes(Router& router, const Services& services) {
  using boost::beast::http::verb;
  const Services& s = services;

  router.Add(verb::get, "/healthz", Public(s, GetHealthz));
  router.Add(verb::get, "/readyz", Public(s, GetReadyz));
  // Anonymous whatever anonymous_read says (api/routes_openapi.h).
  router.Add(verb::get, "/v1/openapi.json", Public(s, OpenApiRoute(s)));
  AddMetricsRoute(router, s);  // GET /metrics, [server] metrics_access

  AddGuarded(router, verb::get, "/v1/cluster", s, Access::kRead, TakesNoQuery(GetCluster));
  AddGuarded(router, verb::get, "/v1/queues", s, Access::kRead, TakesNoQuery(GetQueues));
  AddGuarded(router, verb::get, "/v1/queues/{name}", s, Access::kRead, TakesNoQuery(GetQueue));
  AddGuarded(router, verb::get, "/v1/queues/{name}/waits", s, Access::kRead,
             TakesNoQuery(GetQueueWaits));
  AddGuarded(router, verb::get, "/v1/hosts", s, Access::kRead, GetHosts);
  AddGuarded(router, verb::get, "/v1/hosts/{host}", s, Access::kRead, TakesNoQuery(GetHost));
  AddGuarded(router, verb::get, "/v1/hostgroups", s, Access::kRead, TakesNoQuery(GetHostGroups));
  AddGuarded(router, verb::get, "/v1/hostgroups/{name}", s, Access::kRead,
             TakesNoQuery(GetHostGroup));
  AddGuarded(router, verb::get, "/v1/usergroups", s, Access::kRead, TakesNoQuery(GetUserGroups));
  AddGuarded(router, verb::get, "/v1/ib", s, Access::kRead, TakesNoQuery(GetIb));
  AddGuarded(router, verb::get, "/v1/placement", s, Access::kRead, GetPlacement);

  // Job routes (api/routes_jobs.h). Submitting is more than a scope (the
  // service account, uid rules), so AdmitSubmission decides it for any caller who
  // said who they are; anonymous callers get 401 (a token could help).
  AddGuardedAsync(router, verb::post, "/v1/jobs", s, Access::kAuthenticated, PostJobs,
                  AuditAccessRefusal);
  // Following and cancelling (api/routes_job_status.h, api/routes_job_cancel.h):
  // answered from the jobs tier; cancelling needs what submitting needs
  // (CancelRefusal).
  AddGuardedAsync(router, verb::get, "/v1/jobs", s, Access::kRead, ListJobs);
  AddGuardedAsync(router, verb::get, "/v1/jobs/{id}", s, Access::kRead, GetJob);
  AddGuardedAsync(router, verb::delete_, "/v1/jobs/{id}", s, Access::kAuthenticated, DeleteJob);
  AddGuardedAsync(router, verb::post, "/v1/jobs:cancel", s, Access::kAuthenticated, CancelJobs);

  // The front door (api/routes_lsf.h): bsub, bjobs and bkill answered in
  // LSF's words for the caller; submitting and cancelling decide for
  // themselves (the real command runs where bplaced may not act).
  AddGuardedAsync(router, verb::post, "/v1/lsf/bsub", s, Access::kAuthenticated, PostLsfBsub,
                  AuditAccessRefusal);
  AddGuardedAsync(router, verb::post, "/v1/lsf/bjobs", s, Access::kAuthenticated, PostLsfBjobs);
  AddGuardedAsync(router, verb::post, "/v1/lsf/bkill", s, Access::kAuthenticated, PostLsfBkill);

  AddGuarded(router, verb::post, "/v1/cache/refresh", s, Access::kAdmin, PostCacheRefresh);

  // The status page (api/status_page.h): read-only, as the reads it shows.
  for (const StaticAsset& asset : StatusPageAssets()) {
    AddGuarded(router, verb::get, asset.path, s, Access::kRead,
               [&asset](const Services&, const Caller&, const Request& req, const RouteParams&) {
                 return ServeAsset(asset, req);
               });
  }
}

}  // namespace bplace::api
