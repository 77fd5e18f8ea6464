#include "lsf_adapter/bjobs_long_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <system_error>

#include "common/text.h"
#include "lsf_adapter/lsf_messages.h"
#include "lsf_adapter/lsf_time.h"
#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kBjobsLongCommand = "bjobs -l";
constexpr std::string_view kHeaderStart = "Job <";
constexpr std::string_view kPendingHeading = "PENDING REASONS:";
// The line of dashes between two job blocks (LSF 10.1 and volclava 2.2).
constexpr std::size_t kBlockSeparatorWidth = 78;

// The width of "Tue Dec  1 11:00:59: ", and of "Tue Dec  1 11:00:59 2026: "
// with LSB_DISPLAY_YEAR: Platform's line printer indents a continuation so
// that it starts under the text of an event line.
constexpr std::size_t kIndent = 21;
constexpr std::size_t kIndentWithYear = 26;

// Labels are short ("Share group charged"); the cap keeps a line full of
// '>' from being scanned once per '>'.
constexpr std::size_t kMaxLabelLength = 48;

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

bool IsBlankLine(std::string_view line) { return Trim(line).empty(); }

// One physical line: CR removed, trailing blanks kept, because a blank
// before a cut belongs to the text that goes on in the next line.
struct RawLine {
  std::size_t number = 0;
  std::string_view text;
};

std::vector<RawLine> SplitRawLines(std::string_view text) {
  std::vector<RawLine> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({lines.size() + 1, line});
    start = end + 1;
  }
  return lines;
}

template <std::size_t N>
bool IsOneOf(std::string_view word, const std::array<std::string_view, N>& names) {
  return std::find(std::begin(names), std::end(names), word) != std::end(names);
}

// The length of the time that opens an event line ("Tue Dec  1 11:00:59" or
// "Tue Dec  1 11:00:59 2026", ctime's fixed-width layout, the day padded
// with a blank or a zero), when the line starts with one followed by ':';
// else 0.
std::size_t EventTimeLength(std::string_view line) {
  if (line.size() < 20) return 0;
  if (!IsOneOf(line.substr(0, 3), kLsfWeekdays) || line[3] != ' ' ||
      !IsOneOf(line.substr(4, 3), kLsfMonths) || line[7] != ' ' ||
      !(line[8] == ' ' || IsDigit(line[8])) || !IsDigit(line[9]) || line[10] != ' ') {
    return 0;
  }
  const std::string_view clock = line.substr(11, 8);
  if (!AllDigits(clock.substr(0, 2)) || clock[2] != ':' || !AllDigits(clock.substr(3, 2)) ||
      clock[5] != ':' || !AllDigits(clock.substr(6, 2))) {
    return 0;
  }
  if (line[19] == ':') return 19;
  if (line.size() >= 25 && line[19] == ' ' && AllDigits(line.substr(20, 4)) && line[24] == ':') {
    return 24;
  }
  return 0;
}

// The lines of [begin, end), each continuation line (one that starts with
// `indent` blanks and follows a line that is not blank) joined to the line
// before it by removing the line end and exactly `indent` blanks, as LSF's
// line printer inserted them; trailing blanks are removed after joining.
// Rusage lines that LSF itself indents by 21 blanks ("The CPU time used
// is ...") are joined too; no field is read from them.
std::vector<std::string> Unwrap(const std::vector<RawLine>& lines, std::size_t begin,
                                std::size_t end, std::size_t indent) {
  std::vector<std::string> logical;
  for (std::size_t i = begin; i < end; ++i) {
    const std::string_view text = lines[i].text;
    const bool continuation = text.size() > indent && text.find_first_not_of(' ') >= indent &&
                              !logical.empty() && !IsBlankLine(logical.back());
    if (continuation) {
      logical.back().append(text.substr(indent));
    } else {
      logical.emplace_back(text);
    }
  }
  for (std::string& line : logical) {
    const std::size_t last = line.find_last_not_of(" \t\r");
    line.erase(last == std::string::npos ? 0 : last + 1);
  }
  return logical;
}

