#include "lsf_adapter/bsub_script.h"

#include <charconv>
#include <system_error>

#include "common/text.h"
#include "lsf_adapter/bsub_command.h"

namespace bplace::lsf {
namespace {

// Blanks are isspace() in the C locale, which is what bsub's SKIPSPACE uses:
// the six of IsBlank (common/text.h).
std::string_view SkipBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  return s;
}

Error LineError(int line, const std::string& message) {
  return Error{ErrorCode::kInvalidArgument, "line " + std::to_string(line) + ": " + message};
}

// The options of a directive line, or nullopt when the line is no
// directive (a command, a comment, the shebang).
std::optional<std::string_view> DirectiveBody(std::string_view line) {
  line = SkipBlanks(line);
  if (line.empty() || line.front() != '#') return std::nullopt;
  line = SkipBlanks(line.substr(1));
  if (line.substr(0, 4) != "BSUB") return std::nullopt;
  line = SkipBlanks(line.substr(4));
  if (line.empty() || line.front() != '-') return std::nullopt;
  return line;
}

// Splits a directive's options into words as bsub does, refusing what a
// shell would read otherwise.
Result<std::vector<std::string>> SplitWords(std::string_view rest, int line) {
  std::vector<std::string> words;
  for (rest = SkipBlanks(rest); !rest.empty(); rest = SkipBlanks(rest)) {
    const char first = rest.front();
    if (first == '#') break;  // the rest of the line is a comment
    if (first == '\'' || first == '"') {
      const std::size_t close = rest.find(first, 1);
      if (close == std::string_view::npos) {
        return tl::unexpected(LineError(
            line, std::string("a quote (") + first + ") of a #BSUB line is never closed"));
      }
      const std::string_view word = rest.substr(1, close - 1);
      if (first == '"' && word.find('\\') != std::string_view::npos) {
        return tl::unexpected(
            LineError(line,
                      "a backslash in double quotes in a #BSUB line (a shell and bsub read it "
                      "differently; use single quotes)"));
      }
      rest.remove_prefix(close + 1);
      if (!rest.empty() && !IsBlank(rest.front())) {
        return tl::unexpected(
            LineError(line,
                      "text right after a closing quote in a #BSUB line (bsub splits it off as "
                      "another word; quote the whole word)"));
      }
      words.emplace_back(word);
      continue;
    }
    std::size_t end = 0;
    while (end < rest.size() && !IsBlank(rest[end])) ++end;
    const std::string_view word = rest.substr(0, end);
    if (word.find_first_of("'\"") != std::string_view::npos) {
      return tl::unexpected(
          LineError(line,
                    "a quote inside a word of a #BSUB line (bsub only reads quotes around a "
                    "whole word)"));
    }
    if (word.find('\\') != std::string_view::npos) {
      return tl::unexpected(
          LineError(line,
                    "a backslash in a #BSUB line (a shell and bsub read it differently; use "
                    "single quotes)"));
    }
    words.emplace_back(word);
    rest.remove_prefix(end);
  }
  return words;
}

}  // namespace

Result<std::vector<EmbeddedOptionLine>> ParseEmbeddedOptions(std::string_view script) {
  std::vector<EmbeddedOptionLine> directives;
  int number = 0;
  std::size_t start = 0;
  while (start < script.size()) {
    ++number;
    const int first_line = number;
    std::string line;
    // Join continued lines: bsub joins a '#' line holding "BSUB" that ends
    // in a backslash right before the newline.
    while (true) {
      const std::size_t end = script.find('\n', start);
      const std::string_view piece = script.substr(
          start, end == std::string_view::npos ? std::string_view::npos : end - start);
      start = end == std::string_view::npos ? script.size() : end + 1;
      if (piece.size() > kMaxDirectiveLineBytes && piece.find("BSUB") != std::string_view::npos) {
        return tl::unexpected(
            LineError(number, "longer than " + std::to_string(kMaxDirectiveLineBytes) +
                                  " bytes and holds \"BSUB\" (bsub reads long lines in pieces)"));
      }
      line += piece;
      const bool continued_line =
          !line.empty() && line.front() == '#' && line.find("BSUB") != std::string::npos;
      if (continued_line && line.size() >= 2 && line.ends_with("\\\r")) {
        return tl::unexpected(
            LineError(number,
                      "a #BSUB line ends in a backslash before CR (bsub does not join it with "
                      "the next line, a shell would)"));
      }
      if (!continued_line || !line.ends_with('\\') || end == std::string_view::npos) break;
      line.pop_back();
      ++number;
    }
    const std::optional<std::string_view> body = DirectiveBody(line);
    if (!body) continue;
    auto words = SplitWords(*body, first_line);
    if (!words) return tl::unexpected(words.error());
    directives.push_back({first_line, std::move(*words), number});
  }
  return directives;
}

