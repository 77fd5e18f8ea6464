#pragma once

// A bsub command line as bsub itself reads it (LSF 10.1 bsub(1)): the
// options, each with its value, then the job's command. The front door's
// bsub reads its argv with it, so that what an engine typed means to bplace
// what it would mean to LSF. Pure functions: safe from any thread.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/bsub_command.h"

namespace bplace::lsf {

// One option as given: its flag as lsf::FindBsubOption names it ("-R") and
// its value, whether it came as the next word or glued to the flag
// ("-n4", and "-R span[hosts=1]" as ONE word, which keeps its blank).
struct BsubArgument {
  std::string flag;
  std::optional<std::string> value;  // set exactly when the option takes one
  BsubOptionUse use = BsubOptionUse::kUnknown;
};

// The words of a bsub command line after "bsub".
struct BsubCommandLine {
  std::vector<BsubArgument> options;  // in the order given
  // The job's command: the first word that is neither an option nor an
  // option's value, and every word after it, options included (they are
  // the command's). Empty: bsub reads a job script on stdin.
  std::vector<std::string> command;

  // The values of every `flag` option, in order ("-R" may repeat).
  std::vector<std::string> Values(std::string_view flag) const;
  // The value of the last `flag` option (bsub keeps the last of a repeated
  // option), or nullopt when it is not given.
  std::optional<std::string> Last(std::string_view flag) const;
  // Whether any option of `use` was given (e.g. kBlocking: -I, -K, -tty).
  bool Has(BsubOptionUse use) const;
};

// Reads `args` (argv without "bsub") as LSF 10.1's bsub does:
//  - a word that starts with '-' and is exactly an option of the table
//    (lsf::FindBsubOption) is that option; when it takes a value, the next
//    word is the value, whatever it looks like ("-J -x" names the job "-x");
//  - otherwise a word "-Xrest" whose first two characters are a one-letter
//    option that takes a value carries its value glued on ("-n4",
//    "-qnormal", "-R span[hosts=1]"), unless a longer option of the table
//    also starts the word (then it is ambiguous: "-Jdx" could be -Jd x);
//  - the first word that does not start with '-' starts the command.
// Returns kInvalidArgument naming the word for an option bsub does not know
// (or bplace's table lacks), an ambiguous glued word, an option whose value
// is missing, a bare "-" and a "--" (bsub has no end-of-options marker).
// Never looks at the values: the caller judges them.
Result<BsubCommandLine> ParseBsubCommandLine(const std::vector<std::string>& args);

// The command string bsub makes of the command words of its argv, which the
// execution host's shell then reads (the command OpenLava's bsub writes in
// the job file, lsbatch/cmd/bsub.c; LSF 10.1 keeps that behaviour): the
// first word as it is; each later word after a blank, wrapped in double
// quotes when it holds a blank (single quotes when it also holds '"' or
// '$'), else with '"', '\'', '\\', '(' and ')' escaped by a backslash and
// wrapped in single quotes when it starts with '$'. So `bsub sh -c 'exit 3'`
// runs `sh -c "exit 3"`. Pure.
std::string BsubCommandString(const std::vector<std::string>& words);

// A job name "NAME[LIST]" or "NAME[LIST]%LIMIT" (bsub -J of a job array,
// LSF 10.1 "Job arrays") split into its parts; nullopt when `name` is not
// of that shape (no brackets: a plain job name; anything else: left for
// LSF to judge). `limit` is the text after '%', empty when none. The index
// list is not checked here (the job request decoder does, with
// ParseArrayIndexItem of lsf_adapter/bsub_values.h).
struct ArrayJobName {
  std::string name;
  std::string index_list;
  std::string limit;
};
std::optional<ArrayJobName> SplitArrayJobName(std::string_view name);

}  // namespace bplace::lsf
