#include "lsf_adapter/bsub_command_line.h"

#include <algorithm>

namespace bplace::lsf {
namespace {

Error BadWord(const std::string& word, std::string_view why) {
  return Error{ErrorCode::kInvalidArgument, word + ": " + std::string(why)};
}

// The options of the table that are a proper prefix of `word` ("-J" and
// "-Jd" for "-Jdx"). Probing every prefix keeps FindBsubOption the one
// table: no second list of flags to drift from it.
std::vector<BsubOptionRule> OptionsPrefixing(std::string_view word) {
  std::vector<BsubOptionRule> found;
  for (std::size_t length = 2; length < word.size(); ++length) {
    const BsubOptionRule rule = FindBsubOption(word.substr(0, length));
    if (rule.use != BsubOptionUse::kUnknown) found.push_back(rule);
  }
  return found;
}

}  // namespace

std::vector<std::string> BsubCommandLine::Values(std::string_view flag) const {
  std::vector<std::string> values;
  for (const BsubArgument& option : options) {
    if (option.flag == flag && option.value) values.push_back(*option.value);
  }
  return values;
}

std::optional<std::string> BsubCommandLine::Last(std::string_view flag) const {
  for (auto it = options.rbegin(); it != options.rend(); ++it) {
    if (it->flag == flag) return it->value.value_or("");
  }
  return std::nullopt;
}

bool BsubCommandLine::Has(BsubOptionUse use) const {
  return std::any_of(options.begin(), options.end(),
                     [use](const BsubArgument& option) { return option.use == use; });
}

Result<BsubCommandLine> ParseBsubCommandLine(const std::vector<std::string>& args) {
  BsubCommandLine line;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word.empty() || word[0] != '-') break;  // the command starts here
    if (word == "-" || word == "--") {
      return tl::unexpected(BadWord(word, "bsub takes no such word before the command"));
    }
    const BsubOptionRule exact = FindBsubOption(word);
    if (exact.use != BsubOptionUse::kUnknown) {
      BsubArgument option{word, std::nullopt, exact.use};
      if (exact.takes_value) {
        if (i + 1 >= args.size()) return tl::unexpected(BadWord(word, "needs a value after it"));
        option.value = args[++i];
      }
      line.options.push_back(std::move(option));
      continue;
    }
    const std::vector<BsubOptionRule> prefixes = OptionsPrefixing(word);
    if (prefixes.size() == 1 && prefixes[0].flag.size() == 2 && prefixes[0].takes_value) {
      line.options.push_back({std::string(prefixes[0].flag), word.substr(2), prefixes[0].use});
      continue;
    }
    if (prefixes.size() > 1) {
      return tl::unexpected(BadWord(word, "ambiguous: " + std::string(prefixes[0].flag) +
                                              " with a value glued on, or " +
                                              std::string(prefixes[1].flag) + "; write them apart"));
    }
    return tl::unexpected(BadWord(word, "not a bsub option bplace knows"));
  }
  line.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  return line;
}

std::string BsubCommandString(const std::vector<std::string>& words) {
  std::string line;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (i == 0) {
      line = word;
      continue;
    }
    line += ' ';
    if (word.find(' ') != std::string::npos) {
      const bool single =
          word.find('"') != std::string::npos || word.find('$') != std::string::npos;
      const char quote = single ? '\'' : '"';
      line += quote + word + quote;
      continue;
    }
    const bool variable = !word.empty() && word.front() == '$';
    if (variable) line += '\'';
    for (char c : word) {
      if (c == '"' || c == '\'' || c == '\\' || c == '(' || c == ')') line += '\\';
      line += c;
    }
    if (variable) line += '\'';
  }
  return line;
}

std::optional<ArrayJobName> SplitArrayJobName(std::string_view name) {
  const std::size_t open = name.find('[');
  const std::size_t close = name.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  std::string_view rest = name.substr(close + 1);
  if (!rest.empty() && rest.front() != '%') return std::nullopt;
  if (!rest.empty()) rest.remove_prefix(1);
  return ArrayJobName{std::string(name.substr(0, open)),
                      std::string(name.substr(open + 1, close - open - 1)), std::string(rest)};
}

}  // namespace bplace::lsf
