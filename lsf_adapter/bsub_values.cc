#include "lsf_adapter/bsub_values.h"

#include <string>
#include <vector>

#include "common/text.h"

namespace bplace::lsf {
namespace {

// Where a bracket or quote of a resource requirement opened.
struct Opening {
  char symbol;
  std::size_t position;  // 1-based, as the message shows it
};

char Closer(char opener) {
  switch (opener) {
    case '[':
      return ']';
    case '(':
      return ')';
    default:
      return '}';
  }
}

std::optional<std::int64_t> ReadIndex(std::string_view s) {
  if (!AllDigits(s) || s.size() > 10) return std::nullopt;
  const std::int64_t n = std::stoll(std::string(s));
  if (n < 1 || n > kMaxArrayIndex) return std::nullopt;
  return n;
}

}  // namespace

bool IsRunLimit(std::string_view value) {
  const auto colon = value.find(':');
  if (colon == std::string_view::npos) return AllDigits(value) && value.size() <= 9;
  const std::string_view hours = value.substr(0, colon);
  const std::string_view minutes = value.substr(colon + 1);
  return AllDigits(hours) && hours.size() <= 7 && AllDigits(minutes) && minutes.size() <= 2 &&
         std::stoi(std::string(minutes)) < 60;
}

bool IsMemoryLimit(std::string_view value) {
  std::size_t digits = 0;
  while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') ++digits;
  if (digits == 0) return false;
  std::string_view unit = value.substr(digits);
  if (unit.empty()) return true;
  if (unit.size() == 2 && (unit[1] == 'B' || unit[1] == 'b')) unit.remove_suffix(1);
  return unit.size() == 1 &&
         std::string_view("KMGTPEkmgtpe").find(unit[0]) != std::string_view::npos;
}

std::optional<std::string> ResReqBracketProblem(std::string_view res_req) {
  std::vector<Opening> open;
  std::optional<Opening> quote;
  for (std::size_t i = 0; i < res_req.size(); ++i) {
    const char c = res_req[i];
    const std::size_t position = i + 1;
    if (quote) {
      if (c == quote->symbol) quote.reset();
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = Opening{c, position};
    } else if (c == '[' || c == '(' || c == '{') {
      open.push_back({c, position});
    } else if (c == ']' || c == ')' || c == '}') {
      if (open.empty()) {
        return "'" + std::string(1, c) + "' at position " + std::to_string(position) +
               " closes no bracket";
      }
      if (Closer(open.back().symbol) != c) {
        return "'" + std::string(1, c) + "' at position " + std::to_string(position) +
               " does not close '" + std::string(1, open.back().symbol) + "' at position " +
               std::to_string(open.back().position);
      }
      open.pop_back();
    }
  }
  if (quote) {
    return "the quote (" + std::string(1, quote->symbol) + ") at position " +
           std::to_string(quote->position) + " is never closed";
  }
  if (!open.empty()) {
    return "'" + std::string(1, open.back().symbol) + "' at position " +
           std::to_string(open.back().position) + " is never closed";
  }
  return std::nullopt;
}

std::optional<ArrayIndexItem> ParseArrayIndexItem(std::string_view item) {
  ArrayIndexItem parsed;
  const std::size_t colon = item.find(':');
  if (colon != std::string_view::npos) {
    const auto step = ReadIndex(item.substr(colon + 1));
    if (!step) return std::nullopt;
    parsed.step = *step;
    item = item.substr(0, colon);
  }
  const std::size_t dash = item.find('-');
  const auto start = ReadIndex(item.substr(0, dash));
  if (!start) return std::nullopt;
  parsed.start = parsed.end = *start;
  if (dash != std::string_view::npos) {
    const auto end = ReadIndex(item.substr(dash + 1));
    if (!end || *end < *start) return std::nullopt;
    parsed.end = *end;
  } else if (colon != std::string_view::npos) {
    return std::nullopt;  // a step needs a range
  }
  return parsed;
}

}  // namespace bplace::lsf
