// The reload diff: which keys a re-read config file changes, and the config
// a daemon runs with after SIGHUP (config/config_diff.h).
#include "config/config_diff.h"

#include <utility>

#include "config/config_schema.h"

namespace bplace::config {

std::vector<KeyChange> DiffConfigs(const Config& running, const Config& next) {
  std::vector<KeyChange> changes;
  for (const TableSpec& table : SchemaTables()) {
    for (const KeySpec& key : table.keys) {
      std::string before = key.show(running);
      std::string after = key.show(next);
      if (before == after) continue;
      changes.push_back({std::string(table.name) + "." + std::string(key.name), key.reload,
                         std::move(before), std::move(after)});
    }
  }
  return changes;
}

Config MergeReloadable(const Config& running, const Config& next) {
  Config merged = running;
  for (const TableSpec& table : SchemaTables()) {
    for (const KeySpec& key : table.keys) {
      if (key.reload != KeyReload::kRestart) key.copy(next, merged);
    }
  }
  return merged;
}

std::optional<KeyReload> ReloadOf(std::string_view key) {
  const std::size_t dot = key.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const TableSpec* table = FindTable(key.substr(0, dot));
  if (table == nullptr) return std::nullopt;
  const KeySpec* spec = FindKey(*table, key.substr(dot + 1));
  if (spec == nullptr) return std::nullopt;
  return spec->reload;
}

}  // namespace bplace::config
