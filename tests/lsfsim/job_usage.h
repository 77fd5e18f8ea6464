#pragma once

#include <optional>

namespace bplace::lsfsim {

// The memory a running job uses now, as sbatchd samples it for mbatchd
// (bjobs -l shows it under MEMORY USAGE while the job runs): the sum of the
// peak resident sizes (VmHWM, KB) of the processes of the job's process
// group, read from /proc. nullopt when no process of the group is left.
// Reads /proc only; safe from any thread.
std::optional<long long> RunningJobMemoryKb(int pgid);

}  // namespace bplace::lsfsim
