#include "lsf_adapter/command_failure.h"

#include <utility>

#include "lsf_adapter/lsf_messages.h"

namespace bplace::lsf {

CommandFailure ClassifyFailure(const CommandResult& result) {
  if (result.timed_out) {
    return {CommandFailureKind::kTransient,
            "no answer within " + std::to_string(result.elapsed.count()) + " ms (killed)"};
  }
  if (result.exit_code < 0) {
    return {CommandFailureKind::kTransient,
            "killed by signal " + std::to_string(result.term_signal)};
  }
  if (result.exit_code != 0) {
    const std::string reason(ReasonLine(result.out, result.err));
    std::string text = "exit status " + std::to_string(result.exit_code);
    if (!reason.empty()) text += ": " + reason;
    const CommandFailureKind kind = SaysLsfUnavailable(reason) ? CommandFailureKind::kUnavailable
                                    : SaysNoGroups(reason)     ? CommandFailureKind::kNoGroups
                                                               : CommandFailureKind::kCommandError;
    return {kind, std::move(text)};
  }
  if (result.output_truncated) {
    return {CommandFailureKind::kTruncated,
            "output cut short (larger than the runner's output limit)"};
  }
  if (!result.out.empty() && result.out.back() != '\n') {
    return {CommandFailureKind::kTruncated,
            "output cut short (no final newline: LSF may have dropped the connection)"};
  }
  return {};
}

const char* CommandFailureKindName(CommandFailureKind kind) {
  switch (kind) {
    case CommandFailureKind::kNone:
      return "none";
    case CommandFailureKind::kUnavailable:
      return "unavailable";
    case CommandFailureKind::kNoGroups:
      return "no_groups";
    case CommandFailureKind::kTransient:
      return "transient";
    case CommandFailureKind::kCommandError:
      return "command_error";
    case CommandFailureKind::kTruncated:
      return "truncated";
  }
  return "unknown";
}

Result<std::string> QueryOutput(std::string_view command_line, Result<CommandResult> result) {
  const std::string line(command_line);
  if (!result) return Fail(ErrorCode::kUnavailable, line + ": " + result.error().message);
  CommandFailure failure = ClassifyFailure(*result);
  ErrorCode code = ErrorCode::kCommandFailed;
  switch (failure.kind) {
    case CommandFailureKind::kNone:
      return std::move(result->out);
    case CommandFailureKind::kTransient:
      code = result->timed_out ? ErrorCode::kTimeout : ErrorCode::kCommandFailed;
      break;
    case CommandFailureKind::kUnavailable:
      code = ErrorCode::kUnavailable;
      break;
    case CommandFailureKind::kNoGroups:
      code = ErrorCode::kNotFound;
      break;
    case CommandFailureKind::kCommandError:
      code = ErrorCode::kCommandFailed;
      break;
    case CommandFailureKind::kTruncated:
      code = ErrorCode::kParseError;
      break;
  }
  return Fail(code, line + ": " + failure.reason);
}

}  // namespace bplace::lsf
