#include "lsf_adapter/bsub_reply.h"

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kNotSubmitted = "Job not submitted.";
constexpr int kSigpipeExit = 141;  // 128 + SIGPIPE, as the shell reports it

// Reasons that judge the queue (or the host/queue pair): another queue may
// accept the same job.
constexpr std::string_view kQueueReasons[] = {
    "User cannot use the queue",
    "No such queue",
    "Queue has been closed",
    "Not activated because queue windows are closed",
    "Host or host group is not used by the queue",
    "Bad host name, host group name or cluster name",
    "The destination queue has reached its job limit",
    "Queue does not have enough per-user job slots",
    "User or one of user's groups does not have enough job slots",
    "Too many processors requested",
};

// Reasons that judge the job or the user: no other queue will help.
constexpr std::string_view kJobReasons[] = {
    "Bad resource requirement syntax",
    "Request aborted by esub",
    "Unknown user",
    "User permission denied",
};

// LSF itself is down or the environment is broken. "Failed in an LSF library
// call" comes first: its own text goes on with ": LIM is down", which must not
// make "Failed in an LSF library call" look like a prefix.
constexpr std::string_view kUnavailableReasons[] = {
    "Failed in an LSF library call", "LIM is down", "Connection refused by server",
    "daemon not responding",         "LSF is down", "Cannot connect to LSF",
};

struct Submitted {
  std::string job_id;
  std::string queue;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool ConsumePrefix(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// Hand matcher for `Job <(\d+)> is submitted to (default )?queue <([^>]+)>`.
// Queue names hold no blanks and no '<', so the name scan stops at the next
// one and the whole search stays linear.
std::optional<Submitted> FindSubmitted(std::string_view text) {
  constexpr std::string_view kJob = "Job <";
  std::size_t pos = 0;
  while ((pos = text.find(kJob, pos)) != std::string_view::npos) {
    std::string_view rest = text.substr(pos + kJob.size());
    ++pos;
    std::size_t digits = 0;
    while (digits < rest.size() && IsDigit(rest[digits])) ++digits;
    if (digits == 0) continue;
    const std::string_view job_id = rest.substr(0, digits);
    rest.remove_prefix(digits);
    if (!ConsumePrefix(rest, "> is submitted to ")) continue;
    ConsumePrefix(rest, "default ");
    if (!ConsumePrefix(rest, "queue <")) continue;
    std::size_t length = 0;
    while (length < rest.size() && rest[length] != '>' && rest[length] != '<' &&
           !IsBlank(rest[length])) {
      ++length;
    }
    if (length == 0 || length == rest.size() || rest[length] != '>') continue;
    return Submitted{std::string(job_id), std::string(rest.substr(0, length))};
  }
  return std::nullopt;
}

bool IsChatter(std::string_view line) { return line.find("Please wait") != std::string_view::npos; }

// The last non-blank line that is not retry chatter; the last chatter line when
// there is nothing else; empty when `text` is blank.
std::string_view LastMeaningfulLine(std::string_view text) {
  const std::vector<Line> lines = SplitLines(text);
  std::string_view chatter;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const std::string_view line = Trim(it->text);
    if (line.empty()) continue;
    if (!IsChatter(line)) return line;
    if (chatter.empty()) chatter = line;
  }
  return chatter;
}

// A rejection line taken apart.
struct Rejection {
  BsubOutcome outcome = BsubOutcome::kUnknown;
  std::string_view prefix;
  std::string_view message;
};

// "reason. Job not submitted." -> "reason"
std::string_view WithoutNotSubmitted(std::string_view line, bool& had_suffix) {
  had_suffix = false;
  if (line.size() >= kNotSubmitted.size() &&
      line.substr(line.size() - kNotSubmitted.size()) == kNotSubmitted) {
    had_suffix = true;
    line.remove_suffix(kNotSubmitted.size());
    line = Trim(line);
    if (!line.empty() && line.back() == '.') line.remove_suffix(1);
  }
  return Trim(line);
}

Rejection Dissect(std::string_view line) {
  bool had_suffix = false;
  const std::string_view body = WithoutNotSubmitted(Trim(line), had_suffix);

  struct Table {
    BsubOutcome outcome;
    const std::string_view* begin;
    const std::string_view* end;
  };
  const Table tables[] = {
      {BsubOutcome::kQueueRejected, std::begin(kQueueReasons), std::end(kQueueReasons)},
      {BsubOutcome::kJobRejected, std::begin(kJobReasons), std::end(kJobReasons)},
      {BsubOutcome::kUnavailable, std::begin(kUnavailableReasons), std::end(kUnavailableReasons)},
  };
  for (const Table& table : tables) {
    for (const std::string_view* reason = table.begin; reason != table.end; ++reason) {
      const std::size_t at = body.find(*reason);
      if (at == std::string_view::npos) continue;
      Rejection rejection{table.outcome, {}, body};
      // "<prefix>: <reason>": the prefix is whatever precedes the reason.
      if (at >= 2 && body.substr(at - 2, 2) == ": ") {
        rejection.prefix = Trim(body.substr(0, at - 2));
        rejection.message = body.substr(at);
      }
      return rejection;
    }
  }

  // An unknown reason: a prefix is one blank-free word before the first ": ".
  Rejection rejection{had_suffix ? BsubOutcome::kJobRejected : BsubOutcome::kUnknown, {}, body};
  const std::size_t colon = body.find(": ");
  if (colon != std::string_view::npos && colon > 0) {
    const std::string_view word = body.substr(0, colon);
    bool blank_free = true;
    for (char c : word) blank_free = blank_free && !IsBlank(c);
    if (blank_free) {
      rejection.prefix = word;
      rejection.message = Trim(body.substr(colon + 2));
    }
  }
  return rejection;
}

}  // namespace

std::string_view BsubRejectionPrefix(std::string_view line) { return Dissect(line).prefix; }

BsubReply ClassifyBsubReply(int exit_code, std::string_view out, std::string_view err) {
  BsubReply reply;
  std::optional<Submitted> submitted = FindSubmitted(out);
  if (!submitted) submitted = FindSubmitted(err);
  if (submitted) {
    reply.outcome = BsubOutcome::kSubmitted;
    reply.job_id = std::move(submitted->job_id);
    reply.queue = std::move(submitted->queue);
    return reply;
  }

  std::string_view line = LastMeaningfulLine(err);
  if (line.empty()) line = LastMeaningfulLine(out);
  if (line.empty()) {
    if (exit_code == kSigpipeExit) {
      reply.outcome = BsubOutcome::kJobRejected;
      reply.message =
          "bsub exited with status 141 and no output (LSF closed the connection; OpenLava does "
          "this when it rejects root without LSF_ROOT_REX)";
    } else {
      reply.outcome = BsubOutcome::kUnknown;
      reply.message = "bsub exited with status " + std::to_string(exit_code) + " and no output";
    }
    return reply;
  }

  const Rejection rejection = Dissect(line);
  reply.outcome = rejection.outcome;
  reply.prefix = std::string(rejection.prefix);
  reply.message = std::string(rejection.message);
  reply.raw_line = std::string(line);
  return reply;
}

}  // namespace bplace::lsf
