#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/lsfsim/bsub_options.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// How volclava 2.2 (the OpenLava family) answers where it differs from LSF
// 10.1, for `[cluster] dialect = "openlava"`. Sources: the captures in
// the volclava captures (docs/lsf-formats.md "Sources") and tests/realsched/captures/ (byte for
// byte), and volclava's lsbatch/cmd/bjobs.c, lsbatch/lib/lsb.sub.c and lsf/lib/lib.misc.c
// (my_getopt) for the rules behind them. Pure functions.

// lsid's first line: "volclava project 2.2, Nov 30 2026" (the capture's
// build date).
std::string OpenlavaVersionBanner();

// bsub's command line as volclava reads it: my_getopt with bsub's template
// (no -cwd, -oo, -eo, -env, -app, -G, -g, -sla, ...): a word matches an
// option exactly, or starts with one in template order and the rest is its
// value, so `-cwd .` is `-c wd` followed by the command `.`, `-oo f` is
// `-o o`, `-env all` is `-e nv`. Then the client-side value checks in
// setOption_ order: -c must be [hour:]minute[/host] ("wd: Bad CPULIMIT
// specification"), -M a positive integer without unit ("100MB: MEMLIMT
// value should be a positive integer", volclava's spelling). A refusal
// sets `refused` to the stderr line without ". Job not submitted.".
BsubRequest ParseBsubOpenlava(const std::vector<std::string>& args);

// True when a resource requirement gives a value with a unit
// (`rusage[mem=100MB]`, `select[mem>2G]`): volclava's mbatchd refuses it
// as "Bad resource requirement syntax".
bool OpenlavaResReqHasUnit(const std::string& res_req);

// The `bjobs -o` fields volclava 2.2 knows, upper-cased as it prints them:
// JOBID USER STAT QUEUE FROM_HOST EXEC_HOST JOB_NAME SUBMIT_TIME PROJ_NAME
// CPU_USED MEM SWAP PIDS START_TIME FINISH_TIME.
// Parses an -o string as volclava does: blank-separated names, any case,
// no widths or delimiter; with `dedup` (-json) a repeated name is dropped.
// Returns the upper-cased names, or the stderr line for the first unknown
// one ("<EXIT_CODE> in the format string is not a valid field name.").
// volclava checks the names only when it prints a job, so the caller
// reports the error (exit status 99) only then.
std::pair<std::vector<std::string>, std::string> ParseOpenlavaFormat(const std::string& spec,
                                                                     bool dedup);

// The value of one field for `job` as volclava prints it: START_TIME and
// FINISH_TIME as "12/01-11:01:01" (or "-"), CPU_USED "000:00:00.01", MEM
// and SWAP in KB ("0" when unknown), PIDS the process group or "-",
// EXEC_HOST "-" in the table and "" in JSON for a pending job.
std::string OpenlavaFieldValue(const std::string& field, const Job& job, bool json);

// cJSON_Print of bjobs' answer, as volclava prints it: tabs, "KEY":<tab>
// value, records opened on the RECORDS line ("[{") and joined by "}, {",
// "[]" when empty; a trailing newline.
std::string OpenlavaBjobsJson(
    const std::vector<std::vector<std::pair<std::string, std::string>>>& records);

// bjobs' usage text (stderr) of volclava 2.2.
std::string OpenlavaBjobsUsage();

}  // namespace bplace::lsfsim
