#include "api/routes_placement.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/json_mapping.h"
#include "api/placement_answer_cache.h"

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

}  // namespace

Result<PlacementRequest> ParsePlacementQuery(const RouteParams& params, const std::string& user,
                                             bool require_ib, std::int64_t max_slots) {
  PlacementRequest request;
  request.user = std::string(params.Query("user").value_or(user));
  request.require_ib = require_ib;
  if (auto host = params.Query("host")) request.host = std::string(*host);
  if (auto known = params.OnlyQuery({"host", "user", "queue", "queues", "slots", "require_ib"});
      !known) {
    return tl::unexpected(known.error());
  }
  std::set<std::string> seen;
  for (const auto& [key, value] : params.query) {
    const bool single = key == "user" || key == "host" || key == "require_ib" || key == "slots";
    if (single && !seen.insert(key).second) {
      return Fail(ErrorCode::kInvalidArgument, key + ": given more than once");
    }
    if (key == "queue" || key == "queues") {
      AppendQueues(value, request.queues);
    } else if (key == "require_ib") {
      if (value != "true" && value != "false") {
        return Fail(ErrorCode::kInvalidArgument,
                    "require_ib: expected true or false, got `" + value + "`");
      }
      request.require_ib = value == "true";
    } else if (key == "slots") {
      std::int64_t slots = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), slots);
      if (ec != std::errc() || end != value.data() + value.size() || slots < 1 ||
          slots > max_slots) {
        return Fail(ErrorCode::kInvalidArgument, "slots: expected an integer from 1 to " +
                                                     std::to_string(max_slots) + ", got `" + value +
                                                     "`");
      }
      request.slots = slots;
    }
  }
  if (request.user.empty()) return Fail(ErrorCode::kInvalidArgument, "user: must not be empty");
  if (request.host && request.host->empty()) {
    return Fail(ErrorCode::kInvalidArgument, "host: must not be empty");
  }
  return request;
}

namespace {

void CountPlacement(const Services& services, const Result<Placement>& placement) {
  if (services.daemon_metrics != nullptr) services.daemon_metrics->CountPlacement(placement);
}

// The body of a placement answer at `now` (docs/api.md "GET /v1/placement").
nlohmann::json PlacementBody(const PlacementRequest& request, const Placement& placement,
                             const ClusterSnapshot& snapshot, SystemTime now) {
  nlohmann::json body = PlacementJson(request, placement, snapshot.ib.get(), now);
  AddAge(body, snapshot, now);
  return body;
}

// The fields of PlacementBody that depend on `now`: the ages AddAge sets
// (load and topology) and, when the host's InfiniBand reading has a time,
// the one HostIbJson sets under host_ib. Everything else is a function of
// the inputs the stamp covers.
std::vector<AgeField> PlacementAges(const Placement& placement, const ClusterSnapshot& snapshot) {
  using Pointer = nlohmann::json::json_pointer;
  std::vector<AgeField> ages = {{Pointer("/age_s"), snapshot.as_of()},
                                {Pointer("/topology_age_s"), snapshot.topology_as_of}};
  if (placement.host_ib && placement.host_ib->as_of != SystemTime{}) {
    ages.push_back({Pointer("/host_ib/age_s"), placement.host_ib->as_of});
  }
  return ages;
}

// What CountPlacement reads of `placement`: whether a queue was chosen, and which.
Placement CountedOutcome(const Placement& placement) {
  Placement counted;
  if (!placement.candidates.empty()) counted.candidates.push_back(placement.candidates.front());
  return counted;
}

// GET /v1/placement through `services.placement_answers`: a stored answer
// whose inputs have not changed is rendered at `now`; otherwise the
// placement is computed, answered and stored. The stamp stored is the one
// DryRunStamped read with (or before) each input's content, so the content
// is never older than the stamp, and a later look-up with an equal current
// stamp sees the same inputs (every version only grows).
Response CachedPlacement(const Services& services, const PlacementRequest& request) {
  PlacementAnswerCache& answers = *services.placement_answers;
  std::string key = PlacementAnswerCache::Key(request);
  const PlacementStamp current = services.submitter.Stamp(request.user);
  const SystemTime asked_at = services.clock.SystemNow();
  if (auto answer = answers.Find(key, current, asked_at)) {
    CountPlacement(services, answer->counted);
    return MakeJsonText(200, answer->body.Render(asked_at));
  }
  StampedPlacement stamped = services.submitter.DryRunStamped(request);
  CountPlacement(services, stamped.placement);
  if (!stamped.placement) return MakeProblem(stamped.placement.error());
  const SystemTime now = services.clock.SystemNow();
  nlohmann::json body = PlacementBody(request, *stamped.placement, *stamped.snapshot, now);
  std::optional<BodyTemplate> text =
      BodyTemplate::Make(body, PlacementAges(*stamped.placement, *stamped.snapshot));
  if (!text) return MakeJson(200, body);  // a sentinel's text in a string: not cacheable
  auto answer = std::make_shared<PlacementAnswer>();
  answer->body = std::move(*text);
  answer->stamp = std::move(stamped.stamp);
  answer->placed_at = stamped.placed_at;
  answer->valid_until = stamped.valid_until;
  answer->counted = CountedOutcome(*stamped.placement);
  std::string rendered = answer->body.Render(now);
  answers.Insert(std::move(key), std::move(answer));
  return MakeJsonText(200, std::move(rendered));
}

}  // namespace

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
  if (services.placement_answers != nullptr) return CachedPlacement(services, *request);
  StampedPlacement stamped = services.submitter.DryRunStamped(*request);
  CountPlacement(services, stamped.placement);
  if (!stamped.placement) return MakeProblem(stamped.placement.error());
  // The ages and IB source of the snapshot placed against (not a newer one
  // published meanwhile).
  const SystemTime now = services.clock.SystemNow();
  return MakeJson(200, PlacementBody(*request, *stamped.placement, *stamped.snapshot, now));
}

}  // namespace bplace::api
