#pragma once

// Reading the times LSF prints. ParseLsfTime is pure and safe from any
// thread; LocalUtcOffsetMinutes reads the process's time zone (thread-safe:
// it uses localtime_r).

#include <array>
#include <optional>
#include <string_view>

#include "common/clock.h"

namespace bplace::lsf {

// The month names LSF prints (strftime's "%b" in the C locale), January
// first.
inline constexpr std::array<std::string_view, 12> kLsfMonths = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// The weekday names LSF prints ("%a"), in the order of std::chrono::weekday's
// c_encoding (Sunday is 0).
inline constexpr std::array<std::string_view, 7> kLsfWeekdays = {"Sun", "Mon", "Tue", "Wed",
                                                                 "Thu", "Fri", "Sat"};

// Reads a time as bjobs prints it, in the cluster's local time:
//   "Nov 30 11:40"            bjobs table SUBMIT_TIME and `bjobs -o` times
//                             (LSF 10.1 and volclava; strftime "%b %e %H:%M",
//                             so the day may be blank-padded: "Nov  3 11:40")
//   "Mon Nov 30 11:40:47"     bjobs -l (weekday, seconds)
//   "Nov 30 11:40 2026"       any of the above with a year (LSB_DISPLAY_YEAR)
//   "11/30-11:40:47"          volclava's `bjobs -o` START_TIME/FINISH_TIME
// Month and weekday names are English and case-sensitive; blanks between the
// parts may repeat; leading and trailing blanks are ignored. The estimate
// marker of FINISH_TIME (" L") is not part of a time: JobRecord keeps it
// apart.
//
// Without a year, the year chosen is the one that puts the time most recently
// at or before `now`, with one day of slack for clock skew between the
// master and us (so "Jan  1 00:01" read on Dec 31 23:59 is tomorrow, not
// eleven months ago). Feb 29 goes to the latest leap year; a weekday, when
// given, must match the year chosen (up to 28 years back, the cycle of
// weekdays), else the next earlier year that matches is taken. With a year,
// that year is used as given.
//
// `utc_offset_minutes` is the cluster's local time minus UTC (60 for CET,
// -300 for EST); the same offset applies to every time read, so a time from
// the other side of a daylight-saving change comes out one hour off: a
// caller that needs it exact parses once, asks LocalUtcOffsetMinutes of the
// result, and parses again with that offset.
//
// Returns nullopt for anything else: an unknown month or weekday, a day the
// month does not have (Feb 30; Feb 29 given with a year that is not leap), an
// hour above 23, a minute or second above 59, missing or extra parts, an
// offset beyond +-18 hours, or a weekday no year in range matches.
std::optional<SystemTime> ParseLsfTime(std::string_view text, SystemTime now,
                                       int utc_offset_minutes);

// The offset of this process's local time zone from UTC at `at`, in minutes
// (what ParseLsfTime takes), from localtime_r's tm_gmtoff; 0 when the time
// cannot be converted. Reads the TZ environment and /etc/localtime: not pure.
int LocalUtcOffsetMinutes(SystemTime at);

}  // namespace bplace::lsf
