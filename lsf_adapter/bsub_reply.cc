#include "lsf_adapter/bsub_reply.h"

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "common/text.h"
#include "lsf_adapter/lsf_messages.h"
#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kNotSubmitted = "Job not submitted.";
constexpr std::string_view kEsubAbort = "Request aborted by esub";
constexpr int kSigpipeExit = 141;  // 128 + SIGPIPE, as the shell reports it
constexpr std::size_t kMaxEsubLines = 5;

// Every reason bsub gives that we act on, with what it is about
// (docs/lsf-formats.md "Replies"). Queue reasons judge the queue or the
// host/queue pair: another queue may accept the same job. Job reasons judge the
// job or the user: no other queue will help. "Failed in an LSF library call"
// comes before the other unavailable phrases: its text goes on with ": LIM is
// down", which must not make it look like a prefix.
struct BsubReason {
  std::string_view text;
  BsubScope scope;
  BsubCause cause;
};
constexpr BsubReason kReasons[] = {
    {"User cannot use the queue", BsubScope::kUserQueue, BsubCause::kPermission},
    {"No such queue", BsubScope::kUserQueue, BsubCause::kPermission},
    {"Queue has been closed", BsubScope::kUserQueue, BsubCause::kQueueClosed},
    {"Not activated because queue windows are closed", BsubScope::kUserQueue,
     BsubCause::kQueueClosed},
    {"Host or host group is not used by the queue", BsubScope::kHostQueue, BsubCause::kHost},
    {"Bad host name, host group name or cluster name", BsubScope::kHostQueue, BsubCause::kHost},
    {"The destination queue has reached its job limit", BsubScope::kUserQueue, BsubCause::kLimit},
    {"Queue does not have enough per-user job slots", BsubScope::kUserQueue, BsubCause::kLimit},
    {"User or one of user's groups does not have enough job slots", BsubScope::kUserQueue,
     BsubCause::kLimit},
    {"Too many processors requested", BsubScope::kUserQueue, BsubCause::kLimit},
    // Pending-job thresholds of the user, a user group or the cluster
    // (MAX_PEND_JOBS, MAX_PEND_SLOTS): no other queue helps until jobs
    // dispatch.
    {"Pending job threshold reached", BsubScope::kJob, BsubCause::kLimit},
    {"Pending job slots threshold reached", BsubScope::kJob, BsubCause::kLimit},
    {"Bad resource requirement syntax", BsubScope::kJob, BsubCause::kRequest},
    {kEsubAbort, BsubScope::kJob, BsubCause::kEsub},
    {"Unknown user", BsubScope::kJob, BsubCause::kIdentity},
    {"User permission denied", BsubScope::kJob, BsubCause::kIdentity},
    {"Failed in an LSF library call", BsubScope::kLsfUnavailable, BsubCause::kUnavailable},
};

struct Submitted {
  std::string job_id;
  std::string queue;
};

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

