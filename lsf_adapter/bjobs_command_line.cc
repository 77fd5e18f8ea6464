#include "lsf_adapter/bjobs_command_line.h"

#include <charconv>

#include "lsf_adapter/bjobs_writer.h"

namespace bplace::lsf {
namespace {

Error Unanswered(std::string_view word, std::string_view why) {
  return Error{ErrorCode::kInvalidArgument, std::string(word) + ": " + std::string(why)};
}

// The one-letter flags of bjobs the front door answers, and whether each
// takes a value.
struct Letter {
  char letter;
  bool takes_value;
};
constexpr Letter kLetters[] = {{'w', false}, {'l', false}, {'a', false}, {'d', false},
                               {'p', false}, {'r', false}, {'s', false}, {'u', true},
                               {'q', true},  {'J', true},  {'o', true}};

const Letter* FindLetter(char c) {
  for (const Letter& letter : kLetters) {
    if (letter.letter == c) return &letter;
  }
  return nullptr;
}

void SetFlag(char letter, BjobsCommandLine& line) {
  if (letter == 'w') {
    line.wide = true;
  } else if (letter == 'l') {
    line.long_form = true;
  } else {
    line.state_filter = letter;  // a d p r s
  }
}

void SetValue(char letter, std::string value, BjobsCommandLine& line) {
  switch (letter) {
    case 'u':
      line.user = std::move(value);
      break;
    case 'q':
      line.queue = std::move(value);
      break;
    case 'J':
      line.job_name = std::move(value);
      break;
    default:
      line.format = std::move(value);
      break;
  }
}

// Reads one word that starts with '-' and is not a long option: a bundle
// of one-letter flags, the last of which may take a value.
Result<void> ReadBundle(const std::vector<std::string>& args, std::size_t& i,
                        BjobsCommandLine& line) {
  const std::string& word = args[i];
  for (std::size_t at = 1; at < word.size(); ++at) {
    const Letter* letter = FindLetter(word[at]);
    if (letter == nullptr) {
      return tl::unexpected(Unanswered(word, "an option the front door leaves to LSF's bjobs"));
    }
    if (!letter->takes_value) {
      SetFlag(letter->letter, line);
      continue;
    }
    if (at + 1 < word.size()) {
      SetValue(letter->letter, word.substr(at + 1), line);
    } else if (i + 1 < args.size()) {
      SetValue(letter->letter, args[++i], line);
    } else {
      return tl::unexpected(Unanswered(word, "needs a value after it"));
    }
    return {};
  }
  return {};
}

Result<BjobsColumn> ParseColumn(std::string_view item) {
  const std::size_t colon = item.find(':');
  const std::string_view name = item.substr(0, colon);
  const BjobsField* field = FindBjobsField(name);
  if (field == nullptr) {
    return tl::unexpected(
        Unanswered(name, "a field the jobs tier does not hold (or none LSF knows)"));
  }
  BjobsColumn column{std::string(field->name), std::string(field->header), 0, false};
  if (colon == std::string_view::npos) return column;
  std::string_view width = item.substr(colon + 1);
  width = width.substr(0, width.find(':'));  // a unit prefix (":MB") changes no field we hold
  if (!width.empty() && width.front() == '-') {
    column.right = true;
    width.remove_prefix(1);
  }
  if (width.empty()) {
    column.width = field->recommended_width;
    return column;
  }
  int value = 0;
  const auto [end, ec] = std::from_chars(width.data(), width.data() + width.size(), value);
  if (ec != std::errc() || end != width.data() + width.size() || value <= 0) {
    return tl::unexpected(Unanswered(item, "the width is not a positive number"));
  }
  column.width = value;
  return column;
}

// `delimiter='c'` or `delimiter="c"`; false when `item` is not one.
bool ReadDelimiter(std::string_view item, std::string& delimiter) {
  constexpr std::string_view kKey = "delimiter=";
  if (item.substr(0, kKey.size()) != kKey) return false;
  std::string_view value = item.substr(kKey.size());
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  delimiter = std::string(value);
  return true;
}

}  // namespace

Result<BjobsCommandLine> ParseBjobsCommandLine(const std::vector<std::string>& args) {
  BjobsCommandLine line;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word.empty() || word[0] != '-') {
      line.ids.push_back(word);
    } else if (word == "-noheader") {
      line.noheader = true;
    } else if (word == "-json") {
      line.json = true;
    } else if (word.size() < 2) {
      return tl::unexpected(Unanswered(word, "not a bjobs option"));
    } else {
      auto read = ReadBundle(args, i, line);
      if (!read) return tl::unexpected(read.error());
    }
  }
  if (line.json && !line.format) {
    return tl::unexpected(Unanswered("-json", "needs -o (LSF refuses it alone)"));
  }
  const bool only_ids = !line.ids.empty() && !line.wide && !line.json && !line.noheader &&
                        !line.format && !line.user && !line.queue && !line.job_name &&
                        (line.state_filter == '\0' || line.state_filter == 'a');
  if (line.long_form && !only_ids) {
    return tl::unexpected(Unanswered("-l", "answered only for job ids (bjobs [-a] -l ID...)"));
  }
  return line;
}

Result<BjobsFormat> ParseBjobsFormat(std::string_view spec) {
  BjobsFormat format;
  std::size_t at = 0;
  while (at < spec.size()) {
    while (at < spec.size() && (spec[at] == ' ' || spec[at] == '\t')) ++at;
    std::size_t end = at;
    while (end < spec.size() && spec[end] != ' ' && spec[end] != '\t') ++end;
    const std::string_view item = spec.substr(at, end - at);
    at = end;
    if (item.empty() || ReadDelimiter(item, format.delimiter)) continue;
    auto column = ParseColumn(item);
    if (!column) return tl::unexpected(column.error());
    format.columns.push_back(std::move(*column));
  }
  if (format.columns.empty()) {
    return tl::unexpected(Unanswered(spec, "no field named"));
  }
  return format;
}

bool JobNamePatternMatches(std::string_view pattern, std::string_view text) {
  // Iterative glob with one backtrack point: linear in practice, never
  // exponential on patterns such as "*a*a*a*b".
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace bplace::lsf
