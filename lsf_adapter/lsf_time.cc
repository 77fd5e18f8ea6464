#include "lsf_adapter/lsf_time.h"

#include <time.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string_view>

#include "lsf_adapter/table.h"

namespace bplace::lsf {
namespace {

constexpr int kMaxOffsetMinutes = 18 * 60;
// Weekdays repeat every 28 years between 1901 and 2099: any weekday a date
// can have is found within that many years back.
constexpr int kYearsBack = 28;
constexpr std::chrono::hours kSkewSlack{24};

// A time as printed, before a year is chosen.
struct LocalFields {
  std::optional<int> year;
  unsigned month = 0;  // 1..12
  unsigned day = 0;    // 1..31, checked against the month with the year
  int hour = 0;
  int minute = 0;
  int second = 0;
  std::optional<unsigned> weekday;  // c_encoding
};

// Reads `text` as a number of min..max digits; nullopt otherwise.
std::optional<int> Digits(std::string_view text, std::size_t min, std::size_t max) {
  if (text.size() < min || text.size() > max) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

template <std::size_t N>
std::optional<unsigned> IndexOf(const std::array<std::string_view, N>& names,
                                std::string_view word) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == word) return static_cast<unsigned>(i);
  }
  return std::nullopt;
}

// "11:40" or "11:40:47" into `fields`; false when it is neither.
bool ReadClock(std::string_view text, LocalFields& fields) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  const auto hour = Digits(text.substr(0, colon), 1, 2);
  std::string_view rest = text.substr(colon + 1);
  const std::size_t second_colon = rest.find(':');
  const auto minute = Digits(rest.substr(0, second_colon), 2, 2);
  std::optional<int> second = 0;
  if (second_colon != std::string_view::npos) {
    second = Digits(rest.substr(second_colon + 1), 2, 2);
  }
  if (!hour || !minute || !second || *hour > 23 || *minute > 59 || *second > 59) return false;
  fields.hour = *hour;
  fields.minute = *minute;
  fields.second = *second;
  return true;
}

// volclava's Time2String: "MM/DD-HH:MM:SS".
std::optional<LocalFields> ReadNumericDate(std::string_view text) {
  const std::size_t slash = text.find('/');
  const std::size_t dash = text.find('-');
  if (slash == std::string_view::npos || dash == std::string_view::npos || dash < slash) {
    return std::nullopt;
  }
  LocalFields fields;
  const auto month = Digits(text.substr(0, slash), 1, 2);
  const auto day = Digits(text.substr(slash + 1, dash - slash - 1), 1, 2);
  if (!month || !day || !ReadClock(text.substr(dash + 1), fields)) return std::nullopt;
  fields.month = static_cast<unsigned>(*month);
  fields.day = static_cast<unsigned>(*day);
  return fields;
}

// The blank-separated words of a time: at most kMaxWords ("Www Mon DD
// HH:MM:SS YYYY"), without a heap allocation (three times are read per job
// at every jobs refresh).
constexpr std::size_t kMaxWords = 5;
struct Words {
  std::array<std::string_view, kMaxWords> words;
  std::size_t first = 0;  // words before it are consumed
  std::size_t end = 0;

  std::size_t size() const { return end - first; }
  std::string_view front() const { return words[first]; }
  std::string_view back() const { return words[end - 1]; }
  std::string_view operator[](std::size_t i) const { return words[first + i]; }
};

// The words of `text`, or nullopt when it has more than kMaxWords (no time
// has).
std::optional<Words> SplitTime(std::string_view text) {
  Words split;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsBlank(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !IsBlank(text[i])) ++i;
    if (i == start) break;
    if (split.end == kMaxWords) return std::nullopt;
    split.words[split.end++] = text.substr(start, i - start);
  }
  return split;
}

// "[Www] Mon DD HH:MM[:SS] [YYYY]", already split into words.
std::optional<LocalFields> ReadWords(Words words) {
  LocalFields fields;
  if (words.size() >= 4) {
    if (const auto weekday = IndexOf(kLsfWeekdays, words.front())) {
      fields.weekday = *weekday;
      ++words.first;
    }
  }
  if (words.size() == 4) {
    fields.year = Digits(words.back(), 4, 4);
    if (!fields.year) return std::nullopt;
    --words.end;
  }
  if (words.size() != 3) return std::nullopt;
  const auto month = IndexOf(kLsfMonths, words[0]);
  const auto day = Digits(words[1], 1, 2);
  if (!month || !day || !ReadClock(words[2], fields)) return std::nullopt;
  fields.month = *month + 1;
  fields.day = static_cast<unsigned>(*day);
  return fields;
}

std::optional<LocalFields> ReadFields(std::string_view text) {
  const std::optional<Words> words = SplitTime(text);
  if (!words) return std::nullopt;
  if (words->size() == 1) return ReadNumericDate(words->front());
  return ReadWords(*words);
}

// The UTC time of `fields` in year `year`, or nullopt when that year has no
// such date or it falls on another weekday.
std::optional<SystemTime> InYear(const LocalFields& fields, int year, std::chrono::minutes offset) {
  const std::chrono::year_month_day date{std::chrono::year{year}, std::chrono::month{fields.month},
                                         std::chrono::day{fields.day}};
  if (!date.ok()) return std::nullopt;
  const std::chrono::sys_days midnight{date};
  if (fields.weekday && std::chrono::weekday{midnight}.c_encoding() != *fields.weekday) {
    return std::nullopt;
  }
  return SystemTime{midnight + std::chrono::hours{fields.hour} +
                    std::chrono::minutes{fields.minute} + std::chrono::seconds{fields.second} -
                    offset};
}

}  // namespace

std::optional<SystemTime> ParseLsfTime(std::string_view text, SystemTime now,
                                       int utc_offset_minutes) {
  if (utc_offset_minutes > kMaxOffsetMinutes || utc_offset_minutes < -kMaxOffsetMinutes) {
    return std::nullopt;
  }
  const std::optional<LocalFields> fields = ReadFields(text);
  if (!fields) return std::nullopt;
  const std::chrono::minutes offset{utc_offset_minutes};
  if (fields->year) return InYear(*fields, *fields->year, offset);

  const std::chrono::year_month_day today{std::chrono::floor<std::chrono::days>(now + offset)};
  const int this_year = static_cast<int>(today.year());
  for (int year = this_year + 1; year >= this_year - kYearsBack; --year) {
    const std::optional<SystemTime> time = InYear(*fields, year, offset);
    if (time && *time <= now + kSkewSlack) return time;
  }
  return std::nullopt;
}

int LocalUtcOffsetMinutes(SystemTime at) {
  const time_t seconds_since_epoch = std::chrono::system_clock::to_time_t(at);
  struct tm local {};
  if (localtime_r(&seconds_since_epoch, &local) == nullptr) return 0;
  return static_cast<int>(local.tm_gmtoff / 60);
}

}  // namespace bplace::lsf
