#include "api/routes_placement.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/json_mapping.h"
#include "api/problem.h"

namespace bplace::api {
namespace {

// Appends the non-empty pieces of a comma-separated list.
void AppendQueues(std::string_view value, std::vector<std::string>& queues) {
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    if (comma > start) queues.emplace_back(value.substr(start, comma - start));
    start = comma + 1;
  }
}

Error Invalid(std::string message) {
  return Error{ErrorCode::kInvalidArgument, std::move(message)};
}

}  // namespace

Result<PlacementRequest> ParsePlacementQuery(const RouteParams& params, const std::string& user,
                                             bool require_ib, std::int64_t max_slots) {
  PlacementRequest request;
  request.user = std::string(params.Query("user").value_or(user));
  request.require_ib = require_ib;
  if (auto host = params.Query("host")) request.host = std::string(*host);
  std::set<std::string> seen;
  for (const auto& [key, value] : params.query) {
    const bool single = key == "user" || key == "host" || key == "require_ib" || key == "slots";
    if (single && !seen.insert(key).second) {
      return tl::unexpected(Invalid(key + ": given more than once"));
    }
    if (key == "queue" || key == "queues") {
      AppendQueues(value, request.queues);
    } else if (key == "require_ib") {
      if (value != "true" && value != "false") {
        return tl::unexpected(Invalid("require_ib: expected true or false, got `" + value + "`"));
      }
      request.require_ib = value == "true";
    } else if (key == "slots") {
      std::int64_t slots = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), slots);
      if (ec != std::errc() || end != value.data() + value.size() || slots < 1 ||
          slots > max_slots) {
        return tl::unexpected(Invalid("slots: expected an integer from 1 to " +
                                      std::to_string(max_slots) + ", got `" + value + "`"));
      }
      request.slots = slots;
    } else if (!single) {
      return tl::unexpected(
          Invalid(key + ": unknown query parameter (use host, user, queue, slots, require_ib)"));
    }
  }
  if (request.user.empty()) return tl::unexpected(Invalid("user: must not be empty"));
  if (request.host && request.host->empty()) {
    return tl::unexpected(Invalid("host: must not be empty"));
  }
  return request;
}

Response GetPlacement(const Services& services, const Caller& caller, const Request&,
                      const RouteParams& params) {
  // Without `user`, the caller's own placement (the daemon's user for
  // anonymous callers and without authentication).
  const std::string self = caller.user.empty() ? services.user : caller.user;
  if (params.Query("user").value_or(self) != self && !caller.is_admin) {
    // Another user's permissions and bsub refusals are theirs.
    return MakeProblem(Error{
        ErrorCode::kPermissionDenied,
        "user: placing for another user than yourself (" + self + ") needs the `admin` scope"});
  }
  auto request = ParsePlacementQuery(params, self, services.ib().require_ib,
                                     services.options.request.max_slots);
  if (!request) return MakeProblem(request.error());
  auto placement = services.submitter->DryRun(*request);
  if (services.daemon_metrics != nullptr) services.daemon_metrics->CountPlacement(placement);
  if (!placement) return MakeProblem(placement.error());
  const auto snapshot = services.cache->Current();
  const SystemTime now = services.clock->SystemNow();
  nlohmann::json body = PlacementJson(*request, *placement, snapshot->ib.get(), now);
  AddAge(body, *snapshot, now);
  return MakeJson(200, body);
}

}  // namespace bplace::api
