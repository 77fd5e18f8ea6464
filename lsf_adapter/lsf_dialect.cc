#include "lsf_adapter/lsf_dialect.h"

#include <array>
#include <cctype>
#include <cmath>
#include <optional>

#include "common/text.h"

namespace bplace::lsf {
namespace {

constexpr std::array<std::string_view, 7> kUnitNames = {"KB", "MB", "GB", "TB", "PB", "EB", "ZB"};

char Upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (Upper(text[i]) != Upper(prefix[i])) return false;
  }
  return true;
}

// "K", "KB", "k", "kb" ... "ZB" as a unit; nullopt for anything else.
std::optional<MemoryUnit> UnitOf(std::string_view letters) {
  if (letters.empty() || letters.size() > 2) return std::nullopt;
  if (letters.size() == 2 && Upper(letters[1]) != 'B') return std::nullopt;
  for (std::size_t i = 0; i < kUnitNames.size(); ++i) {
    if (Upper(letters[0]) == kUnitNames[i][0]) return static_cast<MemoryUnit>(i);
  }
  return std::nullopt;
}

Error BadAmount(std::string_view value, std::string_view why) {
  return Error{ErrorCode::kInvalidArgument,
               "memory amount '" + std::string(value) + "': " + std::string(why)};
}

}  // namespace

LsfFamily FamilyOfLsidVersion(std::string_view version) {
  version = Trim(version);
  return StartsWithNoCase(version, "openlava") || StartsWithNoCase(version, "volclava")
             ? LsfFamily::kOpenlava
             : LsfFamily::kIbmLsf;
}

std::string_view MemoryUnitName(MemoryUnit unit) {
  return kUnitNames[static_cast<std::size_t>(unit)];
}

Result<LimitUnits> LimitUnitsFromLsfConf(std::string_view lsf_conf) {
  LimitUnits units;
  while (!lsf_conf.empty()) {
    const std::size_t end = lsf_conf.find('\n');
    std::string_view line = Trim(lsf_conf.substr(0, end));
    lsf_conf.remove_prefix(end == std::string_view::npos ? lsf_conf.size() : end + 1);
    if (line.empty() || line.front() == '#') continue;
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    if (Trim(line.substr(0, equals)) != "LSF_UNIT_FOR_LIMITS") continue;
    std::string_view value = Trim(line.substr(equals + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = Trim(value.substr(1, value.size() - 2));
    }
    const auto unit = value.size() == 2 ? UnitOf(value) : std::nullopt;
    if (!unit) {
      return tl::unexpected(
          Error{ErrorCode::kParseError, "lsf.conf: LSF_UNIT_FOR_LIMITS=" + std::string(value) +
                                            " is not one of KB MB GB TB PB EB ZB"});
    }
    units.limits = *unit;
    units.resources = *unit;
    units.from_lsf_conf = true;
  }
  return units;
}

Result<std::int64_t> MemoryInUnit(std::string_view value, MemoryUnit bare_unit, MemoryUnit to) {
  std::size_t digits = 0;
  bool point = false;
  while (digits < value.size() && (IsDigit(value[digits]) || (value[digits] == '.' && !point))) {
    point = point || value[digits] == '.';
    ++digits;
  }
  const std::string number(value.substr(0, digits));
  if (number.empty() || number == ".") return tl::unexpected(BadAmount(value, "not a number"));
  MemoryUnit from = bare_unit;
  if (digits < value.size()) {
    const auto unit = UnitOf(value.substr(digits));
    if (!unit) return tl::unexpected(BadAmount(value, "the unit is not one of K M G T P E Z[B]"));
    from = *unit;
  }
  const int shift = static_cast<int>(from) - static_cast<int>(to);
  const long double amount = std::ceil(std::stold(number) * std::pow(1024.0L, shift));
  if (amount <= 0) return tl::unexpected(BadAmount(value, "not a positive amount"));
  if (amount >= 9.2e18L) return tl::unexpected(BadAmount(value, "too large"));
  return static_cast<std::int64_t>(amount);
}

Result<std::string> ResReqMemoryInUnit(std::string_view res_req, MemoryUnit to) {
  static constexpr std::array<std::string_view, 4> kMemoryNames = {"mem", "swp", "swap", "tmp"};
  std::string out;
  std::size_t i = 0;
  while (i < res_req.size()) {
    std::size_t name_end = i;
    while (name_end < res_req.size() && IsNameChar(res_req[name_end])) ++name_end;
    if (name_end == i) {
      out += res_req[i++];
      continue;
    }
    const std::string_view name = res_req.substr(i, name_end - i);
    out += name;
    i = name_end;
    bool memory = false;
    for (std::string_view known : kMemoryNames) memory = memory || name == known;
    if (!memory) continue;
    // The comparison or assignment after the name, then its value.
    std::size_t j = i;
    while (j < res_req.size() && (res_req[j] == ' ' || std::string_view("=<>!").find(res_req[j]) !=
                                                           std::string_view::npos)) {
      ++j;
    }
    if (j == i || j >= res_req.size() || !(IsDigit(res_req[j]) || res_req[j] == '.')) continue;
    std::size_t k = j;
    while (k < res_req.size() && (IsDigit(res_req[k]) || res_req[k] == '.')) ++k;
    std::size_t unit_end = k;
    while (unit_end < res_req.size() &&
           std::isalpha(static_cast<unsigned char>(res_req[unit_end]))) {
      ++unit_end;
    }
    out += res_req.substr(i, j - i);
    if (unit_end == k) {
      i = j;  // a bare value: in the cluster's unit already
      continue;
    }
    auto converted = MemoryInUnit(res_req.substr(j, unit_end - j), to, to);
    if (!converted) {
      return tl::unexpected(Error{ErrorCode::kInvalidArgument,
                                  "-R " + std::string(res_req) + ": " + converted.error().message});
    }
    out += std::to_string(*converted);
    i = unit_end;
  }
  return out;
}

}  // namespace bplace::lsf
