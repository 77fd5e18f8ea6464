#pragma once

// A bjobs command line as bjobs reads it (LSF 10.1 bjobs(1)), for the forms
// the front door answers from the jobs tier (docs/lsf-front-door.md "bjobs"):
// the default table, -w, -o "fields" with widths and delimiter=, -json,
// -noheader, -a -d -p -r -s, -u, -q, -J, and job ids. Pure functions.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace bplace::lsf {

// The words of a bjobs command line after "bjobs".
struct BjobsCommandLine {
  bool wide = false;                  // -w: names and hosts not cut
  bool long_form = false;             // -l: LSF's long form (job ids only, with or without -a)
  bool json = false;                  // -json (with -o)
  bool noheader = false;              // -noheader
  std::optional<std::string> format;  // -o "fields", as given
  // -a (all states), -d (DONE/EXIT), -p (PEND), -r (RUN), -s (suspended);
  // '\0': unfinished jobs. The last one given counts, as in bjobs.
  char state_filter = '\0';
  std::optional<std::string> user;      // -u USER or "all"
  std::optional<std::string> queue;     // -q QUEUE
  std::optional<std::string> job_name;  // -J PATTERN ('*' matches any run)
  std::vector<std::string> ids;         // "1234", "1234[7]", as given
};

// Reads `args` (argv without "bjobs"). One-letter flags may be bundled and
// the last of a bundle may take its value from the next word or glued on,
// as getopt reads them ("-aw", "-aJ '*x*'", "-uall"); -noheader, -json and
// -o are words of their own. Returns kInvalidArgument naming the word for
// an option the front door does not answer (-X, -UF, -m, -G, -P, -app,
// -Jd, ...), -l with anything but job ids and -a, a flag without its
// value, and -json without -o: the caller runs the real bjobs for all of
// them, which answers in LSF's own words.
Result<BjobsCommandLine> ParseBjobsCommandLine(const std::vector<std::string>& args);

// One column of `bjobs -o`: the field, its header and how it is laid out.
struct BjobsColumn {
  std::string field;   // canonical name: "jobid", "stat", ...
  std::string header;  // "JOBID"
  // 0: the value as it is (a field named alone has unlimited width);
  // else at most `width` characters, padded to it.
  int width = 0;
  bool right = false;  // "-" before the width: right-justified
};

// A parsed -o string.
struct BjobsFormat {
  std::vector<BjobsColumn> columns;
  std::string delimiter = " ";  // delimiter='c' (a space without it)
};

// Reads the -o string (LSF 10.1 bjobs -o: "name[:[-][width][:unit]] ...
// [delimiter='c']"; aliases such as "id" for jobid). Returns
// kInvalidArgument naming the item for a field the jobs tier does not hold
// (the real bjobs answers those, or refuses a field that does not exist)
// and for a width that is not a positive number.
Result<BjobsFormat> ParseBjobsFormat(std::string_view spec);

// Whether `text` matches LSF's -J pattern, in which '*' stands for any run
// of characters (and nothing else is special).
bool JobNamePatternMatches(std::string_view pattern, std::string_view text);

}  // namespace bplace::lsf
