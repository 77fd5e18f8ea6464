#include "daemon/cluster/snapshot_builders.h"

#include <string>
#include <utility>
#include <vector>

#include "lsf_adapter/bhosts_parser.h"
#include "lsf_adapter/bqueues_long_parser.h"
#include "lsf_adapter/bqueues_parser.h"
#include "lsf_adapter/command_failure.h"
#include "lsf_adapter/group_parser.h"
#include "lsf_adapter/lsclusters_parser.h"
#include "lsf_adapter/lsid_parser.h"
#include "lsf_adapter/lsload_parser.h"

namespace bplace {
namespace {

// `parsed`, or its error prefixed with the command line.
template <typename T>
Result<T> Named(std::string_view line, Result<T> parsed) {
  if (parsed) return parsed;
  return Fail(parsed.error().code, std::string(line) + ": " + parsed.error().message);
}

// The groups of bmgroup/bugroup: "No ... group" is a cluster without any.
template <typename Parse>
Result<std::vector<lsf::Group>> Groups(std::string_view line,
                                       const Result<lsf::CommandResult>& result, Parse parse) {
  auto text = lsf::QueryOutput(line, result);
  if (!text) {
    if (text.error().code == ErrorCode::kNotFound) return std::vector<lsf::Group>{};
    return tl::unexpected(text.error());
  }
  return Named(line, parse(*text));
}

// The LSF administrators of `cluster` (or of the first cluster listed, when
// lsid gave no name or lsclusters does not list it) from `lsclusters -l`.
LsfAdministrators Administrators(const Result<lsf::CommandResult>& lsclusters,
                                 const std::string& cluster) {
  LsfAdministrators admins;
  auto text = lsf::QueryOutput("lsclusters -l", lsclusters);
  if (!text) {
    admins.unknown_reason = text.error().message;
    return admins;
  }
  auto parsed = lsf::ParseLsclusters(*text);
  if (!parsed) {
    admins.unknown_reason = parsed.error().message;
    return admins;
  }
  const lsf::ClusterAdministrators* chosen = &parsed->front();
  for (const auto& listed : *parsed) {
    if (listed.cluster_name == cluster) chosen = &listed;
  }
  admins.names = chosen->administrators;
  return admins;
}

}  // namespace

Result<std::shared_ptr<const LoadState>> BuildLoad(const Result<lsf::CommandResult>& bqueues,
                                                   const Result<lsf::CommandResult>& bhosts,
                                                   SteadyTime counted_at) {
  auto queues_text = lsf::QueryOutput("bqueues -w", bqueues);
  if (!queues_text) return tl::unexpected(queues_text.error());
  auto hosts_text = lsf::QueryOutput("bhosts -w", bhosts);
  if (!hosts_text) return tl::unexpected(hosts_text.error());
  auto queues = Named("bqueues -w", lsf::ParseBqueues(*queues_text));
  if (!queues) return tl::unexpected(queues.error());
  auto hosts = Named("bhosts -w", lsf::ParseBhosts(*hosts_text));
  if (!hosts) return tl::unexpected(hosts.error());

  auto load = std::make_shared<LoadState>();
  load->counted_at = counted_at;
  for (auto& queue : *queues) load->queues.emplace(queue.name, std::move(queue));
  load->hosts = std::move(*hosts);
  for (std::size_t i = 0; i < load->hosts.size(); ++i) {
    load->host_index.emplace(load->hosts[i].name, i);
  }
  return std::shared_ptr<const LoadState>(std::move(load));
}

Result<TopologyParts> BuildTopology(const Result<lsf::CommandResult>& bqueues_l,
                                    const Result<lsf::CommandResult>& bmgroup,
                                    const Result<lsf::CommandResult>& bugroup,
                                    const Result<lsf::CommandResult>& lsid,
                                    const Result<lsf::CommandResult>& lsclusters) {
  auto queues_text = lsf::QueryOutput("bqueues -l", bqueues_l);
  if (!queues_text) return tl::unexpected(queues_text.error());
  auto host_groups = Groups("bmgroup -w", bmgroup, lsf::ParseBmgroup);
  if (!host_groups) return tl::unexpected(host_groups.error());
  auto user_groups = Groups("bugroup -w", bugroup, lsf::ParseBugroup);
  if (!user_groups) return tl::unexpected(user_groups.error());
  auto queues = Named("bqueues -l", lsf::ParseBqueuesLong(*queues_text));
  if (!queues) return tl::unexpected(queues.error());

  TopologyParts parts;
  if (auto text = lsf::QueryOutput("lsid", lsid)) {
    if (auto parsed = lsf::ParseLsid(*text)) {
      parts.identity.cluster_name = parsed->cluster_name;
      parts.identity.master_name = parsed->master_name;
      parts.identity.version = parsed->version;
    }
  }
  parts.topology = Topology::Build(std::move(*queues), *host_groups, *user_groups,
                                   Administrators(lsclusters, parts.identity.cluster_name));
  return parts;
}

std::shared_ptr<const IbHealthState> BuildIbFromLsload(const Result<lsf::CommandResult>& lsload,
                                                       const IbHealthState* previous,
                                                       SystemTime started,
                                                       std::chrono::milliseconds max_age) {
  const std::string line = "lsload -w -I " + std::string(kIbOkIndex);
  std::string error;
  if (auto text = lsf::QueryOutput(line, lsload); !text) {
    error = text.error().message;
  } else if (auto rows = lsf::ParseLsload(*text, kIbOkIndex); !rows) {
    error = line + ": " + rows.error().message;
  } else {
    return std::make_shared<const IbHealthState>(IbHealthFromLsload(*rows, started));
  }
  auto kept =
      previous ? std::make_shared<IbHealthState>(*previous) : std::make_shared<IbHealthState>();
  kept->source = "lsload";
  for (auto& [host, health] : kept->hosts) {
    if (health.health != IbHealth::kUnknown && started - health.as_of > max_age) {
      health.health = IbHealth::kUnknown;
      health.reasons = {
          "the last ib_ok reading is older than 3 load refreshes and lsload is "
          "failing: " +
          error};
    }
  }
  kept->last_error = std::move(error);
  return kept;
}

Result<std::shared_ptr<const UserPermissions>> BuildPermissions(
    const std::string& user, const Result<lsf::CommandResult>& bqueues_u, SystemTime started) {
  const std::string line = "bqueues -u " + user + " -w";
  auto text = lsf::QueryOutput(line, bqueues_u);
  if (!text) return tl::unexpected(text.error());
  auto rows = Named(line, lsf::ParseBqueues(*text));
  if (!rows) return tl::unexpected(rows.error());
  auto value = std::make_shared<UserPermissions>();
  value->user = user;
  value->as_of = started;
  for (const auto& row : *rows) value->queues.insert(row.name);
  return std::shared_ptr<const UserPermissions>(std::move(value));
}

}  // namespace bplace
