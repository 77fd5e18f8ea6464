#include "lsf_adapter/bkill_reply.h"

#include <optional>
#include <string>
#include <utility>

#include "lsf_adapter/job_record.h"
#include "lsf_adapter/lsf_messages.h"
#include "lsf_adapter/table.h"

namespace bplace::lsf {
namespace {

constexpr std::string_view kJobOpen = "Job <";

// The reasons bkill prints after "Job <N>: " that we act on (lsb.err.c of
// volclava 2.2, LSF 10.1's bkill, tests/lsfsim/cmd_bkill.cc), and the
// sentences it prints after "Job <N> ".
struct BkillReason {
  std::string_view text;
  BkillOutcome outcome;
};
constexpr BkillReason kColonReasons[] = {
    {"Job has already finished", BkillOutcome::kAlreadyFinished},
    {"No matching job found", BkillOutcome::kNotFound},
    {"User permission denied", BkillOutcome::kPermissionDenied},
};
constexpr BkillReason kSentences[] = {
    {"is being terminated", BkillOutcome::kTerminating},
    {"is not found", BkillOutcome::kNotFound},
};

// "Job <1234[7]>..." taken apart: the id and what follows the '>'.
struct JobLine {
  JobId id;
  std::string_view rest;
};

std::optional<JobLine> SplitJobLine(std::string_view line) {
  if (line.substr(0, kJobOpen.size()) != kJobOpen) return std::nullopt;
  const std::string_view after = line.substr(kJobOpen.size());
  const std::size_t close = after.find('>');
  if (close == std::string_view::npos) return std::nullopt;
  std::optional<JobId> id = ParseJobId(after.substr(0, close));
  if (!id) return std::nullopt;
  return JobLine{std::move(*id), after.substr(close + 1)};
}

BkillOutcome ReasonOutcome(std::string_view reason) {
  for (const BkillReason& known : kColonReasons) {
    if (reason.find(known.text) != std::string_view::npos) return known.outcome;
  }
  return SaysLsfUnavailable(reason) ? BkillOutcome::kUnavailable : BkillOutcome::kUnknown;
}

BkillResult Classify(std::string_view line) {
  BkillResult result;
  result.line = std::string(line);
  result.message = result.line;
  const std::optional<JobLine> job = SplitJobLine(line);
  if (!job) {
    if (SaysLsfUnavailable(line)) result.outcome = BkillOutcome::kUnavailable;
    return result;
  }
  result.job_id = job->id.job_id;
  result.array_index = job->id.array_index;
  if (job->rest.substr(0, 1) == ":") {
    const std::string_view reason = Trim(job->rest.substr(1));
    result.message = std::string(reason);
    result.outcome = ReasonOutcome(reason);
    return result;
  }
  for (const BkillReason& known : kSentences) {
    if (job->rest.find(known.text) != std::string_view::npos) result.outcome = known.outcome;
  }
  return result;
}

void ClassifyLines(std::string_view stream, std::vector<BkillResult>& results) {
  for (const Line& line : SplitLines(stream)) {
    const std::string_view text = Trim(line.text);
    if (text.empty() || IsRetryChatter(text)) continue;
    results.push_back(Classify(text));
  }
}

}  // namespace

const char* BkillOutcomeName(BkillOutcome outcome) {
  switch (outcome) {
    case BkillOutcome::kTerminating:
      return "terminating";
    case BkillOutcome::kAlreadyFinished:
      return "already_finished";
    case BkillOutcome::kNotFound:
      return "not_found";
    case BkillOutcome::kPermissionDenied:
      return "permission_denied";
    case BkillOutcome::kUnavailable:
      return "unavailable";
    case BkillOutcome::kUnknown:
      break;
  }
  return "unknown";
}

std::vector<BkillResult> ClassifyBkillReply(int exit_code, std::string_view out,
                                            std::string_view err) {
  std::vector<BkillResult> results;
  ClassifyLines(out, results);
  ClassifyLines(err, results);
  if (!results.empty()) return results;

  // Nothing but chatter, or nothing at all.
  BkillResult whole;
  const std::string_view chatter = ReasonLine(out, err);
  if (!chatter.empty() && SaysLsfUnavailable(chatter)) {
    whole.outcome = BkillOutcome::kUnavailable;
    whole.line = std::string(chatter);
    whole.message = whole.line;
  } else {
    whole.message = "bkill exited with status " + std::to_string(exit_code) + " and no output";
  }
  results.push_back(std::move(whole));
  return results;
}

}  // namespace bplace::lsf
