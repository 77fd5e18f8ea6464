#include "lsf_adapter/group_parser.h"

#include <charconv>
#include <cstdint>
#include <system_error>

#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kNoSuchGroup = "No such user/host group";
constexpr std::size_t kMaxBoundDigits = 9;
// Most members one parse may produce, all groups together: far above any real
// cluster, low enough that garbage full of ranges cannot exhaust memory.
constexpr std::size_t kMaxTotalMembers = 10 * kMaxExpandedHosts;

// One item of a bracket list: "7", "001-128".
struct RangeItem {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  std::size_t width = 0;  // zero-pad to this many digits; 0 for none
};

// A piece of a condensed name: literal text, or a bracket list.
struct Piece {
  std::string literal;
  std::vector<RangeItem> items;
  bool is_list = false;
  std::size_t count = 0;  // names the list stands for
};

tl::unexpected<Error> RangeError(std::string_view name, const std::string& problem) {
  return Fail(ErrorCode::kInvalidArgument,
              "host range " + QuoteForMessage(name, 60) + ": " + problem);
}

Result<std::uint64_t> ReadBound(std::string_view name, std::string_view digits) {
  if (digits.empty()) return RangeError(name, "empty number in brackets");
  if (digits.size() > kMaxBoundDigits) return RangeError(name, "number too long");
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return RangeError(name, "\"" + std::string(digits) + "\" is not a number");
  }
  return value;
}

// "0012" sets a width of 4; "12" and "0" set none.
std::size_t PadWidth(std::string_view digits) {
  return digits.size() > 1 && digits.front() == '0' ? digits.size() : 0;
}

Result<std::vector<RangeItem>> ReadList(std::string_view name, std::string_view list) {
  std::vector<RangeItem> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    const std::string_view item = list.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty()) return RangeError(name, "empty item in brackets");
    const std::size_t dash = item.find('-');
    const std::string_view low_text = item.substr(0, dash);
    const std::string_view high_text =
        dash == std::string_view::npos ? low_text : item.substr(dash + 1);
    auto low = ReadBound(name, low_text);
    if (!low) return tl::unexpected(low.error());
    auto high = ReadBound(name, high_text);
    if (!high) return tl::unexpected(high.error());
    if (*high < *low) return RangeError(name, "range " + std::string(item) + " is reversed");
    std::size_t width = PadWidth(low_text);
    if (width == 0) width = PadWidth(high_text);
    items.push_back(RangeItem{*low, *high, width});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

std::string Format(std::uint64_t value, std::size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

}  // namespace

Result<std::vector<std::string>> ExpandHostRange(std::string_view name) {
  if (name.empty()) return Fail(ErrorCode::kInvalidArgument, "host range: empty name");
  std::vector<Piece> pieces;
  std::uint64_t total = 1;
  std::size_t pos = 0;
  while (pos < name.size()) {
    const std::size_t open = name.find_first_of("[]", pos);
    if (open == std::string_view::npos) {
      pieces.push_back(Piece{std::string(name.substr(pos)), {}, false, 0});
      break;
    }
    if (name[open] == ']') return RangeError(name, "']' without '['");
    if (open > pos) {
      pieces.push_back(Piece{std::string(name.substr(pos, open - pos)), {}, false, 0});
    }
    const std::size_t close = name.find_first_of("[]", open + 1);
    if (close == std::string_view::npos || name[close] != ']') {
      return RangeError(name, close == std::string_view::npos ? "'[' without ']'" : "nested '['");
    }
    const std::string_view list = name.substr(open + 1, close - open - 1);
    if (list.empty()) return RangeError(name, "empty brackets");
    auto items = ReadList(name, list);
    if (!items) return tl::unexpected(items.error());
    std::uint64_t count = 0;
    for (const RangeItem& item : *items) {
      // Bounds have at most 9 digits, so neither this nor the product below
      // can overflow before the limit check stops it.
      count += item.high - item.low + 1;
      if (count > kMaxExpandedHosts) break;
    }
    total *= count;
    if (total > kMaxExpandedHosts) {
      return RangeError(name,
                        "expands to more than " + std::to_string(kMaxExpandedHosts) + " names");
    }
    pieces.push_back(Piece{{}, std::move(*items), true, static_cast<std::size_t>(count)});
    pos = close + 1;
  }

  std::vector<std::string> names{""};
  for (const Piece& piece : pieces) {
    if (!piece.is_list) {
      for (std::string& partial : names) partial += piece.literal;
      continue;
    }
    std::vector<std::string> next;
    next.reserve(names.size() * piece.count);
    for (const std::string& partial : names) {
      for (const RangeItem& item : piece.items) {
        for (std::uint64_t n = item.low; n <= item.high; ++n) {
          next.push_back(partial + Format(n, item.width));
        }
      }
    }
    names = std::move(next);
  }
  return names;
}

