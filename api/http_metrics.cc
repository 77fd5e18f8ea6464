#include "api/http_metrics.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace bplace::api {

HttpMetrics::HttpMetrics(metrics::Registry& registry, const Clock& clock)
    : clock_(clock),
      requests_(registry.AddCounter(
          "bplace_http_requests_total",
          "HTTP requests answered, by method, route pattern and status code.",
          {"method", "route", "code"}, metrics::FamilyOptions{.hide_unused = true})),
      durations_(registry.AddHistogram(
          "bplace_http_request_duration_seconds",
          "Time from a request read completely to its response, by method and route pattern.",
          {"method", "route"}, metrics::LatencyBuckets())),
      unmatched_(MakeSeries("any", "unmatched")) {}

HttpMetrics::RouteSeries HttpMetrics::MakeSeries(std::string method, std::string route) {
  RouteSeries series;
  for (std::size_t i = 0; i < kCodes.size(); ++i) {
    series.by_code[i] = &requests_.WithLabels({method, route, std::to_string(kCodes[i])});
  }
  series.duration = &durations_.WithLabels({method, route});
  series.method = std::move(method);
  series.route = std::move(route);
  return series;
}

std::size_t HttpMetrics::OnRouteAdded(boost::beast::http::verb method, std::string_view pattern) {
  routes_.push_back(
      MakeSeries(std::string(boost::beast::http::to_string(method)), std::string(pattern)));
  return routes_.size() - 1;
}

void HttpMetrics::OnResponse(std::size_t route, unsigned status,
                             std::chrono::steady_clock::time_point received) {
  RouteSeries& series = route < routes_.size() ? routes_[route] : unmatched_;
  const auto code = std::find(kCodes.begin(), kCodes.end(), status);
  if (code != kCodes.end()) {
    series.by_code[static_cast<std::size_t>(code - kCodes.begin())]->Inc();
  } else {
    requests_.WithLabels({series.method, series.route, std::to_string(status)}).Inc();
  }
  const std::chrono::duration<double> took = clock_.SteadyNow() - received;
  series.duration->Observe(std::max(0.0, took.count()));
}

metrics::Collector ConnectionCollector(const HttpServer& server) {
  return [&server] {
    using metrics::CollectedFamily;
    using metrics::MetricType;
    CollectedFamily open{"bplace_http_connections_open",
                         "HTTP connections being served, by kind of listener.",
                         MetricType::kGauge,
                         {"listener"},
                         {}};
    CollectedFamily accepted{"bplace_http_connections_accepted_total",
                             "HTTP connections accepted into a connection budget.",
                             MetricType::kCounter,
                             {"listener"},
                             {}};
    CollectedFamily refused{"bplace_http_connections_refused_total",
                            "HTTP connections turned away because their budget was full.",
                            MetricType::kCounter,
                            {"listener"},
                            {}};
    CollectedFamily reclaimed{"bplace_http_connections_reclaimed_total",
                              "Idle keep-alive connections closed to make room for a new one.",
                              MetricType::kCounter,
                              {"listener"},
                              {}};
    for (const auto& [transport, name] :
         {std::pair{Transport::kTcp, "tcp"}, std::pair{Transport::kUnix, "unix"}}) {
      const ConnectionCounts counts = server.Connections(transport);
      open.samples.push_back({{name}, static_cast<double>(counts.open)});
      accepted.samples.push_back({{name}, static_cast<double>(counts.accepted)});
      refused.samples.push_back({{name}, static_cast<double>(counts.refused)});
      reclaimed.samples.push_back({{name}, static_cast<double>(counts.reclaimed)});
    }
    return std::vector<CollectedFamily>{std::move(open), std::move(accepted), std::move(refused),
                                        std::move(reclaimed)};
  };
}

}  // namespace bplace::api
