#include "lsf_adapter/lsb_events_parser.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>

namespace bplace::lsf {
namespace {

// One field as written: a bare word, or a quoted string's inside (with
// its doubled quotes still doubled).
struct Token {
  bool quoted = false;
  bool escaped = false;  // a "" inside
  std::string_view text;
};

std::string Unquote(const Token& token) {
  if (!token.escaped) return std::string(token.text);
  std::string out;
  for (std::size_t i = 0; i < token.text.size(); ++i) {
    out += token.text[i];
    if (token.text[i] == '"') ++i;  // "" is one quote (LSF's addQStr)
  }
  return out;
}

std::string Shown(const Token& token) {
  return token.quoted ? "'\"" + Unquote(token) + "\"'" : "'" + std::string(token.text) + "'";
}

// The blanks between the fields of a record: space and tab, and the CR of a
// CRLF line end.
bool IsFieldBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Reads the fields of one record in order, straight from the line: nothing
// is copied but the strings kept, and fields after the last one read are
// never looked at. The first failure is kept (naming the record type and
// the field) and later reads give zero values, so a reader reads every
// field and checks once at the end.
class Cursor {
 public:
  explicit Cursor(std::string_view line) : line_(line) {}

  void set_type(std::string type) { type_ = std::move(type); }

  std::int64_t Int(const char* field) {
    const auto token = Take(field);
    std::int64_t value = 0;
    if (!token) return 0;
    const char* begin = token->text.data();
    const char* end = begin + token->text.size();
    const auto [stop, ec] = std::from_chars(begin, end, value);
    if (token->quoted || ec != std::errc() || stop != end) {
      Bad(field, "a number", *token);
      return 0;
    }
    return value;
  }

  // A number the parser does not keep: checked to be there and bare, not
  // converted (rusage, pids, flags: most of a record's fields).
  void SkipNumber(const char* field) {
    const auto token = Take(field);
    if (token && token->quoted) Bad(field, "a number", *token);
  }

  // Likewise a string not kept.
  void SkipString(const char* field) {
    const auto token = Take(field);
    if (token && !token->quoted) Bad(field, "a quoted string", *token);
  }

  std::string Str(const char* field) {
    const auto token = Take(field);
    if (!token) return "";
    if (!token->quoted) {
      Bad(field, "a quoted string", *token);
      return "";
    }
    return Unquote(*token);
  }

  // Fails the record with `problem` about `field` (unless it failed already).
  void Fail(const char* field, const std::string& problem) {
    if (!error_)
      error_ = (type_.empty() ? "lsb.events record" : type_) + ": " + field + ": " + problem;
  }

  bool NextIsString() {
    SkipBlanks();
    return next_ < line_.size() && line_[next_] == '"';
  }
  bool AtEnd() {
    SkipBlanks();
    return next_ >= line_.size();
  }
  bool failed() const { return error_.has_value(); }
  const std::string& error() const { return *error_; }

 private:
  void SkipBlanks() {
    while (next_ < line_.size() && IsFieldBlank(line_[next_])) ++next_;
  }

  std::optional<Token> Take(const char* field) {
    if (failed()) return std::nullopt;
    if (AtEnd()) {
      Fail(field, "missing (record truncated?)");
      return std::nullopt;
    }
    Token token;
    const std::size_t start = next_;
    if (line_[next_] != '"') {
      next_ = std::min(line_.find_first_of(" \t\r", next_), line_.size());
      token.text = line_.substr(start, next_ - start);
      return token;
    }
    token.quoted = true;
    // memchr-speed search for the closing quote; "" is a quote inside.
    for (std::size_t quote = line_.find('"', start + 1);; quote = line_.find('"', quote + 2)) {
      if (quote == std::string_view::npos) {
        next_ = line_.size();
        Fail(field, "unterminated string");
        return std::nullopt;
      }
      if (quote + 1 < line_.size() && line_[quote + 1] == '"') {
        token.escaped = true;
        continue;
      }
      token.text = line_.substr(start + 1, quote - start - 1);
      next_ = quote + 1;
      return token;
    }
  }

  void Bad(const char* field, const char* expected, const Token& got) {
    Fail(field, std::string("expected ") + expected + ", got " + Shown(got));
  }

