#include "lsf_adapter/lsb_events_parser.h"

#include <charconv>
#include <cstdlib>
#include <optional>

namespace bplace::lsf {
namespace {

struct Token {
  bool quoted = false;
  std::string text;
};

// Splits a record into bare words and quoted strings ("" inside a string is
// one quote, as LSF's addQStr writes it).
Result<std::vector<Token>> Tokenize(std::string_view line) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    Token token;
    if (c == '"') {
      token.quoted = true;
      for (++i;; ++i) {
        if (i >= line.size()) return Fail(ErrorCode::kParseError, "unterminated string");
        if (line[i] != '"') {
          token.text += line[i];
        } else if (i + 1 < line.size() && line[i + 1] == '"') {
          token.text += '"';
          ++i;
        } else {
          ++i;
          break;
        }
      }
    } else {
      const std::size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
      token.text = std::string(line.substr(start, i - start));
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

std::string Shown(const Token& token) {
  return token.quoted ? "'\"" + token.text + "\"'" : "'" + token.text + "'";
}

// Reads the fields of one record in order. The first failure is kept
// (naming the record type and the field) and later reads give zero values,
// so a reader reads every field and checks once at the end.
class Cursor {
 public:
  Cursor(std::string type, std::vector<Token> tokens, std::size_t from)
      : type_(std::move(type)), tokens_(std::move(tokens)), next_(from) {}

  std::int64_t Int(const char* field) {
    const Token* token = Take(field);
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

  // A number that may have a fraction (hostFactor, cpuTime, rusage).
  double Real(const char* field) {
    const Token* token = Take(field);
    if (!token) return 0;
    char* end = nullptr;
    const double value = std::strtod(token->text.c_str(), &end);
    if (token->quoted || token->text.empty() || *end != '\0') {
      Bad(field, "a number", *token);
      return 0;
    }
    return value;
  }

  std::string Str(const char* field) {
    const Token* token = Take(field);
    if (!token) return "";
    if (!token->quoted) {
      Bad(field, "a quoted string", *token);
      return "";
    }
    return token->text;
  }

  // Fails the record with `problem` about `field` (unless it failed already).
  void Fail(const char* field, const std::string& problem) {
    if (!error_) error_ = type_ + ": " + field + ": " + problem;
  }

  bool NextIsString() const { return next_ < tokens_.size() && tokens_[next_].quoted; }
  bool AtEnd() const { return next_ >= tokens_.size(); }
  bool failed() const { return error_.has_value(); }
  const std::string& error() const { return *error_; }

 private:
  const Token* Take(const char* field) {
    if (failed()) return nullptr;
    if (next_ >= tokens_.size()) {
      Fail(field, "missing (record truncated?)");
      return nullptr;
    }
    return &tokens_[next_++];
  }
  void Bad(const char* field, const char* expected, const Token& got) {
    Fail(field, std::string("expected ") + expected + ", got " + Shown(got));
  }

  std::string type_;
  std::vector<Token> tokens_;
  std::size_t next_;
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
  for (; !in.AtEnd() && !in.NextIsString() && !in.failed(); ++limits) in.Int("rLimits");
  if (limits == 0) in.Fail("rLimits", "missing");
  in.Str("hostSpec");
  in.Real("hostFactor");
  in.Int("umask");
  job.queue = in.Str("queue");
  if (!in.failed() && job.queue.empty()) in.Fail("queue", "empty");
  return job;
}

JobStartRecord ReadJobStart(Cursor& in) {
  JobStartRecord job;
  job.job_id = in.Int("jobId");
  job.status = static_cast<int>(in.Int("jStatus"));
  in.Int("jobPid");
  in.Int("jobPGid");
  in.Real("hostFactor");
  const std::int64_t count = in.Int("numExHosts");
  if (!in.failed()) job.exec_hosts = Hosts(in, count, "execHosts");
  in.Str("queuePreCmd");
  in.Str("queuePostCmd");
  in.Int("jFlags");
  if (in.NextIsString()) in.Str("userGroup");  // LSF 7 and later
  job.array_index = in.Int("idx");
  return job;
}

JobStatusRecord ReadJobStatus(Cursor& in, bool lsf7_layout) {
  JobStatusRecord job;
  job.job_id = in.Int("jobId");
  job.status = static_cast<int>(in.Int("jStatus"));
  in.Int("reason");
  in.Int("subreasons");
  in.Real("cpuTime");
  job.end_time = in.Int("endTime");
  if (in.Int("ru") != 0) {
    for (int i = 0; i < 19; ++i) in.Real("lsfRusage");
  }
  if (lsf7_layout) in.Int("jFlags");
  in.Int("exitStatus");
  job.array_index = in.Int("idx");
  return job;
}

JobSwitchRecord ReadJobSwitch(Cursor& in) {
  JobSwitchRecord job;
  in.Int("userId");
  job.job_id = in.Int("jobId");
  job.queue = in.Str("queue");
  job.array_index = in.Int("idx");
  job.user = in.Str("userName");
  if (!in.failed() && job.queue.empty()) in.Fail("queue", "empty");
  return job;
}

JobMoveRecord ReadJobMove(Cursor& in) {
  JobMoveRecord job;
  in.Int("userId");
  job.job_id = in.Int("jobId");
  job.position = in.Int("position");
  job.base = in.Int("base");
  job.array_index = in.Int("idx");
  return job;
}

JobForceRecord ReadJobForce(Cursor& in) {
  JobForceRecord job;
  job.job_id = in.Int("jobId");
  in.Int("userId");
  job.array_index = in.Int("idx");
  in.Int("options");
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
// (versions 1 to 4) does not.
bool Lsf7Layout(const std::string& version) { return std::atoi(version.c_str()) >= 7; }

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
  auto tokens = Tokenize(line);
  if (!tokens) return Fail(ErrorCode::kParseError, "lsb.events record: " + tokens.error().message);
  if (tokens->size() < 3 || !(*tokens)[0].quoted || !(*tokens)[1].quoted) {
    return Fail(ErrorCode::kParseError,
                "lsb.events record: expected \"TYPE\" \"VERSION\" TIME at the start");
  }
  event.type = (*tokens)[0].text;
  event.version = (*tokens)[1].text;
  Cursor in(event.type, std::move(*tokens), 2);
  event.event_time = in.Int("event time");
  event.body = ReadBody(event.type, event.version, in);
  if (in.failed()) return Fail(ErrorCode::kParseError, in.error());
  return event;
}

}  // namespace bplace::lsf
