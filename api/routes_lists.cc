#include "api/routes_lists.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/json_mapping.h"
#include "api/read_answers.h"
#include "daemon/cluster/snapshot.h"

namespace bplace::api {
namespace {

using nlohmann::json;

constexpr IbHealth kIbVerdicts[] = {IbHealth::kHealthy, IbHealth::kUnhealthy, IbHealth::kUnknown};

template <typename Names>
std::string Listed(const Names& names) {
  std::string text;
  for (const auto& name : names) {
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

// The pieces of a comma-separated value; an empty piece is an error
// ("status=" or "status=ok,,x" asks for nothing).
Result<std::vector<std::string_view>> Pieces(std::string_view key, std::string_view value) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = value.find(',', start);
    const std::string_view piece = value.substr(start, comma - start);
    if (piece.empty()) {
      return Fail(ErrorCode::kInvalidArgument,
                  std::string(key) + ": empty value (leave it out to list all)");
    }
    pieces.push_back(piece);
    if (comma == std::string_view::npos) return pieces;
    start = comma + 1;
  }
}

Result<void> AddStatuses(std::string_view value, HostFilter& filter) {
  auto pieces = Pieces("status", value);
  if (!pieces) return tl::unexpected(pieces.error());
  const std::vector<std::string_view> known = BhostsStatuses();
  for (std::string_view piece : *pieces) {
    if (std::find(known.begin(), known.end(), piece) == known.end()) {
      return Fail(
          ErrorCode::kInvalidArgument,
          "status: unknown bhosts status `" + std::string(piece) + "` (use " + Listed(known) + ")");
    }
    filter.statuses.emplace(piece);
  }
  return {};
}

Result<void> AddIbVerdicts(std::string_view value, HostFilter& filter) {
  auto pieces = Pieces("ib", value);
  if (!pieces) return tl::unexpected(pieces.error());
  for (std::string_view piece : *pieces) {
    bool found = false;
    for (IbHealth health : kIbVerdicts) {
      if (piece == IbHealthName(health)) {
        filter.ib.insert(health);
        found = true;
      }
    }
    if (!found) {
      std::vector<std::string> names;
      for (IbHealth health : kIbVerdicts) names.emplace_back(IbHealthName(health));
      return Fail(ErrorCode::kInvalidArgument, "ib: unknown InfiniBand verdict `" +
                                                   std::string(piece) + "` (use " + Listed(names) +
                                                   ")");
    }
  }
  return {};
}

bool Passes(const HostFilter& filter, const lsf::HostStatus& host, const IbHealthState* ib) {
  if (!filter.statuses.empty() && !filter.statuses.contains(host.status)) return false;
  return filter.ib.empty() || filter.ib.contains(HostIbOf(ib, &host, host.name).health);
}

// {"<key>": [GroupJson...], "count": N} of every group of `groups`.
json GroupsJson(const GroupIndex& groups, std::string_view key, std::string_view expanded_key) {
  json list = json::array();
  for (const std::string& name : groups.Names()) {
    list.push_back(GroupJson(groups, *groups.Find(name), expanded_key));
  }
  json body;
  body["count"] = list.size();
  body[std::string(key)] = std::move(list);
  return body;
}

}  // namespace

Result<HostFilter> ParseHostFilter(const RouteParams& params) {
  HostFilter filter;
  if (auto known = params.OnlyQuery({"status", "ib"}); !known) return tl::unexpected(known.error());
  for (const auto& [key, value] : params.query) {
    const Result<void> added =
        key == "status" ? AddStatuses(value, filter) : AddIbVerdicts(value, filter);
    if (!added) return tl::unexpected(added.error());
  }
  return filter;
}

Response GetHosts(const Services& services, const Caller&, const Request&,
                  const RouteParams& params) {
  auto filter = ParseHostFilter(params);
  if (!filter) return MakeProblem(filter.error());
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    const IbHealthState* ib = snapshot.ib.get();
    const auto& hosts = snapshot.load->hosts;
    json list = json::array();
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      if (!Passes(*filter, hosts[i], ib)) continue;
      // Counted with the snapshot; absent only in a snapshot built by hand.
      const std::int32_t admitting =
          i < snapshot.queues_admitting.size() ? snapshot.queues_admitting[i] : 0;
      list.push_back(HostSummaryJson(hosts[i], admitting, ib));
    }
    json body;
    body["count"] = list.size();
    body["hosts"] = std::move(list);
    AddAge(body, snapshot, services.clock.SystemNow());
    return MakeJson(200, body);
  });
}

Response GetHostGroups(const Services& services, const Caller&, const Request&,
                       const RouteParams&) {
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    json body = GroupsJson(snapshot.topology->host_groups(), "host_groups", "hosts");
    AddAge(body, snapshot, services.clock.SystemNow());
    return MakeJson(200, body);
  });
}

Response GetUserGroups(const Services& services, const Caller&, const Request&,
                       const RouteParams&) {
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    json body = GroupsJson(snapshot.topology->user_groups(), "user_groups", "users");
    AddAge(body, snapshot, services.clock.SystemNow());
    return MakeJson(200, body);
  });
}

}  // namespace bplace::api
