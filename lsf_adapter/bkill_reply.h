#pragma once

// Classification of what one bkill call printed. Pure functions: no I/O,
// safe from any thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bplace::lsf {

// What LSF said about one job id given to bkill.
enum class BkillOutcome {
  kTerminating,       // "Job <N> is being terminated": LSF took the kill
  kAlreadyFinished,   // "Job <N>: Job has already finished" (DONE or EXIT)
  kNotFound,          // "Job <N>: No matching job found", "Job <N> is not found"
  kPermissionDenied,  // "Job <N>: User permission denied": not the caller's job
  kUnavailable,       // LSF is down or unreachable (lsf::SaysLsfUnavailable)
  kUnknown,           // anything else, with the line
};

// Short lowercase name of an outcome ("already_finished"), for logs and JSON.
const char* BkillOutcomeName(BkillOutcome outcome);

// One line of a bkill reply, classified. `job_id` and `array_index` name the
// job the line is about; both are empty/0 for a line that names no job (an
// lsb_init failure, "12x: Illegal job ID.", a reply with no output), which is
// about the whole call.
struct BkillResult {
  BkillOutcome outcome = BkillOutcome::kUnknown;
  std::string job_id;
  std::int64_t array_index = 0;
  // LSF's reason without "Job <N>: " ("Job has already finished"), or the
  // whole line when it has no such prefix, or our sentence for a reply with
  // no output.
  std::string message;
  // The line as printed (blanks trimmed); empty for a reply with no output.
  std::string line;
};

// Classifies one finished bkill call (formats of LSF 10.1 and OpenLava/
// volclava 2.2; see docs/lsf-formats.md "bkill" and "When LSF is down",
// tests/lsfsim/cmd_bkill.cc). bkill prints one
// line per id: successes on stdout ("Job <1234> is being terminated",
// "Job <1234[7]> ..." for an array element), failures on stderr ("Job
// <1234>: <reason>", lsb_perror's form), exit status 255 when any failed.
//
// Returns one result per line, stdout's lines first, then stderr's, in
// their order (callers match results to ids, not to positions); blank lines
// and retry chatter ("LSF is down. Please wait...") give none. A "Job <N>:"
// line whose reason says LSF is unavailable ("Job <3>: Connection refused by
// server") is kUnavailable for that id; any other line saying so
// ("lsb_init: Failed in an LSF library call: ...") is kUnavailable for the
// whole call. When no line gives a result, there is exactly one, about the
// whole call: kUnavailable if the last chatter line says LSF is down, else
// kUnknown ("bkill exited with status N and no output"). Never fails, never
// throws. A timed-out or signalled bkill is the caller's to see
// (ClassifyFailure, command_failure.h): its partial output still classifies.
std::vector<BkillResult> ClassifyBkillReply(int exit_code, std::string_view out,
                                            std::string_view err);

}  // namespace bplace::lsf
