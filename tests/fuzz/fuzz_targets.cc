#include "tests/fuzz/fuzz_targets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/job_request_decoder.h"
#include "common/text.h"
#include "lsf_adapter/bhosts_parser.h"
#include "lsf_adapter/bqueues_long_parser.h"
#include "lsf_adapter/bqueues_parser.h"
#include "lsf_adapter/bsub_command.h"
#include "lsf_adapter/bsub_reply.h"
#include "lsf_adapter/group_parser.h"
#include "lsf_adapter/lsid_parser.h"
#include "lsf_adapter/lsload_parser.h"
#include "lsf_adapter/table.h"

namespace bplace::fuzz {
namespace {

void AbortOnFailure(std::string_view target, std::string_view what) {
  std::fprintf(stderr, "fuzz target %.*s: invariant broken: %.*s\n",
               static_cast<int>(target.size()), target.data(), static_cast<int>(what.size()),
               what.data());
  std::abort();
}

FailureHandler g_handler = AbortOnFailure;

// Reports a broken invariant. Returns 0 so that a target can `return
// Broken(...)` when the GoogleTest handler returns instead of aborting.
int Broken(std::string_view target, int line, std::string_view what) {
  g_handler(target, "fuzz_targets.cc:" + std::to_string(line) + ": " + std::string(what));
  return 0;
}

// Inside a target body (which has a `kName`): check `cond` or report it.
#define FUZZ_CHECK(cond)                                \
  do {                                                  \
    if (!(cond)) return Broken(kName, __LINE__, #cond); \
  } while (false)

// Runs `body`, turning an escaped exception into a reported failure: every
// function fuzzed here promises never to throw.
template <typename Body>
int Guarded(std::string_view target, Body body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Broken(target, __LINE__, std::string("exception escaped: ") + e.what());
  } catch (...) {
    return Broken(target, __LINE__, "non-standard exception escaped");
  }
}

std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return {};
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

bool HasBlank(std::string_view s) {
  for (char c : s) {
    if (IsBlank(c)) return true;
  }
  return false;
}

// A table cell: what SplitFields returns.
bool IsToken(std::string_view s) { return !s.empty() && !HasBlank(s); }

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string WithCrlf(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// The parsers' contract: LF and CRLF line ends read the same. Compares
// success, the number of records and, on failure, the error.
template <typename T>
bool SameOutcome(const Result<T>& a, const Result<T>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return a.error().code == b.error().code && a.error().message == b.error().message;
  if constexpr (requires { a->size(); }) {
    return a->size() == b->size();
  } else {
    return true;
  }
}

bool IsParseError(const Error& error) { return error.code == ErrorCode::kParseError; }

// The STATUS text a parser kept reads back to the same two flags.
bool StatusReadsBack(const lsf::QueueStatus& status) {
  const auto again = lsf::ParseQueueStatus(status.text);
  return again && again->open == status.open && again->active == status.active;
}

}  // namespace

void SetFailureHandler(FailureHandler handler) {
  g_handler = handler != nullptr ? handler : AbortOnFailure;
}

// ------------------------------------------------------------------ bqueues

int FuzzBqueues(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "bqueues";
  return Guarded(kName, [&] {
    const std::string_view text = AsText(data, size);
    const auto queues = lsf::ParseBqueues(text);
    FUZZ_CHECK(SameOutcome(queues, lsf::ParseBqueues(WithCrlf(text))));
    if (!queues) {
      FUZZ_CHECK(IsParseError(queues.error()));
      return 0;
    }
    for (const lsf::QueueLoad& queue : *queues) {
      FUZZ_CHECK(IsToken(queue.name));
      FUZZ_CHECK(StatusReadsBack(queue.status));
    }
    return 0;
  });
}

int FuzzBqueuesJson(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "bqueues_json";
  return Guarded(kName, [&] {
    const std::string_view text = AsText(data, size);
    const auto queues = lsf::ParseBqueuesJson(text);
    FUZZ_CHECK(SameOutcome(queues, lsf::ParseBqueuesJson(WithCrlf(text))));
    if (!queues) {
      FUZZ_CHECK(IsParseError(queues.error()));
      return 0;
    }
    for (const lsf::QueueLoad& queue : *queues) {
      FUZZ_CHECK(!queue.name.empty());
      FUZZ_CHECK(StatusReadsBack(queue.status));
    }
    return 0;
  });
}

int FuzzQueueStatus(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "queue_status";
  return Guarded(kName, [&] {
    const std::string_view value = AsText(data, size);
    const auto status = lsf::ParseQueueStatus(value);
    if (!status) {
      FUZZ_CHECK(IsParseError(status.error()));
      return 0;
    }
    FUZZ_CHECK(status->text == value);
    FUZZ_CHECK(status->open == (value.substr(0, 5) == "Open:"));
    FUZZ_CHECK(status->open || value.substr(0, 7) == "Closed:");
    return 0;
  });
}

int FuzzBqueuesLong(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "bqueues_long";
  return Guarded(kName, [&] {
    const std::string_view text = AsText(data, size);
    const auto queues = lsf::ParseBqueuesLong(text);
    FUZZ_CHECK(SameOutcome(queues, lsf::ParseBqueuesLong(WithCrlf(text))));
    if (!queues) {
      FUZZ_CHECK(IsParseError(queues.error()));
      return 0;
    }
    FUZZ_CHECK(!queues->empty());
    for (const lsf::QueueDefinition& queue : *queues) {
      FUZZ_CHECK(!queue.name.empty());
      FUZZ_CHECK(StatusReadsBack(queue.status));
      FUZZ_CHECK(queue.is_default == Contains(queue.description, "This is the default queue."));
      for (const auto* list : {&queue.users, &queue.hosts, &queue.administrators}) {
        for (const std::string& token : *list) FUZZ_CHECK(IsToken(token));
      }
    }
    return 0;
  });
}

// ------------------------------------------------------------------- groups

namespace {

// Checks a successful bmgroup/bugroup result; returns the broken invariant.
const char* GroupsProblem(const std::vector<lsf::Group>& groups, bool expanded) {
  for (const lsf::Group& group : groups) {
    if (!IsToken(group.name)) return "group name is not one token";
    for (const std::string& member : group.members) {
      if (!IsToken(member)) return "member is not one token";
      if (expanded && member.find_first_of("[]") != std::string::npos) {
        return "member still holds a host range";
      }
    }
  }
  return nullptr;
}

int FuzzGroups(std::string_view kName, const std::uint8_t* data, std::size_t size,
               Result<std::vector<lsf::Group>> (*parse)(std::string_view), bool expanded) {
  return Guarded(kName, [&] {
    const std::string_view text = AsText(data, size);
    const auto groups = parse(text);
    FUZZ_CHECK(SameOutcome(groups, parse(WithCrlf(text))));
    if (!groups) {
      FUZZ_CHECK(IsParseError(groups.error()) || groups.error().code == ErrorCode::kNotFound);
      return 0;
    }
    const char* problem = GroupsProblem(*groups, expanded);
    if (problem != nullptr) return Broken(kName, __LINE__, problem);
    return 0;
  });
}

}  // namespace

int FuzzBmgroup(const std::uint8_t* data, std::size_t size) {
  return FuzzGroups("bmgroup", data, size, lsf::ParseBmgroup, true);
}

int FuzzBugroup(const std::uint8_t* data, std::size_t size) {
  return FuzzGroups("bugroup", data, size, lsf::ParseBugroup, false);
}

int FuzzExpandHostRange(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "expand_host_range";
  return Guarded(kName, [&] {
    const std::string_view name = AsText(data, size);
    const auto names = lsf::ExpandHostRange(name);
    if (!names) {
      FUZZ_CHECK(names.error().code == ErrorCode::kInvalidArgument);
      return 0;
    }
    FUZZ_CHECK(!names->empty());
    FUZZ_CHECK(names->size() <= lsf::kMaxExpandedHosts);
    if (name.find_first_of("[]") == std::string_view::npos) {
      FUZZ_CHECK(names->size() == 1 && names->front() == name);
      return 0;
    }
    // Text outside the brackets is kept: every name starts with what precedes
    // the first '[' and ends with what follows the last ']'.
    const std::string_view head = name.substr(0, name.find('['));
    const std::string_view tail = name.substr(name.rfind(']') + 1);
    for (const std::string& expanded : *names) {
      FUZZ_CHECK(expanded.find_first_of("[]") == std::string::npos);
      FUZZ_CHECK(expanded.size() > head.size() + tail.size());
      FUZZ_CHECK(std::string_view(expanded).substr(0, head.size()) == head);
      FUZZ_CHECK(std::string_view(expanded).substr(expanded.size() - tail.size()) == tail);
    }
    return 0;
  });
}

// ------------------------------------------------------------------- bhosts

int FuzzBhosts(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "bhosts";
  return Guarded(kName, [&] {
    const std::string_view text = AsText(data, size);
    const auto hosts = lsf::ParseBhosts(text);
    FUZZ_CHECK(SameOutcome(hosts, lsf::ParseBhosts(WithCrlf(text))));
    if (!hosts) {
      FUZZ_CHECK(IsParseError(hosts.error()));
      return 0;
    }
    for (const lsf::HostStatus& host : *hosts) {
      FUZZ_CHECK(IsToken(host.name));
      FUZZ_CHECK(IsToken(host.status));
    }
    return 0;
  });
}

// --------------------------------------------------------------------- bsub

int FuzzBsubReply(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "bsub_reply";
  return Guarded(kName, [&] {
    if (size == 0) return 0;
    const int exit_code = data[0];
    const std::string_view rest = AsText(data + 1, size - 1);
    const std::size_t nul = rest.find('\0');
    const std::string_view out = rest.substr(0, nul);
    const std::string_view err =
        nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
    const lsf::BsubReply reply = lsf::ClassifyBsubReply(exit_code, out, err);
    const lsf::BsubReply crlf = lsf::ClassifyBsubReply(exit_code, WithCrlf(out), WithCrlf(err));
    FUZZ_CHECK(crlf.outcome() == reply.outcome() && crlf.job_id == reply.job_id &&
               crlf.queue == reply.queue && crlf.prefix == reply.prefix &&
               crlf.message == reply.message);
    if (reply.outcome() == lsf::BsubOutcome::kSubmitted) {
      FUZZ_CHECK(!reply.job_id.empty());
      FUZZ_CHECK(reply.job_id.find_first_not_of("0123456789") == std::string::npos);
      FUZZ_CHECK(IsToken(reply.queue));
      FUZZ_CHECK(reply.queue.find_first_of("<>") == std::string::npos);
      FUZZ_CHECK(reply.raw_line.empty());
      return 0;
    }
    FUZZ_CHECK(reply.job_id.empty() && reply.queue.empty());
    FUZZ_CHECK(!reply.message.empty() || !reply.raw_line.empty());
    if (reply.raw_line.empty()) {
      FUZZ_CHECK(reply.prefix.empty());
      return 0;
    }
    FUZZ_CHECK(reply.raw_line.find('\n') == std::string::npos);
    FUZZ_CHECK(Contains(reply.raw_line, reply.prefix));
    FUZZ_CHECK(Contains(reply.raw_line, reply.message));
    FUZZ_CHECK(lsf::BsubRejectionPrefix(reply.raw_line) == reply.prefix);
    return 0;
  });
}

namespace {

// Splits a command string the way a POSIX shell splits the words
// JoinShellQuoted writes: blanks separate words, '...' is literal, and a
// backslash outside quotes escapes the next character. nullopt for anything
// else (an unclosed quote, a character the shell would treat specially).
std::optional<std::vector<std::string>> ShellSplit(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const std::size_t close = line.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      word += line.substr(i + 1, close - i - 1);
      in_word = true;
      i = close;
    } else if (c == '\\') {
      if (i + 1 == line.size()) return std::nullopt;
      word += line[++i];
      in_word = true;
    } else if (std::string_view("\t\n|&;<>()$`\"*?[#~{}!").find(c) != std::string_view::npos) {
      return std::nullopt;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

// Words a POSIX shell (and bash) reads as syntax when they stand unquoted in
// command position.
bool IsReservedWord(std::string_view word) {
  static constexpr std::string_view kReserved[] = {
      "!",  "{",  "}",    "case",  "do",    "done", "elif", "else",     "esac",   "fi",   "for",
      "if", "in", "then", "until", "while", "[[",   "]]",   "function", "select", "time", "coproc"};
  for (std::string_view reserved : kReserved) {
    if (word == reserved) return true;
  }
  return false;
}

// The first word of a command string as written, up to the first blank.
std::string_view FirstRawWord(std::string_view line) { return line.substr(0, line.find(' ')); }

// True when `raw` (a word as written) is a shell variable assignment
// "NAME=...", which the shell would perform instead of running a program.
bool IsAssignment(std::string_view raw) {
  const std::size_t equals = raw.find('=');
  if (equals == 0 || equals == std::string_view::npos) return false;
  for (std::size_t i = 0; i < equals; ++i) {
    const char c = raw[i];
    const bool name_char = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (i > 0 && c >= '0' && c <= '9');
    if (!name_char) return false;
  }
  return true;
}

}  // namespace

int FuzzBsubArgv(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "bsub_argv";
  return Guarded(kName, [&] {
    std::vector<std::string> words;
    const std::string_view text = AsText(data, size);
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t nul = text.find('\0', start);
      words.emplace_back(text.substr(start, nul - start));
      if (nul == std::string_view::npos) break;
      start = nul + 1;
    }

    for (const std::string& word : words) {
      const auto split = ShellSplit(lsf::ShellQuote(word));
      FUZZ_CHECK(split && split->size() == 1 && split->front() == word);
    }
    const std::string joined = lsf::JoinShellQuoted(words);
    const auto split = ShellSplit(joined);
    FUZZ_CHECK(split && *split == words);
    // A bare "A=b" or "if" in command position would not run as a program.
    FUZZ_CHECK(!IsAssignment(FirstRawWord(joined)));
    FUZZ_CHECK(!IsReservedWord(FirstRawWord(joined)));

    const auto checked = lsf::CheckExtraArgs(words);
    if (!checked) {
      FUZZ_CHECK(checked.error().code == ErrorCode::kInvalidArgument);
      FUZZ_CHECK(checked.error().message.rfind("extra_args[", 0) == 0);
      return 0;
    }
    // Accepted words are options with their values: the first is an option,
    // and bsub gets them verbatim between the daemon's options and the command.
    FUZZ_CHECK(words.front().size() > 1 && words.front().front() == '-');
    lsf::BsubOptions options;
    options.queue = "normal";
    options.description = "bplace:fuzz";
    options.slots = 2;
    options.extra_args = words;
    options.command = joined;
    const std::vector<std::string> argv = lsf::BuildBsubArgv("bsub", options);
    FUZZ_CHECK(argv.size() == 8 + words.size());
    FUZZ_CHECK(argv.back() == joined);
    FUZZ_CHECK(std::equal(words.begin(), words.end(), argv.end() - 1 - words.size()));
    return 0;
  });
}

// -------------------------------------------------------------- lsid, lsload

int FuzzLsid(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "lsid";
  return Guarded(kName, [&] {
    const std::string_view text = AsText(data, size);
    const auto info = lsf::ParseLsid(text);
    const auto crlf = lsf::ParseLsid(WithCrlf(text));
    FUZZ_CHECK(SameOutcome(info, crlf));
    if (!info) {
      FUZZ_CHECK(IsParseError(info.error()));
      return 0;
    }
    FUZZ_CHECK(info->cluster_name == crlf->cluster_name && info->master_name == crlf->master_name &&
               info->version == crlf->version);
    FUZZ_CHECK(!info->cluster_name.empty() && !info->master_name.empty());
    for (const std::string* field : {&info->cluster_name, &info->master_name, &info->version}) {
      FUZZ_CHECK(field->find('\n') == std::string::npos);
    }
    return 0;
  });
}

int FuzzLsload(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "lsload";
  return Guarded(kName, [&] {
    const std::string_view input = AsText(data, size);
    const std::size_t newline = input.find('\n');
    if (newline == std::string_view::npos) return 0;
    const std::string_view index = input.substr(0, newline);
    const std::string_view text = input.substr(newline + 1);
    const auto values = lsf::ParseLsload(text, index);
    FUZZ_CHECK(SameOutcome(values, lsf::ParseLsload(WithCrlf(text), index)));
    if (!values) {
      FUZZ_CHECK(IsParseError(values.error()));
      return 0;
    }
    for (const lsf::LoadIndexValue& value : *values) {
      FUZZ_CHECK(IsToken(value.host));
      FUZZ_CHECK(IsToken(value.status));
      FUZZ_CHECK(!value.value || std::isfinite(*value.value));
    }
    return 0;
  });
}

// -------------------------------------------------------------- job request

namespace {

bool HasControl(std::string_view s, bool allow_line_breaks) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\t' || (allow_line_breaks && (c == '\n' || c == '\r'))) continue;
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

bool Option(std::string_view s) { return !s.empty() && s.front() == '-'; }

// The JSON body a client would send for `job`, for the round trip check.
nlohmann::json Encode(const JobRequest& job) {
  nlohmann::json body = nlohmann::json::object();
  auto put = [&](const char* key, const std::optional<std::string>& value) {
    if (value) body[key] = *value;
  };
  put("host", job.host);
  if (!job.queues.empty()) body["queues"] = job.queues;
  put("command", job.command);
  if (job.argv) body["argv"] = *job.argv;
  put("script", job.script);
  put("job_name", job.job_name);
  if (job.slots) body["slots"] = *job.slots;
  if (!job.resources.empty()) body["resources"] = job.resources;
  put("output", job.output);
  put("error", job.error);
  put("cwd", job.cwd);
  put("walltime", job.walltime);
  put("memory", job.memory);
  put("project", job.project);
  put("app", job.app);
  if (!job.extra_args.empty()) body["extra_args"] = job.extra_args;
  return body;
}

bool Same(const JobRequest& a, const JobRequest& b) {
  return a.host == b.host && a.queues == b.queues && a.command == b.command && a.argv == b.argv &&
         a.script == b.script && a.job_name == b.job_name && a.slots == b.slots &&
         a.resources == b.resources && a.output == b.output && a.error == b.error &&
         a.cwd == b.cwd && a.walltime == b.walltime && a.memory == b.memory &&
         a.project == b.project && a.app == b.app && a.extra_args == b.extra_args;
}

// The broken invariant of an accepted request, or nullptr.
const char* JobProblem(const JobRequest& job, const api::JobRequestLimits& limits) {
  const int bodies =
      int(job.command.has_value()) + int(job.argv.has_value()) + int(job.script.has_value());
  if (bodies != 1) return "not exactly one of command/argv/script";
  if (job.slots && (*job.slots < 1 || *job.slots > limits.max_slots)) return "slots out of range";
  auto name_ok = [&](const std::optional<std::string>& s) {
    return !s || (!s->empty() && s->size() <= limits.max_name_bytes && !HasBlank(*s) &&
                  !HasControl(*s, false) && !Option(*s));
  };
  if (!name_ok(job.host) || !name_ok(job.project) || !name_ok(job.app)) return "bad name field";
  if (job.queues.size() > limits.max_list_items) return "too many queues";
  for (const std::string& queue : job.queues) {
    if (!name_ok(queue)) return "bad queue name";
  }
  auto line_ok = [&](const std::optional<std::string>& s, std::size_t max) {
    return !s || (!s->empty() && s->size() <= max && !HasControl(*s, false));
  };
  for (const std::string& resources : job.resources) {
    if (!line_ok(resources, limits.max_string_bytes) || Option(resources)) {
      return "bad single-line option value";
    }
  }
  for (const auto* value :
       {&job.job_name, &job.output, &job.error, &job.cwd, &job.walltime, &job.memory}) {
    if (!line_ok(*value, limits.max_string_bytes) || (*value && Option(**value))) {
      return "bad single-line option value";
    }
  }
  if (!line_ok(job.command, limits.max_command_bytes) || (job.command && Option(*job.command))) {
    return "bad command";
  }
  if (job.script && (job.script->empty() || job.script->size() > limits.max_command_bytes ||
                     job.script->find('\0') != std::string::npos)) {
    return "bad script";
  }
  if (job.argv) {
    if (job.argv->empty() || job.argv->size() > limits.max_list_items) return "bad argv length";
    for (const std::string& word : *job.argv) {
      if (!line_ok(word, limits.max_command_bytes)) return "bad argv word";
    }
    if (Option(job.argv->front())) return "argv starts with an option";
    if (lsf::JoinShellQuoted(*job.argv).size() > limits.max_command_bytes) {
      return "argv longer than a command once quoted";
    }
  }
  if (job.extra_args.size() > limits.max_list_items) return "too many extra_args";
  for (const std::string& word : job.extra_args) {
    if (!line_ok(word, limits.max_string_bytes)) return "bad extra_args word";
  }
  if (!lsf::CheckExtraArgs(job.extra_args)) return "extra_args not checked";
  return nullptr;
}

}  // namespace

int FuzzJobRequest(const std::uint8_t* data, std::size_t size) {
  static constexpr std::string_view kName = "job_request";
  return Guarded(kName, [&] {
    const api::JobRequestLimits limits;
    const auto job = api::DecodeJobRequest(AsText(data, size), limits);
    if (!job) {
      FUZZ_CHECK(job.error().code == ErrorCode::kInvalidArgument);
      // Every refusal names its field (or "body") before ": ".
      const std::string& message = job.error().message;
      FUZZ_CHECK(message.find(": ") != std::string::npos);
      return 0;
    }
    const char* problem = JobProblem(*job, limits);
    if (problem != nullptr) return Broken(kName, __LINE__, problem);
    // What was accepted is accepted again, unchanged, when sent back.
    const auto again = api::DecodeJobRequest(Encode(*job).dump(), limits);
    FUZZ_CHECK(again && Same(*job, *again));
    return 0;
  });
}

}  // namespace bplace::fuzz