namespace {

struct GroupFormat {
  std::string_view command;
  std::string_view member_column;
  bool expand_ranges;
};

// Drops a trailing "( admin ... )" column from a row's member fields.
Result<std::vector<std::string_view>> WithoutAdminColumn(std::vector<std::string_view> fields,
                                                         const Place& where) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].front() != '(') continue;
    if (fields.back().back() != ')') {
      return Fail(ErrorCode::kParseError, where.Text() + ": '(' of the admin column is not closed");
    }
    fields.resize(i);
    return fields;
  }
  for (std::string_view field : fields) {
    if (field.find_first_of("()") != std::string_view::npos) {
      return Fail(ErrorCode::kParseError, where.Text() + ": ')' without '(' in the admin column");
    }
  }
  return fields;
}

Result<std::vector<Group>> ParseGroups(std::string_view text, const GroupFormat& format) {
  const std::vector<Line> lines = SplitLines(text);
  for (const Line& line : lines) {
    if (line.text.find(kNoSuchGroup) != std::string_view::npos) {
      return Fail(ErrorCode::kNotFound, std::string(Trim(line.text).substr(0, 200)));
    }
  }
  auto header = FindTableHeader(format.command, lines, "GROUP_NAME", {format.member_column});
  if (!header) return tl::unexpected(header.error());

  std::vector<Group> groups;
  std::size_t total_members = 0;
  for (std::size_t i = header->position + 1; i < lines.size(); ++i) {
    std::vector<std::string_view> fields = SplitFields(lines[i].text);
    if (fields.empty()) continue;
    const Place where{format.command, lines[i].number};
    // LSF prints one row per group; an indented line can only be the rest of
    // the previous row's member list.
    const bool continuation = IsBlank(lines[i].text.front());
    if (continuation && groups.empty()) {
      return Fail(ErrorCode::kParseError, where.Text() + ": row has no group name");
    }
    if (!continuation) {
      groups.push_back(Group{std::string(fields.front()), false, {}});
      fields.erase(fields.begin());
    }
    auto members = WithoutAdminColumn(std::move(fields), where);
    if (!members) return tl::unexpected(members.error());
    Group& group = groups.back();
    for (std::string_view member : *members) {
      if (format.expand_ranges && member.find_first_of("[]") != std::string_view::npos) {
        auto names = ExpandHostRange(member);
        if (!names) {
          return Fail(ErrorCode::kParseError, where.Text() + ": " + names.error().message);
        }
        total_members += names->size();
        group.members.insert(group.members.end(), names->begin(), names->end());
      } else {
        ++total_members;
        group.members.emplace_back(member);
      }
      if (total_members > kMaxTotalMembers) {
        return Fail(
            ErrorCode::kParseError,
            where.Text() + ": more than " + std::to_string(kMaxTotalMembers) + " members in all");
      }
    }
  }

  for (Group& group : groups) {
    if (group.members.empty() || group.members.front() != "all") continue;
    group.all = true;
    const std::vector<std::string_view> words(group.members.begin(), group.members.end());
    if (IsAllSentence(words)) {
      group.members.clear();
    } else {
      group.members.erase(group.members.begin());
    }
  }
  return groups;
}

}  // namespace

Result<std::vector<Group>> ParseBmgroup(std::string_view text) {
  return ParseGroups(text, GroupFormat{"bmgroup -w", "HOSTS", true});
}

Result<std::vector<Group>> ParseBugroup(std::string_view text) {
  return ParseGroups(text, GroupFormat{"bugroup -w", "USERS", false});
}

}  // namespace bplace::lsf
