#pragma once

// The Standard Workload Format (SWF) of the Parallel Workloads Archive
// (Feitelson et al., https://www.cs.huji.ac.il/labs/parallel/workload/swf.html):
// one job per line, 18 whitespace-separated numeric fields, -1 for unknown;
// header and comment lines start with ';' and carry "; Name: value" pairs
// (MaxProcs, MaxNodes, "Queue: <n> <name>", ...). Used by the wait-prediction
// replay (bench/wait_replay.cc) and its generator.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace bplace::bench {

// The fields of one job the replay uses (field numbers are SWF's, 1-based).
struct SwfJob {
  std::int64_t id = -1;                // 1: job number
  std::int64_t submit_s = -1;          // 2: submit time, seconds from the log's start
  std::int64_t wait_s = -1;            // 3: wait time, seconds from submission to start
  std::int64_t run_s = -1;             // 4: run time, seconds
  std::int64_t procs = -1;             // 5: allocated processors
  std::int64_t requested_procs = -1;   // 8
  std::int64_t requested_time_s = -1;  // 9: the user's run-time estimate
  std::int64_t status = -1;            // 11: 1 completed, 0 failed, 5 cancelled, ...
  std::int64_t user = -1;              // 12
  std::int64_t queue = -1;             // 15: queue number
  std::int64_t partition = -1;         // 16

  // Processors the job held: allocated, else requested; at least 1.
  std::int64_t Slots() const;
};

// A whole log: its header and its jobs in file order.
struct SwfTrace {
  // Every "; Name: value" header line in file order, name without the
  // colon, value trimmed (names repeat: Queue, Note).
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<SwfJob> jobs;

  // The first value of header field `name`; empty when absent.
  std::string HeaderValue(std::string_view name) const;
  // MaxProcs of the header, else MaxNodes, else 0 (unknown).
  std::int64_t MachineSize() const;
  // The names of "; Queue: <n> <name>" lines by number.
  std::map<std::int64_t, std::string> QueueNames() const;
};

// Parses SWF text. Lines with fewer than 18 fields, or a field that is not
// an integer (SWF writes some as "12.0"; a fraction is cut), are errors
// naming the line number: kParseError. Blank lines are skipped.
Result<SwfTrace> ParseSwf(std::string_view text);

// Writes a trace back as SWF: its header lines, then one line per job with
// the fields SwfJob holds and -1 for the others.
std::string FormatSwf(const SwfTrace& trace);

}  // namespace bplace::bench
