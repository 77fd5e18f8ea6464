#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// The fields of `bjobs -o` (LSF 10.1 bjobs -o man page): names, aliases,
// headers, widths, and each field's value for a job. Pure functions.

// One field of a parsed -o format.
struct BjobsColumn {
  std::string header;  // upper-case field name as LSF prints it: "JOBID", "NALLOC_SLOT"
  int width = 0;       // 0: unlimited (no padding, no truncation)
  bool right = false;  // ":-N": right-justified
};

// A parsed -o format string.
struct BjobsFormat {
  std::vector<BjobsColumn> columns;
  std::string delimiter = " ";  // delimiter='c'
};

// Parses an -o string: blank-separated `field[:[-][width]][:unit]` items and
// an optional `delimiter='c'` (or "c"). Field names and aliases are LSF's
// (lower case, `id` for jobid, `name` for job_name, ...); `field:` without a
// width takes LSF's recommended width. Returns LSF's message for an unknown
// field name or a bad width.
tl::expected<BjobsFormat, std::string> ParseBjobsFormat(std::string_view spec);

// Returns the value LSF 10.1 prints for field `header` of `job` (times in
// the local time zone). A value the job does not have
// yet (START_TIME of a pending job, EXIT_CODE of a job that did not exit,
// fields the simulator does not model) is empty: the JSON output prints "",
// the table prints "-". Times are "Nov 30 11:40"; the FINISH_TIME of a
// running job with a run limit is its estimate followed by " L".
std::string BjobsFieldValue(const std::string& header, const Job& job);

// EXEC_HOST as bjobs prints it: "node01", "5*node01" for several slots,
// empty before dispatch.
std::string ExecHostText(const Job& job);

// Formats one cell of the -o table: "-" for an empty value, padded or cut to
// the column's width (JOB_NAME keeps its end behind a '*', as LSF does).
std::string FormatBjobsCell(const BjobsColumn& column, const std::string& value);

}  // namespace bplace::lsfsim
