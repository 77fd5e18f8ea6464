#pragma once

// Parser of `bqueues -l` (all queues in one text). Pure: no I/O, safe from
// any thread.

#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace::lsf {

// Parses `bqueues -l` output for any number of queues (format of LSF 10.1 and
// OpenLava/volclava 2.2; see docs/lsf-formats.md "bqueues -l"), in the order
// printed. A block starts at a "QUEUE: <name>" line. Read from each block: the
// "  -- " description lines (joined with single spaces; "This is the default
// queue." sets is_default), the PARAMETERS/STATISTICS header and value rows
// (columns by name: PRIO NICE STATUS MAX JL/U JL/P JL/H NJOBS PEND RUN SSUSP
// USUSP RSV; "-" is unlimited), and the USERS:, HOSTS:, ADMINISTRATORS: and
// RES_REQ: lines with their continuation lines (indented lines up to a blank
// line or the next "KEY:" line). OpenLava's "all users" / "all hosts used by
// the LSF Batch system" become {"all"}; an absent USERS or HOSTS line gives
// {"all"}. Everything else (scheduling and limit tables, "on nodes:" lines,
// chatter before the first block) is ignored. Fails with kParseError: "no
// header" when there is no QUEUE: line, the queue's name when its block has no
// PARAMETERS/STATISTICS rows, or the line number and problem of a bad row.
// Never throws.
Result<std::vector<QueueDefinition>> ParseBqueuesLong(std::string_view text);

}  // namespace bplace::lsf
