#include "lsf_adapter/table.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <system_error>

namespace bplace::lsf {

std::vector<Line> SplitLines(std::string_view text) {
  std::vector<Line> lines;
  lines.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
    lines.push_back(Line{++number, line});
  }
  return lines;
}

std::string Place::Text() const {
  std::string text(command);
  text += ' ';
  text += unit;
  text += ' ';
  text += std::to_string(number);
  return text;
}

std::string Where(std::string_view command, std::size_t line_number) {
  return Place{command, line_number}.Text();
}

std::optional<std::size_t> TableHeader::Find(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  return std::nullopt;
}

Result<TableHeader> FindTableHeader(std::string_view command, const std::vector<Line>& lines,
                                    std::string_view key_column,
                                    std::initializer_list<std::string_view> required) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    TableHeader header{i, lines[i].number, SplitFields(lines[i].text)};
    if (!header.Find(key_column)) continue;
    for (std::string_view column : required) {
      if (!header.Find(column)) {
        return Fail(ErrorCode::kParseError, Where(command, header.line_number) +
                                                ": header has no " + std::string(column) +
                                                " column");
      }
    }
    return header;
  }
  return Fail(ErrorCode::kParseError,
              std::string(command) + ": no header (no line with " + std::string(key_column) + ")");
}

Result<std::vector<std::string_view>> RowCells(std::string_view command, const TableHeader& header,
                                               const Line& line) {
  std::vector<std::string_view> fields = SplitFields(line.text);
  if (!fields.empty() && fields.size() != header.columns.size()) {
    return Fail(ErrorCode::kParseError, Where(command, line.number) + ": expected " +
                                            std::to_string(header.columns.size()) +
                                            " columns, got " + std::to_string(fields.size()));
  }
  return fields;
}

std::string QuoteForMessage(std::string_view value, std::size_t max_shown) {
  std::string quoted = "\"";
  quoted += value.substr(0, max_shown);
  if (value.size() > max_shown) quoted += "...";
  quoted += "\"";
  return quoted;
}

Result<std::int64_t> ParseCount(const Place& where, std::string_view column,
                                std::string_view value) {
  std::int64_t number = 0;
  const char* first = value.data();
  const char* last = value.data() + value.size();
  // from_chars accepts a leading '-' but not '+', and never skips blanks.
  const auto [end, ec] = std::from_chars(first, last, number);
  if (value.empty() || ec != std::errc() || end != last) {
    return Fail(ErrorCode::kParseError, where.Text() + ": " + std::string(column) + " is " +
                                            QuoteForMessage(value) + ", not a whole number");
  }
  return number;
}

Result<std::optional<std::int64_t>> ParseLimit(const Place& where, std::string_view column,
                                               std::string_view value) {
  if (value == "-") return std::optional<std::int64_t>();
  auto number = ParseCount(where, column, value);
  if (!number) return tl::unexpected(number.error());
  return std::optional<std::int64_t>(*number);
}

Result<int> ParseSmallInt(const Place& where, std::string_view column, std::string_view value) {
  auto number = ParseCount(where, column, value);
  if (!number) return tl::unexpected(number.error());
  if (*number < std::numeric_limits<int>::min() || *number > std::numeric_limits<int>::max()) {
    return Fail(ErrorCode::kParseError,
                where.Text() + ": " + std::string(column) + " is out of range");
  }
  return static_cast<int>(*number);
}

bool IsAllSentence(const std::vector<std::string_view>& tokens) {
  if (tokens.empty() || tokens.front() != "all") return false;
  static constexpr std::string_view kSentenceWords[] = {
      "users", "hosts", "used", "by", "the", "LSF", "lsf", "Batch", "batch", "system", "System"};
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    bool known = false;
    for (std::string_view word : kSentenceWords) known = known || tokens[i] == word;
    if (!known) return false;
  }
  return true;
}

}  // namespace bplace::lsf
