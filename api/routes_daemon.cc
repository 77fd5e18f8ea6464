#include "api/routes_daemon.h"

#include <string>

#include <boost/beast/http/field.hpp>

#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/json_mapping.h"
#include "api/read_answers.h"

namespace bplace::api {

using nlohmann::json;

Response GetHealthz(const Services&, const Request&) { return MakeJson(200, {{"status", "ok"}}); }

Response GetReadyz(const Services& services, const Request&) {
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    const SystemTime now = services.clock.SystemNow();
    const auto stale = StaleReason(snapshot, services.options.max_staleness,
                                   services.cache.options().topology_interval, now);
    if (stale) {
      json ages;
      AddAge(ages, snapshot, now);
      return MakeProblem(Error{ErrorCode::kUnavailable, "stale: " + *stale}, ages);
    }
    json body{{"status", "ready"}};
    AddAge(body, snapshot, now);
    return MakeJson(200, body);
  });
}

Response PostCacheRefresh(const Services& services, const Caller&, const Request&,
                          const RouteParams&) {
  const std::optional<std::chrono::seconds> wait = services.cache.RequestRefresh();
  if (!wait) return MakeJson(202, {{"status", "refresh started"}});
  const std::string seconds = std::to_string(wait->count());
  Response problem = MakeProblem(
      Error{ErrorCode::kRateLimited,
            "a refresh ran less than the minimum interval ago; retry after " + seconds + " s"});
  problem.set(boost::beast::http::field::retry_after, seconds);
  return problem;
}

}  // namespace bplace::api
