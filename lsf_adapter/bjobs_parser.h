#pragma once

// Parsers of `bjobs -o "<fields>" -json` and of the `bjobs -a -w -u all`
// table, and the one list of -o fields the daemon asks for. Pure functions:
// no I/O, safe from any thread.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/job_record.h"

namespace bplace::lsf {

// The `-o` argument of every `bjobs -o ... -json` the daemon runs, as one
// word: "jobid jobindex user stat queue exit_code exit_reason pend_reason
// submit_time start_time finish_time exec_host slots job_name
// job_description from_host proj_name" (field names of the LSF 10.1 bjobs -o
// man page; no widths, so no value is cut). ParseBjobsJson reads the keys of
// exactly these fields.
//
// volclava 2.2 knows only JOBID USER STAT QUEUE FROM_HOST EXEC_HOST JOB_NAME
// SUBMIT_TIME PROJ_NAME CPU_USED MEM SWAP PIDS START_TIME FINISH_TIME
// (lsbatch/cmd/bjobs.c): it lacks jobindex, exit_code, exit_reason,
// pend_reason, slots and job_description, and refuses the whole call ("<X>
// in the format string is not a valid field name.", exit 99), which
// BjobsRefusedOutputFormat (bjobs_command.h) reads as "use the table".
std::string BjobsOutputFields();

// Reads an EXEC_HOST value into distinct hosts with their slot counts, in
// the order each host first appears. Hosts are separated by ':' (and by
// blanks, as continuation lines are joined); "N*host" is N slots on host,
// and a host named again adds to its count: "4*node001:node002:node002"
// gives {node001, 4}, {node002, 2}. "" and "-" give no host. Fails with
// kParseError (the message names the value, not a place) for an empty host
// name ("a::b", "4*"), a count that is not 1 to 9 digits above 0 ("0*a",
// "x*a"), or a second '*'.
Result<std::vector<ExecHost>> ParseExecHosts(std::string_view text);

// Parses `bjobs -o "<fields>" -json` (LSF 10.1.0.2 and later: two-space
// indent, no blank after ':'; volclava 2.2: tabs; see docs/lsf-formats.md
// "bjobs -o -json" and tests/testdata/lsf/). Anything before the first '{'
// (retry chatter) is skipped. Keys are upper case and values strings (integers
// are accepted too, null reads as ""); a key not requested is absent and leaves
// its field empty; keys this code does not know are ignored. Values are trimmed
// and "-" reads as empty (volclava prints "-" for no START_TIME, "   -   " for
// no EXEC_HOST), except JOB_NAME and JOB_DESCRIPTION, kept as printed. A record
// holding ERROR is an id LSF does not know: not_found, with LSF's sentence in
// `error` and job_id/array_index from JOBID and from "Job <2[7]> is not
// found" (JOBID holds no index). Without JOBINDEX (volclava) an element's
// index comes from the "[7]" that ends its JOB_NAME. Records keep LSF's order.
//
// LSF 10.1 exits with status 255 when any record is an ERROR record: the
// output is still whole and is parsed the same (see ReadBjobsReply in
// bjobs_command.h).
//
// Fails with kParseError: no '{', invalid JSON (output cut short), no RECORDS
// array, no JOBS count, a JOBS count that differs from the number of records
// ("output cut short"), or a bad record, named by its index from 0 (not an
// object, no JOBID, a JOBID, JOBINDEX, EXIT_CODE or SLOTS that is not a
// number, a bad EXEC_HOST, a value that is an object or array). Never throws.
Result<std::vector<JobRecord>> ParseBjobsJson(std::string_view text);

// Parses the table of `bjobs -a -w -u all` (and of plain `bjobs`; LSF 10.1
// and volclava 2.2, see docs/lsf-formats.md "The bjobs table"):
//   JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME
//   5       alice   RUN   short      vm          vm          sleep 30   Nov 30 11:40
// Lines before the header (retry chatter) and blank lines are skipped. The
// header must end with EXEC_HOST JOB_NAME SUBMIT_TIME; the columns before
// them (JOBID USER STAT QUEUE FROM_HOST, found by name, in any order, others
// ignored) hold one word each. JOB_NAME may hold blanks, so a row is read
// from both ends: the leading words, then SUBMIT_TIME as the last three words
// ("Nov 30 11:40"; four with a year), and between them EXEC_HOST and
// JOB_NAME. EXEC_HOST is "-" before dispatch with -w, and blank without -w:
// the first middle word is EXEC_HOST only if it starts before where JOB_NAME
// starts on that row (the header's JOB_NAME column, moved right by as much
// as a long value pushed the row). Without -w LSF puts further hosts of a
// job on lines of their own (one indented word): they are added to the job
// above. JOB_NAME is kept as printed (plain bjobs cuts it to "*ng_name_");
// an array element prints as "name[7]" with a plain JOBID: array_index comes
// from that "[7]". Exit codes, reasons, start and finish times and project
// are not in the table: left empty; slots is the sum of the exec_hosts
// slots. A header with no rows gives an empty vector.
//
// Fails with kParseError: "no header" for empty or header-less text, a
// missing column or a header that does not end with EXEC_HOST JOB_NAME
// SUBMIT_TIME, or the line number and problem of a bad row (too few words, no
// time at its end, a bad JOBID or EXEC_HOST, an indented line that is not one
// host name or comes before any row). Never throws.
Result<std::vector<JobRecord>> ParseBjobsTable(std::string_view text);

}  // namespace bplace::lsf
