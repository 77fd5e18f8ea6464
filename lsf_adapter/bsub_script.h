#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/bsub_command.h"

namespace bplace::lsf {

// The options of one `#BSUB` line of a job script, as bsub reads them.
struct EmbeddedOptionLine {
  int line = 0;                    // 1-based line of the script where it starts
  std::vector<std::string> words;  // the words after "#BSUB", quotes removed
  int last_line = 0;               // where it ends (after continuation lines)
};

// Reads the `#BSUB` lines of a job script that bsub reads on stdin, as
// bsub does (LSF 10.1 bsub(1), argument `command`: "bsub options can also
// be specified in the standard input if the line begins with #BSUB ... the
// command line option overrides the option in the standard input"; the
// line rules are those of bsub's parseScript/parseLine in OpenLava's
// lsbatch/lib/lsb.sub.c, LSF's open-source ancestor):
// - EVERY line is read, not only those before the first command: bsub's
//   parseScript has no stop rule, and LSF 10.1's job_script example applies
//   a #BSUB after the commands. So a directive after the commands is
//   checked too (safe either way: at worst one LSF ignores is refused).
// - A directive is blanks, '#', blanks, "BSUB", blanks, then '-' (so
//   "# BSUB -q x" and "#BSUB-q x" are directives; "#BSUB note" and the
//   shebang line are comments). Blanks are space, tab, CR, VT, FF: a CRLF
//   line ends in a blank.
// - A line starting with '#' that holds "BSUB" and ends in a backslash is
//   joined with the next line (bsub's continuation).
// - Words are split at blanks; a word starting with '#' ends the line; a
//   word may be wholly in single or double quotes (bsub's getNextValueQ_).
// Where bsub and a shell would read a line differently, or bsub would read
// it in a way bplace cannot see, the script is refused with
// kInvalidArgument naming the line: a quote that does not close, a quote
// inside or right after a word, a backslash in a directive (outside single
// quotes), a continuation backslash before CR, and a line longer than
// kMaxDirectiveLineBytes that holds "BSUB" (bsub reads long lines in
// pieces, and a piece may start with "#BSUB"). Pure.
Result<std::vector<EmbeddedOptionLine>> ParseEmbeddedOptions(std::string_view script);

// bsub reads a script line into a buffer of 10 x MAXLINELEN (512) bytes;
// a longer line is read in pieces. bplace stays well below.
inline constexpr std::size_t kMaxDirectiveLineBytes = 4096;

// What the #BSUB lines ask for that bplace accounts for.
struct ScriptDirectives {
  // The most slots any `#BSUB -n min[,max]` asks for (its max), and its line.
  std::optional<std::int64_t> slots;
  int slots_line = 0;
  // The line of a `#BSUB -J` (0: none).
  int job_name_line = 0;
  // Every option with a request field (-J -n -R -o ...), in script order:
  // bsub lets a command-line option replace the script's, so the caller
  // checks these against the fields it puts on the command line.
  struct FieldOption {
    std::string_view field;  // the request field: "resources" for -R
    std::string flag;        // "-R"
    std::string value;
    int line = 0;
  };
  std::vector<FieldOption> field_options;
};

// Applies to the #BSUB lines the rules of extra_args and of the request
// fields, reading the table of lsf::FindBsubOption. Refused with
// kInvalidArgument, the message naming the line ("line 3: #BSUB -q is set by
// bplace (use the queues field)"): options the daemon sets (-q -m -Jd),
// options that block or replace the submission (-I*, -K, -tty, -XF, -pack,
// -h, -V, -Zs), unknown options, a word that is not an option, an option
// whose value is not on its line, `-n` that is not min[,max] with 1 <=
// min <= max or whose max exceeds `max_slots`, and `-J` with '[' or ']' (a
// job array: the request's `array` field makes those). A one-letter option
// may carry its value glued on, as bsub allows ("-n4", "-qnormal" is -q).
// The options with a request field (-J -n -R -o -e -cwd -W -M -P -app) are
// allowed. Pure.
// The rule of the option word `word` of a #BSUB line (FindBsubOption),
// splitting a value glued to a one-letter option as bsub does: "-n4" is -n
// with `glued` "4", "-qnormal" is -q. kUnknown for any other word.
BsubOptionRule DirectiveOptionRule(const std::string& word, std::optional<std::string>& glued);

Result<ScriptDirectives> CheckEmbeddedOptions(const std::vector<EmbeddedOptionLine>& lines,
                                              std::int64_t max_slots);

}  // namespace bplace::lsf