  std::string_view line_;
  std::size_t next_ = 0;
  std::string type_;
  std::optional<std::string> error_;
};

std::vector<std::string> Hosts(Cursor& in, std::int64_t count, const char* field) {
  std::vector<std::string> hosts;
  if (count < 0 || count > 1000000) {
    in.Fail(field, "bad count " + std::to_string(count));
    return hosts;
  }
  for (std::int64_t i = 0; i < count && !in.failed(); ++i) hosts.push_back(in.Str(field));
  return hosts;
}

JobNewRecord ReadJobNew(Cursor& in) {
  JobNewRecord job;
  // The numbers before userName: 10 in OpenLava, 11 in LSF 7 and later
  // (options2 after options); the last seven are numProcessors .. restartPid.
  std::vector<std::int64_t> numbers;
  while (!in.AtEnd() && !in.NextIsString() && !in.failed()) {
    numbers.push_back(in.Int("numbers before userName"));
  }
  if (numbers.size() < 10) {
    in.Fail("userName",
            "found after " + std::to_string(numbers.size()) + " numbers, expected 10 or more");
    return job;
  }
  const std::size_t n = numbers.size();
  job.job_id = numbers[0];
  job.user_id = numbers[1];
  job.num_processors = numbers[n - 7];
  job.submit_time = numbers[n - 6];
  job.begin_time = numbers[n - 5];
  job.user = in.Str("userName");
  int limits = 0;
  for (; !in.AtEnd() && !in.NextIsString() && !in.failed(); ++limits) in.SkipNumber("rLimits");
  if (limits == 0) in.Fail("rLimits", "missing");
  in.SkipString("hostSpec");
  in.SkipNumber("hostFactor");
  in.SkipNumber("umask");
  job.queue = in.Str("queue");
  if (!in.failed() && job.queue.empty()) in.Fail("queue", "empty");
  return job;
}

JobStartRecord ReadJobStart(Cursor& in) {
  JobStartRecord job;
  job.job_id = in.Int("jobId");
  job.status = static_cast<int>(in.Int("jStatus"));
  in.SkipNumber("jobPid");
  in.SkipNumber("jobPGid");
  in.SkipNumber("hostFactor");
  const std::int64_t count = in.Int("numExHosts");
  if (!in.failed()) job.exec_hosts = Hosts(in, count, "execHosts");
  in.SkipString("queuePreCmd");
  in.SkipString("queuePostCmd");
  in.SkipNumber("jFlags");
  if (in.NextIsString()) in.SkipString("userGroup");  // LSF 7 and later
  job.array_index = in.Int("idx");
  return job;
}

JobStatusRecord ReadJobStatus(Cursor& in, bool lsf7_layout) {
  JobStatusRecord job;
  job.job_id = in.Int("jobId");
  job.status = static_cast<int>(in.Int("jStatus"));
  in.SkipNumber("reason");
  in.SkipNumber("subreasons");
  in.SkipNumber("cpuTime");
  job.end_time = in.Int("endTime");
  if (in.Int("ru") != 0) {
    for (int i = 0; i < 19; ++i) in.SkipNumber("lsfRusage");
  }
  if (lsf7_layout) in.SkipNumber("jFlags");
  in.SkipNumber("exitStatus");
  job.array_index = in.Int("idx");
  return job;
}

JobSwitchRecord ReadJobSwitch(Cursor& in) {
  JobSwitchRecord job;
  in.SkipNumber("userId");
  job.job_id = in.Int("jobId");
  job.queue = in.Str("queue");
  job.array_index = in.Int("idx");
  job.user = in.Str("userName");
  if (!in.failed() && job.queue.empty()) in.Fail("queue", "empty");
  return job;
}

JobMoveRecord ReadJobMove(Cursor& in) {
  JobMoveRecord job;
  in.SkipNumber("userId");
  job.job_id = in.Int("jobId");
  job.position = in.Int("position");
  job.base = in.Int("base");
  job.array_index = in.Int("idx");
  return job;
}

JobForceRecord ReadJobForce(Cursor& in) {
  JobForceRecord job;
  job.job_id = in.Int("jobId");
  in.SkipNumber("userId");
  job.array_index = in.Int("idx");
  in.SkipNumber("options");
  const std::int64_t count = in.Int("numExecHosts");
  if (!in.failed()) job.exec_hosts = Hosts(in, count, "execHosts");
  job.user = in.Str("userName");
  return job;
}

JobCleanRecord ReadJobClean(Cursor& in) {
  JobCleanRecord job;
  job.job_id = in.Int("jobId");
  job.array_index = in.Int("idx");
  return job;
}

// LSF 7 and later write jFlags before exitStatus in JOB_STATUS; OpenLava
// does not. LSF writes its version as "<major>.<minor>" ("10.1"); the
// OpenLava family writes an integer (its protocol version: "20", "30";
// jhlava "10"), which must not be taken for LSF 10.
bool Lsf7Layout(const std::string& version) {
  return version.find('.') != std::string::npos && std::atoi(version.c_str()) >= 7;
}

LsbEventBody ReadBody(const std::string& type, const std::string& version, Cursor& in) {
  if (type == "JOB_NEW") return ReadJobNew(in);
  if (type == "JOB_START") return ReadJobStart(in);
  if (type == "JOB_STATUS") return ReadJobStatus(in, Lsf7Layout(version));
  if (type == "JOB_SWITCH") return ReadJobSwitch(in);
  if (type == "JOB_MOVE") return ReadJobMove(in);
  if (type == "JOB_FORCE") return ReadJobForce(in);
  if (type == "JOB_CLEAN") return ReadJobClean(in);
  return SkippedRecord{};
}

}  // namespace

Result<LsbEvent> ParseLsbEventsLine(std::string_view line) {
  std::size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return Fail(ErrorCode::kParseError, "empty line");
  LsbEvent event;
  if (line[first] == '#') {
    event.body = SkippedRecord{};
    return event;
  }
  Cursor in(line);
  if (!in.NextIsString()) {
    return Fail(ErrorCode::kParseError,
                "lsb.events record: expected \"TYPE\" \"VERSION\" TIME at the start");
  }
  event.type = in.Str("record type");
  in.set_type(event.type);
  event.version = in.Str("version");
  event.event_time = in.Int("event time");
  if (!in.failed()) event.body = ReadBody(event.type, event.version, in);
  if (in.failed()) return Fail(ErrorCode::kParseError, in.error());
  return event;
}

}  // namespace bplace::lsf
