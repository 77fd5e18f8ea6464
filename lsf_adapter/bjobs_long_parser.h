#pragma once

// Parser of `bjobs -l` (one block of lines per job) and the command line the
// daemon reads it with. The long form is where volclava 2.2 keeps what its
// `bjobs -o` lacks: the exit code, the job description and the pending
// reasons. Pure functions: no I/O, safe from any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/job_record.h"

namespace bplace::lsf {

// One job, or one element of a job array, as its `bjobs -l` block shows it.
// Text fields hold LSF's words as printed, without the surrounding <>; a
// field the block does not show is empty. Plain data.
struct JobLongRecord {
  std::string job_id;            // digits, e.g. "1234"
  std::int64_t array_index = 0;  // 7 for "Job <1234[7]>"; 0 when not an array element
  std::string job_name;          // "Job Name <...>"; LSF shows it only for bsub -J
  std::string user;              // "User <...>"
  std::string status;            // "Status <...>": PEND RUN DONE EXIT ... (see status_kind())
  std::string queue;             // "Queue <...>"
  // "Job Description <...>" (bsub -Jd) exactly as submitted, once the
  // wrapped lines are joined; may hold '<', '>', ", ". Empty without -Jd.
  std::string job_description;
  // The times of the event lines, as printed in the cluster's local time:
  // "Tue Dec  1 11:00:59", or "Tue Dec  1 11:00:59 2026" when the site sets
  // LSB_DISPLAY_YEAR. Read them with ParseLsfTime (lsf_adapter/lsf_time.h).
  std::string submit_time;  // "Submitted from host <...>"
  // "Started on <host>", "Started 4 Task(s) on Host(s) ...", "Dispatched
  // ...", "[7] started on ..." (a volclava array element); the last one.
  std::string start_time;
  // The line that ended the job: "Done successfully." or "Exited ...". When
  // the block has several (a requeued job), the last one counts, for this
  // and for the four fields below.
  std::string finish_time;
  bool done_successfully = false;  // "Done successfully."
  // "Exited with exit code N.", "Exited by signal N." or a plain "Exited"
  // (volclava: a job killed while pending, or one that used under 0.0001 s
  // of CPU).
  bool exited = false;
  std::optional<int> exit_code;    // N of "Exited with exit code N." (0..255)
  std::optional<int> exit_signal;  // N of "Exited by signal N." (1..255)
  // The lines under " PENDING REASONS:", each trimmed, blank lines left out,
  // joined with one blank: "Job slot limit reached: 1 host;". Empty when the
  // job is not pending.
  std::string pend_reason;

  // JobStatusOf(status): kUnrecognized for a state word LSF 10.1 does not
  // document.
  JobStatus status_kind() const { return JobStatusOf(status); }
  // "1234", or "1234[7]" for an array element: the id as bjobs and bkill
  // take it.
  std::string IdText() const;
};

// Parses `bjobs -l` output for any number of jobs (`bjobs -a -l -u USER`,
// `bjobs -l ID...`; volclava 2.2 and IBM Spectrum LSF 10.1, same layout, see
// tests/realsched/README.md and tests/testdata/lsf/), one record per job
// block, in the order printed:
//
//   Job <19>, User <root>, Project <default>, Status <EXIT>, Queue <short>,
//    Command <sh -c "exit 3">, Job Description <bplace:exit3>
//   Tue Dec  1 11:00:59: Submitted from host <vm>, CWD </tmp>;
//   Tue Dec  1 11:01:01: Started on <vm>, Execution Home </root>, ...;
//   Tue Dec  1 11:01:01: Exited with exit code 3. The CPU time used is ...
//    PENDING REASONS:                     (pending jobs, one reason a line)
//    SCHEDULING PARAMETERS: ...           (ignored, as are all other lines)
//   ------------------------------------------------------------------------
//
// (the first line is one line in the output). A block starts at a line that
// begins with "Job <" in column 0 and follows a blank line (or opens the
// text); blocks are separated by a line of 78 dashes and a blank line.
//
// Wrapping: LSF 10.1 cuts every line at 79 columns and goes on in a line
// indented by 21 blanks (26 when LSB_DISPLAY_YEAR adds the year to the
// times; the indent is chosen per block from its first time stamp). Each
// such continuation line is joined to the line before by removing the line
// end and exactly that many blanks; blanks before the cut are kept. So a
// description comes back exactly, except for a blank that fell just after a
// cut: LSF's line printer drops it, and no reader can restore it. volclava
// 2.2 prints the header and the event lines unwrapped.
//
// The header is read field by field: "Job <ID>" (ParseJobId: "1234" or
// "1234[7]"), then ", Label <value>" pairs (and value-less ones such as
// "Interactive mode"). A value ends at the first '>' that is followed by the
// end of the line or by ", " and a label (a capital letter, then letters,
// digits, blanks or "()/_-." up to " <" or ","), so a value may hold '<',
// '>' and ", " as long as no ">, Label <" falls inside it; the last field
// of the line (volclava's description) runs to the line's last '>'. Labels
// are compared without blanks, since a cut may drop the one in "Job Name".
//
// Event lines start with a time ("Www Mmm dd hh:mm:ss[ yyyy]: "); the
// submit, start and end lines are read as JobLongRecord says, others ignored.
// " PENDING REASONS:" takes the lines after it up to the next section
// heading (an indented upper-case line such as " SCHEDULING PARAMETERS:"),
// event line, dash line or the end of the block.
//
// Lines may end in LF or CRLF. Unknown lines, and a block whose first line
// is not a header as above (cut short, garbled), are skipped. Text with no
// job block gives an empty vector when it is blank or says LSF's "No job
// found" / "No unfinished job found" (and the like: a line "No ... job
// found"); otherwise it fails with kParseError "bjobs -l: no job block", with
// the first line. Never throws.
Result<std::vector<JobLongRecord>> ParseBjobsLong(std::string_view text);

// One job's block of `bjobs -l` output, as LSF printed it, and what it says.
struct BjobsLongBlock {
  JobLongRecord job;
  // The block's bytes from its "Job <" line to its last line that is not
  // blank, each line with its end as printed (a last line without one
  // gets "\n"); without the blank line that opens the block and the dash
  // line that closes it.
  std::string text;
};

// Splits `bjobs -l` output into its job blocks, in the order printed, by
// the rules of ParseBjobsLong (a block whose header cannot be read is left
// out). Errors: those of ParseBjobsLong. Never throws.
Result<std::vector<BjobsLongBlock>> SplitBjobsLong(std::string_view text);

// The `bjobs -l` output of `blocks` (BjobsLongBlock::text), framed as LSF
// 10.1 and volclava 2.2 frame them: a blank line before each block, a line
// of 78 dashes between two, a blank line after the last; "" for no block.
// JoinBjobsLong of SplitBjobsLong gives back what bjobs printed.
std::string JoinBjobsLong(const std::vector<std::string_view>& blocks);

// The argv that lists `user`'s jobs in the long form, finished ones too
// until CLEAN_PERIOD: {bjobs_path, "-a", "-l", "-u", user}. `user` is an LSF
// user name or "all": not empty, not starting with '-' (bjobs would read an
// option), no blank and no control character. Returns an empty vector for
// any other `user`, so that such a word never reaches a command line.
std::vector<std::string> BjobsLongArgv(const std::string& bjobs_path, const std::string& user);

}  // namespace bplace::lsf
