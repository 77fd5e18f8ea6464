#pragma once

#include <map>
#include <string>
#include <vector>

namespace bplace::lsfsim {

// A bsub command line split the way LSF 10.1 bsub reads it.
struct BsubRequest {
  std::map<std::string, std::string> options;  // last value wins, as in LSF
  std::vector<std::string> res_reqs;           // every -R in order (LSF merges them)
  std::vector<std::string> command_words;      // the job command; empty: read stdin
  bool bad_usage = false;
  std::string usage_error;  // "bsub: illegal option -- x\n" and the like
  // A value bsub refuses before it contacts mbatchd (the OpenLava dialect's
  // "wd: Bad CPULIMIT specification"): the stderr text without ". Job not
  // submitted.", no usage.
  std::string refused;
};

// Returns true when `option` (with its dash, e.g. "-env") is a bsub option
// that takes a value, per the LSF 10.1 bsub man page.
bool BsubOptionTakesValue(const std::string& option);

// Returns true when `option` is a bsub option that takes no value.
bool BsubOptionIsFlag(const std::string& option);

// Splits bsub arguments (argv without "bsub") into options and the command.
// Options are matched whole first, so `-env all` is -env, never `-e nv`;
// only a one-letter option that takes a value may have it glued on
// (`-n4`, `-qshort`). The first word that is not an option starts the
// command. An unknown option or a missing value sets bad_usage.
BsubRequest ParseBsub(const std::vector<std::string>& args);

// The words of the `#BSUB` lines of a job script bsub reads on stdin, in
// order, as LSF 10.1 bsub reads them (bsub(1), argument `command`; the rules
// of parseScript/parseLine in OpenLava's lsbatch/lib/lsb.sub.c): every line,
// '#', blanks, "BSUB", blanks, then '-'; words split at blanks, a word may
// be in single or double quotes, a word starting with '#' ends the line; a
// line starting with '#' that holds "BSUB" and ends in a backslash goes on
// at the next line. An unclosed quote ends the line's words there, as in
// bsub.
std::vector<std::string> EmbeddedBsubArgs(const std::string& script);

// The job's command as bsub builds it from the words after its options
// (OpenLava's cmd.sub.c, which LSF 10.1 shares, see bsub(1) "command"):
// the first word as it is; a later word that holds a blank goes in single
// quotes when it holds '"' or '$', else in double quotes; in any other
// word '"', '\'', '\\', '(' and ')' get a backslash, and one that starts
// with '$' is put in single quotes. So `bsub sh -c 'exit 3'` runs (and
// bjobs shows) `sh -c "exit 3"`, and `sh -c 'kill -9 $$'` keeps its quotes.
std::string BsubCommandLine(const std::vector<std::string>& words);

// Applies the options of `embedded` (ParseBsub of EmbeddedBsubArgs) that
// `request` does not have: bsub's command line wins over the script. The
// script's -R options are used only when the command line has none.
void ApplyEmbedded(BsubRequest* request, const BsubRequest& embedded);

}  // namespace bplace::lsfsim
