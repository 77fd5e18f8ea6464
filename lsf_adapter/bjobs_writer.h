#pragma once

// bjobs's output written from job records, byte for byte as LSF 10.1 prints
// it (docs/lsf-formats.md "bjobs"): the default table and -w, `-o` columns
// with widths and a delimiter, `-o ... -json`, the `Job <N> is not found`
// lines and the exit statuses. The front door's bjobs answers with it. Pure
// functions: safe from any thread.

#include <string>
#include <string_view>
#include <vector>

#include "lsf_adapter/bjobs_command_line.h"
#include "lsf_adapter/job_record.h"

namespace bplace::lsf {

// One `bjobs -o` field bplace can fill from a JobRecord.
struct BjobsField {
  std::string_view name;   // as -o takes it: "jobid"
  std::string_view alias;  // another name -o takes ("id"); "" when none
  std::string_view header;
  int recommended_width = 0;  // LSF's width for "name:" without a number
  // The value as bjobs -o prints it; "" when LSF has none (printed "-",
  // or "" in JSON).
  std::string (*value)(const JobRecord&);
};

// The field named `name` (or its alias), or null when the jobs tier does not
// hold it.
const BjobsField* FindBjobsField(std::string_view name);

// What one bjobs run prints.
struct BjobsOutput {
  std::string out;
  std::string err;
  int exit_code = 0;
};

// The jobs to print and the ids that named none.
struct BjobsSelection {
  std::vector<const JobRecord*> jobs;  // in the order bjobs lists them
  // Ids asked for (as given: "12", "12[3]") that LSF does not know.
  std::vector<std::string> missing;
  // For -l: the `bjobs -l` block of each of `jobs`, in the same order, as
  // LSF printed it (lsf::SplitBjobsLong).
  std::vector<std::string_view> long_blocks;
};

// The output of `line` for `selection`, as LSF 10.1's bjobs prints it:
//  - `-o` (with `format`, parsed from line.format) and -json: the JSON
//    document, an ERROR record per missing id, exit 255 when any is
//    missing (nothing on stderr);
//  - `-o` without -json: a header line unless -noheader, then a line per
//    job, cells joined by the delimiter, "-" for an empty value;
//  - -l: selection.long_blocks framed as bjobs -l frames them
//    (lsf::JoinBjobsLong);
//  - otherwise the default table (-w: nothing cut), -noheader dropping the
//    header;
//  - every missing id gives `Job <ID> is not found` on stderr and exit
//    255; with no job and no missing id, the empty-answer sentence of the
//    state filter ("No unfinished job found", "No job found", ...) on
//    stderr and exit 255.
// `format` must be given exactly when line.format is set.
BjobsOutput WriteBjobs(const BjobsCommandLine& line, const BjobsFormat* format,
                       const BjobsSelection& selection);

// EXEC_HOST as bjobs prints it: "4*node001:node002" (a host with more than
// one slot prefixed by its count), "" before dispatch.
std::string ExecHostText(const JobRecord& job);

}  // namespace bplace::lsf