// A rejection line taken apart.
struct Rejection {
  BsubScope scope = BsubScope::kUnknown;
  BsubCause cause = BsubCause::kUnknown;
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

// A known reason found at `at` in `body`: "<prefix>: <reason>" puts
// whatever precedes the reason into the prefix.
Rejection Known(std::string_view body, std::size_t at, BsubScope scope, BsubCause cause) {
  Rejection rejection{scope, cause, {}, body};
  if (at >= 2 && body.substr(at - 2, 2) == ": ") {
    rejection.prefix = Trim(body.substr(0, at - 2));
    rejection.message = body.substr(at);
  }
  return rejection;
}

Rejection Dissect(std::string_view line) {
  bool had_suffix = false;
  const std::string_view body = WithoutNotSubmitted(Trim(line), had_suffix);
  for (const BsubReason& reason : kReasons) {
    const std::size_t at = body.find(reason.text);
    if (at != std::string_view::npos) return Known(body, at, reason.scope, reason.cause);
  }
  if (const std::size_t at = FindUnavailablePhrase(body); at != std::string_view::npos) {
    return Known(body, at, BsubScope::kLsfUnavailable, BsubCause::kUnavailable);
  }

  // An unknown reason: a prefix is one blank-free word before the first ": ".
  Rejection rejection{had_suffix ? BsubScope::kJob : BsubScope::kUnknown,
                      had_suffix ? BsubCause::kRequest : BsubCause::kUnknown,
                      {},
                      body};
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

// The esub's own lines before its abort line `abort` in the stream that
// holds it: at most kMaxEsubLines, chatter left out, joined with "; ".
std::string EsubLines(std::string_view stream, std::string_view abort) {
  const std::vector<Line> lines = SplitLines(stream);
  std::vector<std::string_view> mine;
  for (const Line& line : lines) {
    const std::string_view text = Trim(line.text);
    if (text.data() >= abort.data() && text.data() < abort.data() + abort.size()) break;
    if (!text.empty() && !IsRetryChatter(text)) mine.push_back(text);
  }
  if (mine.size() > kMaxEsubLines) mine.erase(mine.begin(), mine.end() - kMaxEsubLines);
  std::string joined;
  for (std::string_view text : mine) {
    if (!joined.empty()) joined += "; ";
    joined += text;
  }
  return joined;
}

bool PointsInto(std::string_view part, std::string_view whole) {
  return !part.empty() && part.data() >= whole.data() &&
         part.data() + part.size() <= whole.data() + whole.size();
}

}  // namespace

const char* BsubScopeName(BsubScope scope) {
  switch (scope) {
    case BsubScope::kNone:
      return "none";
    case BsubScope::kUserQueue:
      return "user_queue";
    case BsubScope::kHostQueue:
      return "host_queue";
    case BsubScope::kJob:
      return "job";
    case BsubScope::kLsfUnavailable:
      return "lsf_unavailable";
    case BsubScope::kUnknown:
      break;
  }
  return "unknown";
}

const char* BsubCauseName(BsubCause cause) {
  switch (cause) {
    case BsubCause::kNone:
      return "none";
    case BsubCause::kPermission:
      return "permission";
    case BsubCause::kQueueClosed:
      return "queue_closed";
    case BsubCause::kHost:
      return "host";
    case BsubCause::kLimit:
      return "limit";
    case BsubCause::kEsub:
      return "esub";
    case BsubCause::kRequest:
      return "request";
    case BsubCause::kIdentity:
      return "identity";
    case BsubCause::kUnavailable:
      return "unavailable";
    case BsubCause::kUnknown:
      break;
  }
  return "unknown";
}

BsubOutcome BsubReply::outcome() const {
  switch (scope) {
    case BsubScope::kNone:
      return BsubOutcome::kSubmitted;
    case BsubScope::kUserQueue:
    case BsubScope::kHostQueue:
      return BsubOutcome::kQueueRejected;
    case BsubScope::kJob:
      return BsubOutcome::kJobRejected;
    case BsubScope::kLsfUnavailable:
      return BsubOutcome::kUnavailable;
    case BsubScope::kUnknown:
      break;
  }
  return BsubOutcome::kUnknown;
}

std::string BsubReply::Explanation() const {
  if (esub_message.empty()) return message;
  return message + " (" + esub_message + ")";
}

std::string_view BsubRejectionPrefix(std::string_view line) { return Dissect(line).prefix; }

BsubReply ClassifyBsubReply(int exit_code, std::string_view out, std::string_view err) {
  BsubReply reply;
  std::optional<Submitted> submitted = FindSubmitted(out);
  if (!submitted) submitted = FindSubmitted(err);
  if (submitted) {
    reply.scope = BsubScope::kNone;
    reply.cause = BsubCause::kNone;
    reply.job_id = std::move(submitted->job_id);
    reply.queue = std::move(submitted->queue);
    return reply;
  }

  const std::string_view line = ReasonLine(out, err);
  if (line.empty()) {
    if (exit_code == kSigpipeExit) {
      reply.scope = BsubScope::kJob;
      reply.cause = BsubCause::kIdentity;
      reply.message =
          "bsub exited with status 141 and no output (LSF closed the connection; OpenLava does "
          "this when it rejects root without LSF_ROOT_REX)";
    } else {
      reply.message = "bsub exited with status " + std::to_string(exit_code) + " and no output";
    }
    return reply;
  }

  const Rejection rejection = Dissect(line);
  reply.scope = rejection.scope;
  reply.cause = rejection.cause;
  reply.prefix = std::string(rejection.prefix);
  reply.message = std::string(rejection.message);
  reply.raw_line = std::string(line);
  if (rejection.cause == BsubCause::kEsub) {
    reply.esub_message = EsubLines(PointsInto(line, err) ? err : out, line);
  }
  return reply;
}

}  // namespace bplace::lsf