// The continuation indent of a block: that of its first time stamp.
std::size_t BlockIndent(const std::vector<RawLine>& lines, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t length = EventTimeLength(lines[i].text);
    if (length == 24) return kIndentWithYear;
    if (length != 0) return kIndent;
  }
  return kIndent;
}

// True when `rest` (what follows a '>' and its ',') opens a header label:
// an optional blank, a capital letter, then label characters up to " <",
// "<" or ",". "Job Description <", "Interactive pseudo-terminal shell
// mode," and "Share group charged <" are labels; "retry 2 of 3" is not.
bool OpensLabel(std::string_view rest) {
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.empty() || !IsUpper(rest.front())) return false;
  for (std::size_t i = 1; i < rest.size() && i <= kMaxLabelLength; ++i) {
    const char c = rest[i];
    if (c == '<' || c == ',') return true;
    const bool label_char = IsUpper(c) || IsLower(c) || IsDigit(c) || c == ' ' || c == '(' ||
                            c == ')' || c == '/' || c == '_' || c == '-' || c == '.';
    if (!label_char) return false;
  }
  return false;
}

// Where the value that starts at `start` ends: the first '>' followed by
// the end of the line or by ',' and a label; failing that the line's last
// '>' (a garbled tail), or the end of the line when there is no '>' at all
// (a line cut short).
std::size_t ValueEnd(std::string_view line, std::size_t start) {
  for (std::size_t close = line.find('>', start); close != std::string_view::npos;
       close = line.find('>', close + 1)) {
    if (close + 1 == line.size()) return close;
    if (line[close + 1] == ',' && OpensLabel(line.substr(close + 2))) return close;
  }
  const std::size_t last = line.rfind('>');
  return last != std::string_view::npos && last >= start ? last : line.size();
}

// "Job Name" and "JobName" (a blank dropped at a cut) name the same label.
std::string LabelKey(std::string_view label) {
  std::string key;
  for (char c : label) {
    if (c != ' ') key.push_back(c);
  }
  return key;
}

// Reads the header line into `job`; false when it is not "Job <ID>" with a
// valid id followed by nothing or by ','.
bool ReadHeader(std::string_view line, JobLongRecord& job) {
  if (!line.starts_with(kHeaderStart)) return false;
  const std::size_t id_end = line.find('>', kHeaderStart.size());
  if (id_end == std::string_view::npos) return false;
  const std::optional<JobId> id =
      ParseJobId(line.substr(kHeaderStart.size(), id_end - kHeaderStart.size()));
  if (!id) return false;
  job.job_id = id->job_id;
  job.array_index = id->array_index;

  std::size_t pos = id_end + 1;
  if (pos < line.size() && line[pos] != ',') return false;
  while (pos < line.size() && line[pos] == ',') {
    ++pos;
    while (pos < line.size() && line[pos] == ' ') ++pos;
    const std::size_t open = line.find('<', pos);
    const std::size_t comma = line.find(',', pos);
    if (open == std::string_view::npos || (comma != std::string_view::npos && comma < open)) {
      pos = comma == std::string_view::npos ? line.size() : comma;  // a label without value
      continue;
    }
    const std::string key = LabelKey(line.substr(pos, open - pos));
    const std::size_t close = ValueEnd(line, open + 1);
    const std::string_view value = line.substr(open + 1, close - open - 1);
    std::string* field = nullptr;
    if (key == "JobName") field = &job.job_name;
    if (key == "User") field = &job.user;
    if (key == "Status") field = &job.status;
    if (key == "Queue") field = &job.queue;
    if (key == "JobDescription") field = &job.job_description;
    if (field != nullptr && field->empty()) {
      // Name and description are kept as submitted; the others are words.
      const bool exact = key == "JobName" || key == "JobDescription";
      *field = exact ? std::string(value) : std::string(Trim(value));
    }
    pos = close + 1;
  }
  return true;
}

