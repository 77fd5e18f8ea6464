#include "lsf_adapter/lsload_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <string>
#include <system_error>

#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kLsloadCommand = "lsload -w -I";

Result<std::optional<double>> ParseValue(const Place& where, std::string_view column,
                                         std::string_view value) {
  // '*' marks a value over the host's threshold; the number itself is whole.
  if (!value.empty() && value.front() == '*') value.remove_prefix(1);
  if (value == "-") return std::optional<double>();
  double number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() ||
      !std::isfinite(number)) {
    return Fail(ErrorCode::kParseError, where.Text() + ": " + std::string(column) + " is " +
                                            QuoteForMessage(value) + ", not a number");
  }
  return std::optional<double>(number);
}

}  // namespace

Result<std::vector<LoadIndexValue>> ParseLsload(std::string_view text,
                                                std::string_view index_name) {
  const std::vector<Line> lines = SplitLines(text);
  auto header =
      FindTableHeader(kLsloadCommand, lines, "HOST_NAME", {"HOST_NAME", "status", index_name});
  if (!header) return tl::unexpected(header.error());
  const std::size_t name_at = *header->Find("HOST_NAME");
  const std::size_t status_at = *header->Find("status");
  const std::size_t value_at = *header->Find(index_name);
  // A row this short has a host and a status and nothing else.
  const std::size_t min_fields = std::max(name_at, status_at) + 1;

  std::vector<LoadIndexValue> values;
  for (std::size_t i = header->position + 1; i < lines.size(); ++i) {
    const std::vector<std::string_view> fields = SplitFields(lines[i].text);
    if (fields.empty()) continue;
    const Place where{kLsloadCommand, lines[i].number};
    // Blank load columns leave no token, so a row either has every column or
    // stops after the status; anything in between cannot be matched to names.
    if (fields.size() != header->columns.size() && fields.size() != min_fields) {
      return Fail(ErrorCode::kParseError,
                  where.Text() + ": expected " + std::to_string(header->columns.size()) +
                      " columns (or " + std::to_string(min_fields) +
                      " for a host without load), got " + std::to_string(fields.size()));
    }
    LoadIndexValue value;
    value.host = std::string(fields[name_at]);
    value.status = std::string(fields[status_at]);
    if (value_at < fields.size()) {
      auto parsed = ParseValue(where, index_name, fields[value_at]);
      if (!parsed) return tl::unexpected(parsed.error());
      value.value = *parsed;
    }
    values.push_back(std::move(value));
  }
  return values;
}

}  // namespace bplace::lsf
