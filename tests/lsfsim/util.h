#pragma once

#include <cstdarg>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace bplace::lsfsim {

// Small string and file helpers shared by the simulator's modules.
// Every function here is thread-compatible: no shared state.

// Formats like printf and returns the text. LSF prints its tables with
// printf widths (`%-15.15s`), so the simulator does the same.
std::string StrPrintf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Splits `text` on runs of blanks (space, tab, newline); never returns empty
// pieces.
std::vector<std::string> SplitWs(std::string_view text);

// Joins `parts` with `sep` between them.
std::string Join(const std::vector<std::string>& parts, std::string_view sep);

// Returns the last path component of `path` ("bqueues" for "/x/bin/bqueues").
std::string BaseName(std::string_view path);

// Escapes `text` for use inside a JSON string literal (quotes not included).
std::string JsonEscape(std::string_view text);

// The error of the simulator's tl::expected<T, std::string> results, for
// `return Error("what went wrong");`.
using Error = tl::unexpected<std::string>;

// Reads a whole file. Returns the errno text with the path on failure.
tl::expected<std::string, std::string> ReadFile(const std::string& path);

// Writes `content` to `path` atomically: a temporary file in the same
// directory, then rename(2) over the target, so a concurrent reader sees the
// old or the new file, never a torn one (no fsync: the state must survive
// concurrent processes, not a power cut). Returns the failing call and errno
// text on failure.
tl::expected<void, std::string> AtomicWriteFile(const std::string& path, std::string_view content);

// Returns true when `path` names an existing regular file.
bool FileExists(const std::string& path);

// Parses a whole string as a non-negative decimal integer; false otherwise.
bool ParseInt(std::string_view text, long long* value);

// Returns the current time in seconds since the epoch, or the value of
// $LSFSIM_NOW when set (tests fix the clock that way).
long long NowSeconds();

// Formats `epoch_seconds` in the local time zone with strftime(3). LSF's
// forms: kCTime ("Sun Nov 30 11:40:00 2025", job reports, configuration
// headers) and kEventTime ("Sun Nov 30 11:40:00: ", bjobs -l and bacct
// event lines).
inline constexpr const char* kCTime = "%a %b %e %H:%M:%S %Y";
inline constexpr const char* kEventTime = "%a %b %e %H:%M:%S: ";
std::string FormatLocalTime(long long epoch_seconds, const char* strftime_format);

// Returns the home directory of `user` from the password database, or ""
// when the user is unknown. Thread-safe (getpwnam_r).
std::string HomeDirectoryOf(const std::string& user);

}  // namespace bplace::lsfsim