// The number that opens `text` ("3." gives 3), when it is in [low, high].
std::optional<int> LeadingNumber(std::string_view text, int low, int high) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data() || value < low || value > high) {
    return std::nullopt;
  }
  return value;
}

// Reads one event line (`time` and what follows its ": ") into `job`.
void ReadEvent(std::string_view time, std::string_view what, JobLongRecord& job) {
  if (what.starts_with("Submitted")) {
    job.submit_time = std::string(time);
    return;
  }
  if (what.starts_with("Done successfully")) {
    job.finish_time = std::string(time);
    job.done_successfully = true;
    job.exited = false;
    job.exit_code.reset();
    job.exit_signal.reset();
    return;
  }
  constexpr std::string_view kExited = "Exited";
  if (what.starts_with(kExited) && (what.size() == kExited.size() || what[kExited.size()] == ' ' ||
                                    what[kExited.size()] == '.' || what[kExited.size()] == ';')) {
    job.finish_time = std::string(time);
    job.done_successfully = false;
    job.exited = true;
    job.exit_code.reset();
    job.exit_signal.reset();
    constexpr std::string_view kCode = "Exited with exit code ";
    constexpr std::string_view kSignal = "Exited by signal ";
    if (what.starts_with(kCode)) job.exit_code = LeadingNumber(what.substr(kCode.size()), 0, 255);
    if (what.starts_with(kSignal)) {
      job.exit_signal = LeadingNumber(what.substr(kSignal.size()), 1, 255);
    }
    return;
  }
  // volclava names an array element's index first: "[7] started on <vm>".
  if (what.starts_with("[")) {
    const std::size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  if (what.starts_with("Started") || what.starts_with("started") ||
      what.starts_with("Dispatched") || what.starts_with("dispatched")) {
    job.start_time = std::string(time);
  }
}

// " SCHEDULING PARAMETERS:", " RUNLIMIT", " MEMORY USAGE:": an indented
// line in capitals, which opens the next section of a block.
bool IsSectionHeading(std::string_view line) {
  if (line.empty() || line.front() != ' ') return false;
  const std::string_view trimmed = Trim(line);
  return !trimmed.empty() && IsUpper(trimmed.front()) &&
         std::none_of(trimmed.begin(), trimmed.end(), IsLower);
}

bool IsDashLine(std::string_view trimmed) {
  return !trimmed.empty() && trimmed.find_first_not_of('-') == std::string_view::npos;
}

// Reads the block of lines [begin, end) (its first line is "Job <..."), or
// nullopt when its header cannot be read.
std::optional<JobLongRecord> ReadBlock(const std::vector<RawLine>& lines, std::size_t begin,
                                       std::size_t end) {
  const std::vector<std::string> logical =
      Unwrap(lines, begin, end, BlockIndent(lines, begin, end));
  JobLongRecord job;
  if (logical.empty() || !ReadHeader(logical.front(), job)) return std::nullopt;
  bool in_pending = false;
  for (std::size_t i = 1; i < logical.size(); ++i) {
    const std::string_view text = logical[i];
    const std::size_t time_length = EventTimeLength(text);
    if (in_pending) {
      if (IsBlankLine(text)) continue;
      if (time_length == 0 && !IsSectionHeading(text) && !IsDashLine(Trim(text))) {
        if (!job.pend_reason.empty()) job.pend_reason.push_back(' ');
        job.pend_reason.append(Trim(text));
        continue;
      }
      in_pending = false;
    }
    if (time_length != 0) {
      ReadEvent(text.substr(0, time_length), Trim(text.substr(time_length + 1)), job);
    } else if (Trim(text) == kPendingHeading) {
      in_pending = true;
    }
  }
  return job;
}

// Lines quoted in an error message are cut after this many characters.
constexpr std::size_t kMaxLineShown = 60;

bool IsUserNameChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte > 0x20 && byte != 0x7f;
}

