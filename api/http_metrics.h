#pragma once

#include <array>
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

#include <boost/beast/http/verb.hpp>

#include "api/http/http_server.h"
#include "api/router.h"
#include "common/clock.h"
#include "common/metrics.h"

namespace bplace::api {

// The HTTP API's request metrics, fed by the router (RouteObserver):
//   bplace_http_requests_total{method, route, code}          counter
//   bplace_http_request_duration_seconds{method, route}      histogram, from
//     the request read completely to the response handed to the server
// `route` is the router's pattern ("/v1/queues/{name}"), never a request's
// path; requests no route matched (the router's 400, 404, 405) are
// route="unmatched", method="any". Series exist from the start for every
// route and the status codes the API gives; a (route, code) pair that has
// never occurred is left out of the exposition, an unexpected code is
// created when it first occurs. Thread-safe: counting is lock-free (an
// unexpected code takes a mutex once).
class HttpMetrics final : public RouteObserver {
 public:
  // Registers the families in `registry`; `clock` times the requests. Both
  // must outlive this. Throws std::invalid_argument when they are
  // registered already.
  HttpMetrics(metrics::Registry& registry, const Clock& clock);

  std::size_t OnRouteAdded(boost::beast::http::verb method, std::string_view pattern) override;
  void OnResponse(std::size_t route, unsigned status,
                  std::chrono::steady_clock::time_point received) override;

 private:
  // The status codes the API answers with (routes, router, problems).
  static constexpr std::array<unsigned, 19> kCodes = {200, 201, 202, 204, 400, 401, 403,
                                                      404, 405, 409, 413, 415, 422, 429,
                                                      431, 500, 502, 503, 504};
  struct RouteSeries {
    std::string method;
    std::string route;
    std::array<metrics::Counter*, kCodes.size()> by_code{};
    metrics::Histogram* duration = nullptr;
  };

  RouteSeries MakeSeries(std::string method, std::string route);

  const Clock& clock_;
  metrics::Family<metrics::Counter>& requests_;
  metrics::Family<metrics::Histogram>& durations_;
  std::deque<RouteSeries> routes_;  // by route id; grows during Router::Add only
  RouteSeries unmatched_;
};

// The connection families of `server`'s listeners, by kind
// (listener="tcp"|"unix"):
//   bplace_http_connections_open{listener}            gauge
//   bplace_http_connections_accepted_total{listener}  counter
//   bplace_http_connections_refused_total{listener}   counter (budget full)
//   bplace_http_connections_reclaimed_total{listener} counter (idle, closed
//     for a newer connection)
// `server` must outlive the collector.
metrics::Collector ConnectionCollector(const HttpServer& server);

}  // namespace bplace::api
