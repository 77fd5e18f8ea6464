#pragma once

// The command lines of the bjobs calls that follow the daemon's jobs, and
// how to read what they printed. Pure functions: no I/O, safe from any
// thread.

#include <cstddef>
#include <string>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/job_record.h"

namespace bplace::lsf {

// Defaults of BjobsArgvChunks. 128 KiB is far below Linux's ARG_MAX (a
// quarter of the stack limit, 2 MiB with the usual 8 MiB) and equal to
// MAX_ARG_STRLEN, so no site setting makes such a command line fail to
// start; 500 ids keep one bjobs answer (and mbatchd's work for it) small.
inline constexpr std::size_t kBjobsMaxArgBytes = 128 * 1024;
inline constexpr std::size_t kBjobsMaxIdsPerCall = 500;
// Left free of max_arg_bytes for the child's environment, which the kernel
// counts against the same limit.
inline constexpr std::size_t kBjobsEnvironmentMargin = 16 * 1024;

// The argv lists that ask LSF about `ids` ("1234" or "1234[7]", see
// ParseJobId), `bjobs_path` first:
//   use_o_json:  bjobs_path -a -o "<BjobsOutputFields()>" -json id...
//                (LSF 10.1.0.2+ and volclava: a job given by id is shown
//                whoever owns it, unless the site sets
//                LSB_SECURE_JOBINFO_USERS; -a keeps finished jobs until
//                CLEAN_PERIOD). There is no -w: it means nothing with -o,
//                and volclava refuses -o after -w (usage).
//   otherwise:   bjobs_path -a -w -u all, once, whatever the ids: the table
//                form has no JOBINDEX and no ERROR record, so the caller
//                finds its ids among every job (ParseBjobsTable).
// Ids are taken in order, each once (repeats are dropped), and split so that
// no argv holds more than `max_ids_per_call` ids and each argv's bytes (every
// string with its NUL, a pointer per string and the closing null pointer)
// plus kBjobsEnvironmentMargin stay within `max_arg_bytes`. No ids give no
// argv: bjobs without ids would answer about other jobs.
// Fails with kInvalidArgument, before building anything, naming the first id
// that ParseJobId refuses (such a word never reaches an LSF command line),
// or when max_ids_per_call is 0 or max_arg_bytes leaves no room for one id.
Result<std::vector<std::vector<std::string>>> BjobsArgvChunks(
    const std::string& bjobs_path, const std::vector<std::string>& ids, bool use_o_json,
    std::size_t max_arg_bytes = kBjobsMaxArgBytes,
    std::size_t max_ids_per_call = kBjobsMaxIdsPerCall);

// True when a `bjobs -o ... -json` call failed because this bjobs cannot give
// our fields as JSON, so the daemon falls back to the table form (and asks
// once, not every cycle): an LSF older than 9.1 without -o ("bjobs: illegal
// option -- o" and its usage), one without -json ("illegal option -- j", or
// "You cannot use the -json option when the -o option is not specified...",
// LSF 10.1), any usage text ("Usage: bjobs ..."), volclava 2.2, which lacks
// fields we ask for ("<JOBINDEX> in the format string is not a valid field
// name.", exit 99), and an LSF that lacks one ("jobindex: Illegal field name.
// Specify a valid field name."; worth a log line: on LSF 10.1 it means our
// field list is wrong for that fix pack). False for a call that exited 0, timed
// out or was killed, and for every other failure (LSF down, an unknown id).
bool BjobsRefusedOutputFormat(const CommandResult& result);

// Reads one finished bjobs call made with an argv of BjobsArgvChunks:
//   - exit status 255 with a JSON document on stdout (use_o_json) is a whole
//     answer: LSF 10.1 and volclava exit 255 when any id is unknown, and
//     report it as an ERROR record; the document is parsed;
//   - a failure whose reason is "No job found" (or "No unfinished job
//     found", ...: exit 254 or 255, nothing on stdout) is an empty answer;
//   - everything else goes through lsf::QueryOutput (command_failure.h):
//     kUnavailable when LSF is down or the runner could not start bjobs,
//     kTimeout, kCommandFailed (including a refused format: ask
//     BjobsRefusedOutputFormat first), kParseError for output cut short;
// then ParseBjobsJson or ParseBjobsTable, whose errors are returned as they
// are. Never throws.
Result<std::vector<JobRecord>> ReadBjobsReply(Result<CommandResult> result, bool use_o_json);

// The arguments (after the bjobs path) of the bjobs that asks LSF about
// `id` alone, to confirm that LSF no longer knows a job another answer left
// out: `-a -o "<BjobsOutputFields()>" -json ID` (use_o_json), else
// `-a -w ID`. `id` must be a ParseJobId form (the caller's own ids).
std::vector<std::string> BjobsConfirmArgs(const std::string& id, bool use_o_json);

// What a bjobs of BjobsConfirmArgs said of its id: the job's records (every
// element of an array job asked for as "1234"), or LSF's explicit "Job <ID>
// is not found".
struct BjobsConfirmation {
  std::vector<JobRecord> records;
  bool not_found = false;
};

// Reads the bjobs of BjobsConfirmArgs(id, use_o_json). `not_found` only
// when LSF said so of that id: an ERROR record naming it (-json; LSF 10.1
// and volclava exit 255), or, in the table form, exit 255 with "Job <ID> is
// not found" as the whole of stderr and nothing on stdout (LSF 10.1,
// volclava's cmd.err.c). Records of other ids are left out. Errors: those of
// ReadBjobsReply, and kParseError when the answer neither lists the id nor
// says it is not found (a bjobs exiting 0 with nothing about it): no
// confirmation either way. Never throws.
Result<BjobsConfirmation> ReadBjobsConfirmation(Result<CommandResult> result, const std::string& id,
                                                bool use_o_json);

}  // namespace bplace::lsf