// The lines where job blocks start: "Job <" in column 0, first or after a
// blank line (ParseBjobsLong).
std::vector<std::size_t> BlockStarts(const std::vector<RawLine>& lines) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].text.starts_with(kHeaderStart) && (i == 0 || IsBlankLine(lines[i - 1].text))) {
      starts.push_back(i);
    }
  }
  return starts;
}

// The bytes of lines [begin, end) of `text`, each with its line end, without
// the blank lines and the dash line that close a block.
std::string BlockBytes(std::string_view text, const std::vector<RawLine>& lines, std::size_t begin,
                       std::size_t end) {
  while (end > begin &&
         (IsBlankLine(lines[end - 1].text) || IsDashLine(Trim(lines[end - 1].text)))) {
    --end;
  }
  if (end == begin) return {};
  const std::size_t first = static_cast<std::size_t>(lines[begin].text.data() - text.data());
  const std::string_view last = lines[end - 1].text;
  std::size_t stop = static_cast<std::size_t>(last.data() - text.data()) + last.size();
  if (stop < text.size() && text[stop] == '\r') ++stop;
  if (stop < text.size() && text[stop] == '\n') ++stop;
  std::string bytes(text.substr(first, stop - first));
  if (bytes.back() != '\n') bytes.push_back('\n');
  return bytes;
}

}  // namespace

std::string JobLongRecord::IdText() const {
  if (array_index == 0) return job_id;
  return job_id + "[" + std::to_string(array_index) + "]";
}

Result<std::vector<JobLongRecord>> ParseBjobsLong(std::string_view text) {
  auto blocks = SplitBjobsLong(text);
  if (!blocks) return tl::unexpected(blocks.error());
  std::vector<JobLongRecord> jobs;
  jobs.reserve(blocks->size());
  for (BjobsLongBlock& block : *blocks) jobs.push_back(std::move(block.job));
  return jobs;
}

std::vector<std::string> BjobsLongArgv(const std::string& bjobs_path, const std::string& user) {
  if (user.empty() || user.front() == '-' ||
      !std::all_of(user.begin(), user.end(), IsUserNameChar)) {
    return {};
  }
  return {bjobs_path, "-a", "-l", "-u", user};
}

Result<std::vector<BjobsLongBlock>> SplitBjobsLong(std::string_view text) {
  const std::vector<RawLine> lines = SplitRawLines(text);
  const std::vector<std::size_t> starts = BlockStarts(lines);
  std::vector<BjobsLongBlock> blocks;
  for (std::size_t b = 0; b < starts.size(); ++b) {
    const std::size_t end = b + 1 < starts.size() ? starts[b + 1] : lines.size();
    if (std::optional<JobLongRecord> job = ReadBlock(lines, starts[b], end)) {
      blocks.push_back({std::move(*job), BlockBytes(text, lines, starts[b], end)});
    }
  }
  if (!blocks.empty() || Trim(text).empty()) return blocks;
  for (const RawLine& line : lines) {
    if (SaysNoJobFound(line.text)) return blocks;
  }
  const auto first = std::find_if(lines.begin(), lines.end(),
                                  [](const RawLine& line) { return !IsBlankLine(line.text); });
  return Fail(ErrorCode::kParseError,
              std::string(kBjobsLongCommand) +
                  ": no job block (no line \"Job <ID>, ...\" after a blank line); " +
                  Where(kBjobsLongCommand, first->number) + ": " +
                  QuoteForMessage(Trim(first->text), kMaxLineShown));
}

std::string JoinBjobsLong(const std::vector<std::string_view>& blocks) {
  std::string out;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (i > 0) out.append(kBlockSeparatorWidth, '-').push_back('\n');
    out.push_back('\n');
    out.append(blocks[i]);
  }
  if (!blocks.empty()) out.push_back('\n');
  return out;
}

}  // namespace bplace::lsf
