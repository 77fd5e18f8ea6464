#include "config/config.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include <toml++/toml.h>

#include "common/small_file.h"
#include "config/config_schema.h"
#include "config/did_you_mean.h"
#include "config/toml_readers.h"

// Debian's libtomlplusplus3 is built with exceptions (its symbols live in
// toml::v3::ex), so the no-exceptions parse_result API would not link. The
// parser's toml::parse_error is caught in ParseConfig and never leaves it.
static_assert(TOML_EXCEPTIONS, "bplace_config needs toml++ built with exceptions");

namespace bplace::config {
namespace {

constexpr std::size_t kMaxConfigFileBytes = 1024 * 1024;

// lsf.topology_refresh_s >= lsf.load_refresh_s: a topology refresh also
// reloads load, so a shorter topology period would make load_refresh_s a lie.
void CheckRefreshOrder(const Config& config,
                       const std::map<std::string, const toml::key*, std::less<>>& valid,
                       Problems& problems) {
  const auto& refresh = config.refresh;
  if (refresh.topology_interval >= refresh.load_interval) return;
  const auto load_s = std::chrono::duration_cast<std::chrono::seconds>(refresh.load_interval);
  const auto topology_s =
      std::chrono::duration_cast<std::chrono::seconds>(refresh.topology_interval);
  const auto topology = valid.find("lsf.topology_refresh_s");
  const auto load = valid.find("lsf.load_refresh_s");
  if (topology != valid.end()) {
    problems.Add(topology->second->source(), "lsf.topology_refresh_s",
                 "must be >= lsf.load_refresh_s (" + std::to_string(load_s.count()) + " s), got " +
                     std::to_string(topology_s.count()));
  } else if (load != valid.end()) {
    problems.Add(load->second->source(), "lsf.load_refresh_s",
                 "must be <= lsf.topology_refresh_s (" + std::to_string(topology_s.count()) +
                     " s, the default), got " + std::to_string(load_s.count()));
  }
}

// ParseConfig, reading only the table `only_table` when it is not empty
// (every other table is skipped unread).
Result<Config> ParseTables(std::string_view text, std::string_view source_name,
                           std::string_view only_table) {
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& error) {
    const toml::source_position& at = error.source().begin;
    return Fail(ErrorCode::kInvalidArgument,
                std::string(source_name) + ":" + std::to_string(at.line) + ":" +
                    std::to_string(at.column) +
                    ": syntax error: " + std::string(error.description()));
  }

  Config config;
  Problems problems(source_name);
  // Keys read without a problem, for the checks that relate two keys: those
  // run only when both values are the user's intended ones (or defaults).
  std::map<std::string, const toml::key*, std::less<>> valid;
  bool related_key_failed = false;

  for (const auto& [key, node] : root) {
    const std::string table_name(key.str());
    if (!only_table.empty() && table_name != only_table) continue;
    const TableSpec* table_spec = FindTable(table_name);
    if (table_spec == nullptr) {
      if (node.is_table()) {
        problems.Add(key.source(), table_name, "unknown table" + SuggestTable(table_name));
      } else {
        std::string suggestion = SuggestOtherTable(table_name, nullptr);
        if (suggestion.empty()) suggestion = SuggestTable(table_name);
        problems.Add(key.source(), table_name, "unknown key" + suggestion);
      }
      continue;
    }
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      problems.Add(key.source(), table_name, "expected table, got " + std::string(TypeName(node)));
      continue;
    }
    for (const auto& [sub_key, sub_node] : *table) {
      std::string name = table_name + "." + std::string(sub_key.str());
      const KeySpec* key_spec = FindKey(*table_spec, sub_key.str());
      if (key_spec == nullptr) {
        problems.Add(sub_key.source(), name,
                     "unknown key" + SuggestKey(*table_spec, sub_key.str()));
        continue;
      }
      const std::size_t before = problems.size();
      key_spec->read(Field(name, sub_key, sub_node, problems), config);
      if (problems.size() == before) {
        valid.emplace(std::move(name), &sub_key);
      } else if (name == "lsf.load_refresh_s" || name == "lsf.topology_refresh_s") {
        related_key_failed = true;
      }
    }
  }
  if (!related_key_failed) {
    CheckRefreshOrder(config, valid, problems);
  }

  if (problems.size() != 0) {
    return Fail(ErrorCode::kInvalidArgument, problems.Join());
  }
  return config;
}

}  // namespace

Result<Config> ParseConfig(std::string_view text, std::string_view source_name) {
  return ParseTables(text, source_name, {});
}

Result<Config> LoadConfigFile(const std::string& path) {
  auto text = ReadSmallFile(path, kMaxConfigFileBytes);
  if (!text) return tl::unexpected(text.error());
  return ParseConfig(*text, path);
}

Result<rdma::ProbeOptions> LoadProbeOptions(const std::string& path) {
  auto text = ReadSmallFile(path, kMaxConfigFileBytes);
  if (!text) return tl::unexpected(text.error());
  auto config = ParseTables(*text, path, "ib");
  if (!config) return tl::unexpected(config.error());
  return std::move(config->probe);
}

}  // namespace bplace::config
