#include "lsf_adapter/lsf_messages.h"

#include <vector>

#include "lsf_adapter/table.h"

namespace bplace::lsf {
namespace {

// "Connection refused" covers bsub's "Connection refused by server" and
// the plain form of other commands; "not responding" covers "batch system
// daemon not responding" and "LSF daemon (LIM) not responding".
constexpr std::string_view kUnavailablePhrases[] = {
    "Failed in an LSF library call",
    "lsb_init",
    "LIM is down",
    "Connection refused",
    "not responding",
    "LSF is down",
    "Cannot connect to LSF",
    "Unable to open file lsf.conf",
};

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The last non-blank line of `text`, skipping chatter unless `chatter`.
std::string_view LastLine(std::string_view text, bool chatter) {
  const std::vector<Line> lines = SplitLines(text);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const std::string_view line = Trim(it->text);
    if (!line.empty() && IsRetryChatter(line) == chatter) return line;
  }
  return {};
}

}  // namespace

bool IsRetryChatter(std::string_view line) { return Contains(line, "Please wait"); }

std::size_t FindUnavailablePhrase(std::string_view line) {
  for (std::string_view phrase : kUnavailablePhrases) {
    if (const std::size_t at = line.find(phrase); at != std::string_view::npos) return at;
  }
  return std::string_view::npos;
}

bool SaysLsfUnavailable(std::string_view line) {
  return FindUnavailablePhrase(line) != std::string_view::npos;
}

bool SaysNoGroups(std::string_view line) {
  return Contains(line, "No ") && Contains(line, "group") && !SaysLsfUnavailable(line);
}

bool SaysNoJobFound(std::string_view line) {
  const std::string_view trimmed = Trim(line);
  return trimmed.starts_with("No ") && Contains(trimmed, "job found");
}

std::string_view ReasonLine(std::string_view out, std::string_view err) {
  for (bool chatter : {false, true}) {
    if (std::string_view line = LastLine(err, chatter); !line.empty()) return line;
    if (std::string_view line = LastLine(out, chatter); !line.empty()) return line;
  }
  return {};
}

}  // namespace bplace::lsf
