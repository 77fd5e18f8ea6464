#include "tests/lsfsim/command_util.h"

#include <ctime>

#include "tests/lsfsim/openlava.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {

tl::expected<LoadedState, std::string> LoadState(const StateDir& state) {
  LoadedState loaded;
  auto overrides = state.LoadOverrides();
  if (!overrides) return tl::unexpected(overrides.error());
  auto jobs = state.LoadJobs();
  if (!jobs) return tl::unexpected(jobs.error());
  loaded.overrides = std::move(*overrides);
  loaded.jobs = std::move(*jobs);
  return loaded;
}

CommandResult InternalError(const std::string& message) {
  return CommandResult{.exit_code = 255, .out = "", .err = "lsfsim: " + message + "\n"};
}

CommandResult Fail(const std::string& message) {
  return CommandResult{.exit_code = 255, .out = "", .err = message + "\n"};
}

std::string VersionBanner(Dialect dialect) {
  if (dialect == Dialect::kOpenlava) return OpenlavaVersionBanner();
  return "IBM Spectrum LSF Standard 10.1.0.13, Apr 15 2022\n"
         "Copyright International Business Machines Corp. 1992, 2016.\n"
         "US Government Users Restricted Rights - Use, duplication or disclosure restricted by "
         "GSA ADP Schedule Contract with IBM Corp.\n";
}

bool GlobMatch(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '*') {
    for (size_t skip = 0; skip <= text.size(); ++skip) {
      if (GlobMatch(pattern.substr(1), text.substr(skip))) return true;
    }
    return false;
  }
  return !text.empty() && pattern[0] == text[0] && GlobMatch(pattern.substr(1), text.substr(1));
}

std::optional<std::string> TakeOptionValue(const std::vector<std::string>& args, size_t* i,
                                           const std::string& flag, bool* missing) {
  const std::string& arg = args[*i];
  if (arg == flag) {
    if (*i + 1 >= args.size()) {
      *missing = true;
      return std::string();
    }
    *i += 1;
    return args[*i];
  }
  if (flag.size() == 2 && arg.size() > 2 && arg.compare(0, 2, flag) == 0) {
    return arg.substr(2);
  }
  return std::nullopt;
}

std::string FormatSubmitTime(long long epoch_seconds) {
  time_t t = static_cast<time_t>(epoch_seconds);
  struct tm local;
  localtime_r(&t, &local);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%b %e %H:%M", &local);
  return buffer;
}

std::string FormatLsfJson(
    const std::string& command, const std::string& count_key,
    const std::vector<std::vector<std::pair<std::string, std::string>>>& records) {
  std::string out = "{\n";
  out += "  \"COMMAND\":\"" + command + "\",\n";
  out += StrPrintf("  \"%s\":%zu,\n", count_key.c_str(), records.size());
  out += "  \"RECORDS\":[\n";
  for (size_t r = 0; r < records.size(); ++r) {
    out += "    {\n";
    const auto& fields = records[r];
    for (size_t f = 0; f < fields.size(); ++f) {
      out += "      \"" + JsonEscape(fields[f].first) + "\":\"" + JsonEscape(fields[f].second) +
             "\"" + (f + 1 < fields.size() ? "," : "") + "\n";
    }
    out += r + 1 < records.size() ? "    },\n" : "    }\n";
  }
  out += "  ]\n}\n";
  return out;
}

}  // namespace bplace::lsfsim