namespace {

// Reads "N" or "N,M" (bsub -n min[,max]); the larger bound, or nullopt.
std::optional<std::int64_t> ParseSlotRange(std::string_view value) {
  const auto read = [](std::string_view s) -> std::optional<std::int64_t> {
    std::int64_t n = 0;
    if (s.empty() || s.size() > 12) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size() || n < 1) return std::nullopt;
    return n;
  };
  const std::size_t comma = value.find(',');
  const auto low = read(value.substr(0, comma));
  if (!low) return std::nullopt;
  if (comma == std::string_view::npos) return low;
  const auto high = read(value.substr(comma + 1));
  if (!high || *high < *low) return std::nullopt;
  return high;
}

// Checks one option and its value against its field's rules.
Result<void> CheckField(const BsubOptionRule& rule, const std::string& value, int line,
                        std::int64_t max_slots, ScriptDirectives& found) {
  const std::string shown = "#BSUB " + std::string(rule.flag) + " " + ShellQuote(value);
  if (rule.flag == "-n") {
    const auto slots = ParseSlotRange(value);
    if (!slots) {
      return tl::unexpected(
          LineError(line, shown + ": expected min[,max] slots (1 <= min <= max)"));
    }
    if (*slots > max_slots) {
      return tl::unexpected(LineError(
          line, shown + ": more than submit.max_slots (" + std::to_string(max_slots) + ") slots"));
    }
    if (!found.slots || *slots > *found.slots) {
      found.slots = *slots;
      found.slots_line = line;
    }
  } else if (rule.flag == "-J") {
    if (value.find_first_of("[]") != std::string::npos) {
      return tl::unexpected(LineError(
          line, shown + ": a job name with [ ] makes a job array; use the `array` field"));
    }
    found.job_name_line = line;
  }
  return {};
}

}  // namespace

BsubOptionRule DirectiveOptionRule(const std::string& word, std::optional<std::string>& glued) {
  BsubOptionRule rule = FindBsubOption(word);
  if (rule.use != BsubOptionUse::kUnknown || word.size() <= 2) return rule;
  const BsubOptionRule one_letter = FindBsubOption(std::string_view(word).substr(0, 2));
  if (one_letter.use == BsubOptionUse::kUnknown || !one_letter.takes_value) return rule;
  glued = word.substr(2);
  return one_letter;
}

Result<ScriptDirectives> CheckEmbeddedOptions(const std::vector<EmbeddedOptionLine>& lines,
                                              std::int64_t max_slots) {
  ScriptDirectives found;
  for (const EmbeddedOptionLine& directive : lines) {
    const int line = directive.line;
    const auto& words = directive.words;
    for (std::size_t i = 0; i < words.size(); ++i) {
      const std::string& word = words[i];
      if (word.size() < 2 || word.front() != '-') {
        return tl::unexpected(LineError(
            line, "#BSUB " + ShellQuote(word) +
                      ": not a bsub option (put the job's commands below the #BSUB lines)"));
      }
      std::optional<std::string> value;
      const BsubOptionRule rule = DirectiveOptionRule(word, value);
      const std::string flag = "#BSUB " + std::string(rule.flag);
      switch (rule.use) {
        case BsubOptionUse::kDaemon:
          return tl::unexpected(
              LineError(line, flag + " is set by bplace (" + std::string(rule.hint) + ")"));
        case BsubOptionUse::kBlocking:
          return tl::unexpected(
              LineError(line, flag + " makes bsub wait, take a terminal or not submit; not allowed "
                                     "through the daemon"));
        case BsubOptionUse::kUnknown:
          return tl::unexpected(LineError(
              line, "#BSUB " + ShellQuote(word) +
                        ": not a bsub option bplace passes on (see docs/api.md, extra_args)"));
        case BsubOptionUse::kPassed:
        case BsubOptionUse::kField:
          break;
      }
      if (!rule.takes_value) continue;
      if (!value) {
        if (i + 1 >= words.size()) {
          return tl::unexpected(LineError(line, flag + " needs a value on the same line"));
        }
        value = words[++i];
      }
      if (rule.use == BsubOptionUse::kField) {
        if (auto ok = CheckField(rule, *value, line, max_slots, found); !ok) {
          return tl::unexpected(ok.error());
        }
        found.field_options.push_back({rule.hint, std::string(rule.flag), *value, line});
      }
    }
  }
  return found;
}

}  // namespace bplace::lsf
