#pragma once

// One classification of how an LSF command ended, used by every caller
// that runs LSF queries (the refresh tiers, permission fetches, bjobs,
// bkill). Pure functions; thread-safe.

#include <string>
#include <string_view>

#include "common/result.h"
#include "lsf_adapter/command_runner.h"

namespace bplace::lsf {

// How a finished command ended, from the caller's point of view.
enum class CommandFailureKind {
  kNone,          // exit status 0 and the whole output: use it
  kUnavailable,   // LSF says it is down or not configured (lsf_messages.h)
  kNoGroups,      // bmgroup/bugroup: the cluster defines no group (an answer)
  kTransient,     // timed out, or killed by a signal: ask again later
  kCommandError,  // another non-zero exit (bad option, unknown name, ...)
  kTruncated,     // exit status 0, but the output is cut short (see below)
};

// A classified ending: the kind and a sentence for people (LSF's reason
// line, or ours), without the command line.
struct CommandFailure {
  CommandFailureKind kind = CommandFailureKind::kNone;
  std::string reason;
};

// Classifies one finished command. Output is "cut short" when the runner
// cut it at its size limit (output_truncated) or when stdout is not empty
// and does not end with a newline: every LSF query ends its output with one,
// and a connection dropped mid-print (exit status 0) leaves a partial last
// line that must never be published as a complete snapshot. The reason of
// a non-zero exit is lsf::ReasonLine of both streams. Never fails.
CommandFailure ClassifyFailure(const CommandResult& result);

// Short lowercase name of a kind ("unavailable"), for logs and JSON.
const char* CommandFailureKindName(CommandFailureKind kind);

// The stdout of a query that ended well, or an error whose message starts
// with `command_line` ("bqueues -w: exit status 255: LSF is down"):
//   could not start       kUnavailable, the runner's message
//   kTransient timed out  kTimeout "no answer within N ms (killed)"
//   kTransient signal     kCommandFailed "killed by signal N"
//   kUnavailable          kUnavailable "exit status N: <reason>"
//   kNoGroups             kNotFound "exit status N: <reason>"
//   kCommandError         kCommandFailed "exit status N: <reason>"
//   kTruncated            kParseError "output cut short (...)"
Result<std::string> QueryOutput(std::string_view command_line, Result<CommandResult> result);

}  // namespace bplace::lsf
