#pragma once

#include <array>
#include <string_view>

#include "common/metrics.h"
#include "lsf_adapter/command_runner.h"

namespace bplace::lsf {

// The LSF commands bplaced runs, the values of the `command` label; any
// other program (rdma_probe, a site's wrapper) is counted as "other".
inline constexpr std::array<std::string_view, 10> kMeteredCommands = {
    "bhosts", "bjobs",   "bkill",      "bmgroup", "bqueues",
    "bsub",   "bugroup", "lsclusters", "lsid",    "lsload"};

// How a command ended, the values of the `outcome` label: "ok" (exit 0, the
// whole output), "unavailable" (LSF says it is down), "no_groups",
// "command_error" (another non-zero exit: a bsub LSF refused, say),
// "truncated", "timeout" (killed by us), "signal" (killed by another
// signal) — ClassifyFailure's kinds, with its transient one split in two —
// and "not_started" (the runner could not start it).
inline constexpr std::array<std::string_view, 8> kCommandOutcomes = {
    "ok",        "unavailable", "no_groups", "command_error",
    "truncated", "timeout",     "signal",    "not_started"};

// A CommandRunner that runs every command on another runner and counts it
// (the decorator of the CommandRunner seam):
//   bplace_lsf_commands_total{command, outcome}            counter
//   bplace_lsf_command_duration_seconds{command}           histogram of the
//     runner's CommandResult::elapsed (bsub's latency among them); commands
//     that could not start have no duration.
// `command` is the basename of argv[0] when it is one of kMeteredCommands,
// else "other": a fixed set, whatever the arguments (which may name users
// or jobs). Every series exists from the start. Thread-safe as the inner
// runner; the counting is lock-free.
class MeteredCommandRunner final : public CommandRunner {
 public:
  // Registers the two families in `registry`; both must outlive this.
  // Throws std::invalid_argument when they are registered already.
  MeteredCommandRunner(CommandRunner& inner, metrics::Registry& registry);

  // Runs `spec` on the inner runner; `done` gets its result unchanged,
  // after the counts.
  void Run(CommandSpec spec, Callback done) override;

  // The label value for argv[0]: "bqueues" for "/opt/lsf/bin/bqueues".
  static std::string_view CommandLabel(std::string_view argv0);
  // The `outcome` label of a result (see kCommandOutcomes).
  static std::string_view OutcomeLabel(const Result<CommandResult>& result);

 private:
  static constexpr std::size_t kCommands = kMeteredCommands.size() + 1;  // and "other"
  static std::size_t CommandIndex(std::string_view label);
  static std::size_t OutcomeIndex(std::string_view label);

  CommandRunner& inner_;
  std::array<std::array<metrics::Counter*, kCommandOutcomes.size()>, kCommands> runs_{};
  std::array<metrics::Histogram*, kCommands> durations_{};
};

}  // namespace bplace::lsf
