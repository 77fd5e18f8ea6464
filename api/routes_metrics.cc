#include "api/routes_metrics.h"

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include "api/http/problem.h"
#include "api/route_access.h"

namespace bplace::api {

namespace http = boost::beast::http;

Response GetMetrics(const Services& services) {
  if (services.metrics == nullptr) {
    return MakeProblem(Error{ErrorCode::kNotFound, "this daemon keeps no metrics"});
  }
  Response res{http::status::ok, 11};
  res.set(http::field::content_type, metrics::kExpositionContentType);
  res.body() = services.metrics->Render();
  res.prepare_payload();
  return res;
}

void AddMetricsRoute(Router& router, const Services& services) {
  if (services.options.metrics_access == MetricsAccess::kAnonymous) {
    router.Add(http::verb::get, "/metrics",
               Public(services, [](const Services& s, const Request&) { return GetMetrics(s); }));
    return;
  }
  AddGuarded(router, http::verb::get, "/metrics", services, Access::kRead,
             [](const Services& s, const Caller&, const Request&, const RouteParams&) {
               return GetMetrics(s);
             });
}

}  // namespace bplace::api
