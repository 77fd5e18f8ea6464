#include "bench/swf.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "common/text.h"

namespace bplace::bench {
namespace {

constexpr int kSwfFields = 18;

// One SWF number: an integer, or a decimal whose fraction is cut.
bool ParseField(std::string_view token, std::int64_t& out) {
  const auto dot = token.find('.');
  const std::string_view whole = token.substr(0, dot);
  const auto [end, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), out);
  if (ec != std::errc() || end != whole.data() + whole.size() || whole.empty()) return false;
  if (dot == std::string_view::npos) return true;
  const std::string_view fraction = token.substr(dot + 1);
  return std::all_of(fraction.begin(), fraction.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> Tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

void ReadHeaderLine(std::string_view line, SwfTrace& trace) {
  line.remove_prefix(1);  // ';'
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const std::string name(Trim(line.substr(0, colon)));
  if (name.empty() || name.find(' ') != std::string::npos) return;  // prose, not a field
  trace.header.emplace_back(name, std::string(Trim(line.substr(colon + 1))));
}

}  // namespace

std::int64_t SwfJob::Slots() const {
  return std::max<std::int64_t>(procs > 0 ? procs : requested_procs, 1);
}

std::string SwfTrace::HeaderValue(std::string_view name) const {
  for (const auto& [field, value] : header) {
    if (field == name) return value;
  }
  return "";
}

std::int64_t SwfTrace::MachineSize() const {
  for (const char* name : {"MaxProcs", "MaxNodes"}) {
    std::int64_t value = 0;
    if (ParseField(HeaderValue(name), value) && value > 0) return value;
  }
  return 0;
}

std::map<std::int64_t, std::string> SwfTrace::QueueNames() const {
  std::map<std::int64_t, std::string> names;
  for (const auto& [field, value] : header) {
    if (field != "Queue") continue;
    const auto tokens = Tokens(value);
    std::int64_t number = 0;
    if (tokens.size() >= 2 && ParseField(tokens[0], number)) names[number] = std::string(tokens[1]);
  }
  return names;
}

Result<SwfTrace> ParseSwf(std::string_view text) {
  SwfTrace trace;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_no;
    const std::string_view trimmed = Trim(line);
    if (trimmed.empty()) continue;
    if (trimmed.front() == ';') {
      ReadHeaderLine(trimmed, trace);
      continue;
    }
    const auto tokens = Tokens(trimmed);
    if (tokens.size() < kSwfFields) {
      return Fail(ErrorCode::kParseError, "SWF line " + std::to_string(line_no) + ": " +
                                              std::to_string(tokens.size()) +
                                              " fields, SWF has 18");
    }
    std::int64_t f[kSwfFields];
    for (int i = 0; i < kSwfFields; ++i) {
      if (!ParseField(tokens[i], f[i])) {
        return Fail(ErrorCode::kParseError, "SWF line " + std::to_string(line_no) + ": field " +
                                                std::to_string(i + 1) + " is not a number: '" +
                                                std::string(tokens[i]) + "'");
      }
    }
    trace.jobs.push_back(
        SwfJob{f[0], f[1], f[2], f[3], f[4], f[7], f[8], f[10], f[11], f[14], f[15]});
  }
  return trace;
}

std::string FormatSwf(const SwfTrace& trace) {
  std::string out;
  for (const auto& [name, value] : trace.header) out += "; " + name + ": " + value + "\n";
  char line[256];
  for (const SwfJob& j : trace.jobs) {
    std::snprintf(line, sizeof line,
                  "%lld %lld %lld %lld %lld -1 -1 %lld %lld -1 %lld %lld -1 -1 %lld %lld -1 -1\n",
                  static_cast<long long>(j.id), static_cast<long long>(j.submit_s),
                  static_cast<long long>(j.wait_s), static_cast<long long>(j.run_s),
                  static_cast<long long>(j.procs), static_cast<long long>(j.requested_procs),
                  static_cast<long long>(j.requested_time_s), static_cast<long long>(j.status),
                  static_cast<long long>(j.user), static_cast<long long>(j.queue),
                  static_cast<long long>(j.partition));
    out += line;
  }
  return out;
}

}  // namespace bplace::bench
