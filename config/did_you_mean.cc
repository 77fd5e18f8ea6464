// "Did you mean" for unknown tables and keys (config/did_you_mean.h).
#include "config/did_you_mean.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace bplace::config {
namespace {

// Edit distance counting a swap of neighbours as one edit (optimal string
// alignment), so the common typo "laod" is one edit from "load".
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

constexpr std::size_t kMaxSuggestionDistance = 2;

// "; did you mean `x`?" for the closest candidate within two edits, else "".
std::string SuggestAmong(std::string_view name, std::span<const std::string_view> candidates,
                         std::string_view prefix = {}, std::string_view suffix = {}) {
  std::optional<std::string_view> best;
  std::size_t best_distance = kMaxSuggestionDistance + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = EditDistance(name, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best) return "";
  return "; did you mean `" + std::string(prefix) + std::string(*best) + std::string(suffix) + "`?";
}

}  // namespace

std::string SuggestOtherTable(std::string_view name, const TableSpec* except) {
  for (const TableSpec& table : SchemaTables()) {
    if (&table == except) continue;
    if (FindKey(table, name) != nullptr) {
      return "; did you mean `" + std::string(table.name) + "." + std::string(name) + "` (under [" +
             std::string(table.name) + "])?";
    }
  }
  return "";
}

std::string SuggestKey(const TableSpec& table, std::string_view name) {
  std::vector<std::string_view> names;
  for (const KeySpec& key : table.keys) names.push_back(key.name);
  std::string suggestion = SuggestAmong(name, names);
  return suggestion.empty() ? SuggestOtherTable(name, &table) : suggestion;
}

std::string SuggestTable(std::string_view name) {
  std::vector<std::string_view> names;
  for (const TableSpec& table : SchemaTables()) names.push_back(table.name);
  return SuggestAmong(name, names, "[", "]");
}

}  // namespace bplace::config
