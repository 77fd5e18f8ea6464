#include "tests/lsfsim/hostlist.h"

#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

constexpr size_t kMaxExpandedNames = 100000;

}  // namespace

bool IsRangePattern(std::string_view token) { return token.find('[') != std::string_view::npos; }

std::optional<std::vector<std::string>> ExpandRange(std::string_view pattern) {
  size_t open = pattern.find('[');
  if (open == std::string_view::npos) {
    if (pattern.find(']') != std::string_view::npos || pattern.empty()) return std::nullopt;
    return std::vector<std::string>{std::string(pattern)};
  }
  size_t close = pattern.find(']', open);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view prefix = pattern.substr(0, open);
  std::string_view body = pattern.substr(open + 1, close - open - 1);
  std::string_view rest = pattern.substr(close + 1);
  if (body.empty() || prefix.find(']') != std::string_view::npos) return std::nullopt;
  // The suffix may hold another range (`r[1-2]n[01-04]`); expand it first.
  std::optional<std::vector<std::string>> suffixes =
      rest.empty() ? std::vector<std::string>{""} : ExpandRange(rest);
  if (!suffixes) return std::nullopt;

  std::vector<std::string> middles;
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    std::string_view part = body.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (part.empty()) return std::nullopt;
    size_t dash = part.find('-');
    std::string_view first = part.substr(0, dash);
    std::string_view last = dash == std::string_view::npos ? first : part.substr(dash + 1);
    long long lo = 0;
    long long hi = 0;
    if (!ParseInt(first, &lo) || !ParseInt(last, &hi) || hi < lo) return std::nullopt;
    if (static_cast<size_t>(hi - lo) + middles.size() > kMaxExpandedNames) return std::nullopt;
    int width = first.size() > 1 && first[0] == '0' ? static_cast<int>(first.size()) : 0;
    for (long long v = lo; v <= hi; ++v) {
      middles.push_back(StrPrintf("%0*lld", width, v));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::vector<std::string> out;
  for (const std::string& middle : middles) {
    for (const std::string& suffix : *suffixes) {
      out.push_back(std::string(prefix) + middle + suffix);
      if (out.size() > kMaxExpandedNames) return std::nullopt;
    }
  }
  return out;
}

MemberToken ParseMemberToken(std::string_view token) {
  MemberToken out;
  if (!token.empty() && token[0] == '~') {
    out.excluded = true;
    token.remove_prefix(1);
  }
  // `+N` preference: digits after the last '+'.
  size_t plus = token.rfind('+');
  if (plus != std::string_view::npos && plus > 0) {
    long long pref = 0;
    if (ParseInt(token.substr(plus + 1), &pref)) {
      out.preference = static_cast<int>(pref);
      token = token.substr(0, plus);
    }
  }
  if (token.size() > 1 && token.back() == '/') {
    out.group_marker = true;
    token.remove_suffix(1);
  }
  out.remote = token == "allremote" || token.find('@') != std::string_view::npos;
  out.name = std::string(token);
  return out;
}

}  // namespace bplace::lsfsim
