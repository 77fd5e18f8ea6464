#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// Helpers shared by the LSF command implementations. Not part of the
// simulator's interface.

// Mutable state read under the lock.
struct LoadedState {
  Overrides overrides;
  JobTable jobs;
};

// Loads overrides and jobs; the caller holds the StateLock.
tl::expected<LoadedState, std::string> LoadState(const StateDir& state);

// The result for an internal failure (corrupt state file, lock failure):
// the message on stderr, exit status 255.
CommandResult InternalError(const std::string& message);

// A result with `message` + "\n" on stderr and exit status 255.
CommandResult Fail(const std::string& message);

// Version banner LSF commands print for -V (and lsid prints first); the
// OpenLava dialect's is volclava's one line.
std::string VersionBanner(Dialect dialect = Dialect::kLsf);

// Matches LSF's -J / -Jd patterns (bjobs, bkill): '*' stands for any run
// of characters, nothing else is special.
bool GlobMatch(std::string_view pattern, std::string_view text);

// Returns the value of option `flag` at args[*i] (either the next argument
// or, for single-letter options, glued like `-uUSER`), advancing *i. Returns
// nullopt when args[*i] is not `flag`; sets *missing when the value is
// missing.
std::optional<std::string> TakeOptionValue(const std::vector<std::string>& args, size_t* i,
                                           const std::string& flag, bool* missing);

// Formats a time the way bjobs' SUBMIT_TIME column does ("Nov 30 11:40").
std::string FormatSubmitTime(long long epoch_seconds);

// Builds LSF 10.1 JSON output (`-o ... -json`): a COMMAND, a count key and
// RECORDS whose values are all strings. `records` holds (key, value) pairs in
// output order.
std::string FormatLsfJson(
    const std::string& command, const std::string& count_key,
    const std::vector<std::vector<std::pair<std::string, std::string>>>& records);

}  // namespace bplace::lsfsim
