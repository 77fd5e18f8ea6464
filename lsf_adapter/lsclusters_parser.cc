#include "lsf_adapter/lsclusters_parser.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "common/text.h"
#include "lsf_adapter/table.h"

namespace bplace::lsf {
namespace {

constexpr std::string_view kClusterKey = "CLUSTER_NAME:";
constexpr std::string_view kAdministrators = "administrators:";

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// Position of an "ADMIN" column in a header row ("CLUSTER_NAME STATUS
// MASTER_HOST ADMIN ..." or a block's "Status Master_host Admin ..."), or
// nullopt when the line is not such a header.
std::optional<std::size_t> AdminColumn(const std::vector<std::string_view>& fields) {
  bool has_status = false;
  std::optional<std::size_t> admin;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string name = Lower(fields[i]);
    if (name == "status") has_status = true;
    if (name == "admin") admin = i;
  }
  return has_status ? admin : std::nullopt;
}

void AddAdministrator(ClusterAdministrators& cluster, std::string_view name) {
  const auto& list = cluster.administrators;
  if (std::find(list.begin(), list.end(), name) == list.end()) {
    cluster.administrators.emplace_back(name);
  }
}

}  // namespace

Result<std::vector<ClusterAdministrators>> ParseLsclusters(std::string_view text) {
  std::vector<ClusterAdministrators> clusters;
  // The ADMIN column while inside a table, else kNoColumn. (Not an optional:
  // GCC 12 sees a maybe-uninitialized read through it.)
  constexpr std::size_t kNoColumn = std::string_view::npos;
  std::size_t admin_column = kNoColumn;
  bool table_has_names = false;  // the table has CLUSTER_NAME (else a block's row)
  for (const Line& line : SplitLines(text)) {
    const std::string_view trimmed = Trim(line.text);
    const std::vector<std::string_view> fields = SplitFields(trimmed);
    if (fields.empty()) continue;
    if (trimmed.substr(0, kClusterKey.size()) == kClusterKey) {
      clusters.push_back({std::string(Trim(trimmed.substr(kClusterKey.size()))), {}});
      admin_column = kNoColumn;
      continue;
    }
    const std::size_t colon = trimmed.find(':');
    if (colon != std::string_view::npos) {
      // "LSF administrators: a b": the administrators of the cluster above.
      const std::string key = Lower(trimmed.substr(0, colon + 1));
      const bool admins =
          key.size() >= kAdministrators.size() &&
          key.compare(key.size() - kAdministrators.size(), std::string::npos, kAdministrators) == 0;
      if (admins && !clusters.empty()) {
        for (std::string_view name : SplitFields(trimmed.substr(colon + 1))) {
          AddAdministrator(clusters.back(), name);
        }
      }
      continue;
    }
    if (auto column = AdminColumn(fields)) {
      admin_column = *column;
      table_has_names = Lower(fields.front()) == "cluster_name";
      continue;
    }
    if (admin_column == kNoColumn || fields.size() <= admin_column) continue;
    if (table_has_names) {
      clusters.push_back({std::string(fields.front()), {}});
    } else if (clusters.empty()) {
      continue;
    }
    AddAdministrator(clusters.back(), fields[admin_column]);
  }
  if (clusters.empty()) return Fail(ErrorCode::kParseError, "lsclusters -l: no cluster listed");
  return clusters;
}

}  // namespace bplace::lsf
