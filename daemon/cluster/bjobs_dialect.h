#pragma once

#include <atomic>
#include <string_view>

#include "lsf_adapter/command_runner.h"

namespace bplace {

// The one fact about this cluster's bjobs that every part of the daemon
// asking it shares: whether bjobs gives our fields with `-o ... -json`
// (IBM LSF 10.1.0.2+) or must be asked in the table and long forms
// (`bjobs -a -w -u all`, `bjobs -a -l`: volclava/OpenLava, LSF before
// 10.1), docs/lsf-formats.md "Sources". Learned once, from the first
// refused -o/-json answer of any caller (the jobs tier, the reconciler, the
// cross-node key check), and never unlearned in the daemon's life. The
// composition root owns the one instance; everything else holds a
// reference. Thread-safe (one atomic).
class BjobsDialect {
 public:
  // True once bjobs refused -o/-json here: ask in the table/long form.
  bool NeedsTableForm() const { return table_form_.load(std::memory_order_acquire); }

  // Reads one answer to a `bjobs ... -o ... -json` call made by `who`
  // ("jobs", "reconcile", "key check", for the log): true when bjobs refused
  // the format (lsf::BjobsRefusedOutputFormat), after which NeedsTableForm()
  // is true for every reader. The first caller to learn it logs one warning
  // naming bjobs' words. False for every other answer (success, LSF down, a
  // timeout), which teaches nothing.
  bool LearnFrom(const lsf::CommandResult& result, std::string_view who);

 private:
  std::atomic<bool> table_form_{false};
};

}  // namespace bplace
