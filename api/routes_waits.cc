#include "api/routes_waits.h"

#include <string>

#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/json_mapping.h"
#include "api/read_answers.h"

namespace bplace::api {

using nlohmann::json;

Response GetQueueWaits(const Services& services, const Caller&, const Request&,
                       const RouteParams& params) {
  if (services.waits == nullptr) {
    return MakeProblem(Error{ErrorCode::kUnavailable, "this daemon predicts no waits"});
  }
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    const std::string name(params.Path("name"));
    if (snapshot.topology->FindQueue(name) == nullptr) {
      return NotFound("queue", name, "does not exist (bqueues -l)");
    }
    const WaitModel& waits = *services.waits;
    json estimates = json::array();
    for (const SlotClassEstimate& entry : waits.ClassEstimates(name)) {
      estimates.push_back(
          {{"slots", entry.slots}, {"expected_start", ExpectedStartJson(entry.estimate)}});
    }
    json body;
    body["queue"] = name;
    body["recent_waits_s"] = waits.RecentWaits(name, kRecentWaitsShown);
    body["learned"] = waits.learned();
    body["estimates"] = std::move(estimates);
    return MakeJson(200, body);
  });
}

json WaitRecordJson(const Services& services) {
  if (services.waits == nullptr || services.wait_coverage == nullptr) return json();
  const QueueCoverage total = services.wait_coverage->Total();
  json body;
  body["learned"] = services.waits->learned();
  body["predictions"] = total.predictions;
  body["within_bound"] = total.within_bound;
  body["coverage"] =
      total.predictions > 0
          ? json(static_cast<double>(total.within_bound) / static_cast<double>(total.predictions))
          : json();
  body["quantile"] = services.waits->options().quantile;
  return body;
}

}  // namespace bplace::api
