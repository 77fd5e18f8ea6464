#include "lsf_adapter/metered_command_runner.h"

#include <algorithm>
#include <string>
#include <utility>

#include "lsf_adapter/command_failure.h"

namespace bplace::lsf {
namespace {

constexpr std::string_view kOther = "other";

std::string_view CommandName(std::size_t index) {
  return index < kMeteredCommands.size() ? kMeteredCommands[index] : kOther;
}

}  // namespace

MeteredCommandRunner::MeteredCommandRunner(CommandRunner& inner, metrics::Registry& registry)
    : inner_(inner) {
  auto& runs = registry.AddCounter(
      "bplace_lsf_commands_total",
      "LSF commands bplaced ran (refreshes, permission checks, bsub, bjobs, bkill), by command "
      "and how they ended.",
      {"command", "outcome"});
  auto& durations = registry.AddHistogram(
      "bplace_lsf_command_duration_seconds",
      "Wall-clock time of LSF commands from start to exit (bsub's latency is command=\"bsub\").",
      {"command"}, metrics::LatencyBuckets());
  for (std::size_t c = 0; c < kCommands; ++c) {
    const std::string command(CommandName(c));
    for (std::size_t o = 0; o < kCommandOutcomes.size(); ++o) {
      runs_[c][o] = &runs.WithLabels({command, std::string(kCommandOutcomes[o])});
    }
    durations_[c] = &durations.WithLabels({command});
  }
}

std::string_view MeteredCommandRunner::CommandLabel(std::string_view argv0) {
  const std::size_t slash = argv0.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1);
  const auto it = std::find(kMeteredCommands.begin(), kMeteredCommands.end(), base);
  return it == kMeteredCommands.end() ? kOther : *it;
}

std::string_view MeteredCommandRunner::OutcomeLabel(const Result<CommandResult>& result) {
  if (!result) return "not_started";
  const CommandFailure failure = ClassifyFailure(*result);
  switch (failure.kind) {
    case CommandFailureKind::kNone:
      return "ok";
    case CommandFailureKind::kTransient:
      return result->timed_out ? "timeout" : "signal";
    case CommandFailureKind::kUnavailable:
    case CommandFailureKind::kNoGroups:
    case CommandFailureKind::kCommandError:
    case CommandFailureKind::kTruncated:
      // The same words as kCommandOutcomes ("unavailable", "no_groups", ...).
      return CommandFailureKindName(failure.kind);
  }
  return "command_error";
}

std::size_t MeteredCommandRunner::CommandIndex(std::string_view label) {
  const auto it = std::find(kMeteredCommands.begin(), kMeteredCommands.end(), label);
  return static_cast<std::size_t>(it - kMeteredCommands.begin());  // size(): "other"
}

std::size_t MeteredCommandRunner::OutcomeIndex(std::string_view label) {
  const auto it = std::find(kCommandOutcomes.begin(), kCommandOutcomes.end(), label);
  // OutcomeLabel returns only values of kCommandOutcomes; should a new
  // failure kind's name be missing there, it counts as a command error.
  if (it == kCommandOutcomes.end()) return OutcomeIndex("command_error");
  return static_cast<std::size_t>(it - kCommandOutcomes.begin());
}

void MeteredCommandRunner::Run(CommandSpec spec, Callback done) {
  const std::size_t command =
      CommandIndex(spec.argv.empty() ? kOther : CommandLabel(spec.argv.front()));
  inner_.Run(std::move(spec), [this, command,
                               done = std::move(done)](Result<CommandResult> result) mutable {
    runs_[command][OutcomeIndex(OutcomeLabel(result))]->Inc();
    if (result) {
      durations_[command]->Observe(std::chrono::duration<double>(result->elapsed).count());
    }
    done(std::move(result));
  });
}

}  // namespace bplace::lsf
