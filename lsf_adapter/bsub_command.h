#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace bplace::lsf {

// Everything that goes on one bsub command line. Empty optionals are left
// out. Exactly one of `command` (LSF's command string, run by the user's
// shell on the execution host) and `script_on_stdin` is used.
struct BsubOptions {
  std::string queue;                    // -q
  std::optional<std::string> host;      // -m
  std::string description;              // -Jd, e.g. "bplace:6f1c..."
  std::optional<std::string> job_name;  // -J
  // A job array's index list ("1-100", "1-9:2,20"): -J "NAME[LIST]", NAME
  // being job_name or kDefaultArrayName. Checked before (ParseArrayIndexList).
  std::optional<std::string> array;
  std::optional<std::int64_t> slots;   // -n
  std::vector<std::string> resources;  // -R each, in order
  // A second -R the daemon adds (e.g. "select[ib_ok==1]"); LSF 10.1 merges
  // several -R options, the select sections with &&.
  std::optional<std::string> daemon_resources;
  std::optional<std::string> output;    // -o
  std::optional<std::string> error;     // -e
  std::optional<std::string> cwd;       // -cwd
  std::optional<std::string> walltime;  // -W [hour:]minute
  std::optional<std::string> memory;    // -M (units as LSF_UNIT_FOR_LIMITS)
  std::optional<std::string> project;   // -P
  std::optional<std::string> app;       // -app
  std::vector<std::string> extra_args;  // already checked by CheckExtraArgs
  std::optional<std::string> command;   // the job's command string
  bool script_on_stdin = false;         // the job script is fed on stdin
};

// The job name of an array whose request gave no job_name: LSF 10.1 needs
// a name before the index list.
inline constexpr char kDefaultArrayName[] = "bplace";

// What bplace does with one bsub option (LSF 10.1 bsub(1)).
enum class BsubOptionUse {
  kPassed,    // a caller may give it (extra_args, #BSUB lines)
  kField,     // a request field sets it (job_name -J, slots -n, ...): refused
              // in extra_args, allowed in #BSUB lines with the field's checks
  kDaemon,    // the daemon sets it (-q -m -Jd): refused everywhere
  kBlocking,  // makes bsub wait, take a terminal or not submit: refused
  kUnknown,   // not a bsub option bplace knows: refused
};

// One bsub option as bplace treats it. `hint` says what to use instead
// (kDaemon: "use the queues field") or names the field (kField: "slots").
struct BsubOptionRule {
  std::string_view flag;
  BsubOptionUse use = BsubOptionUse::kUnknown;
  bool takes_value = false;
  std::string_view hint;
};

// Looks `flag` ("-q", "-env") up in THE table of bsub options that
// CheckExtraArgs and the #BSUB checks (bsub_script.h) both read. Matched
// whole: "-qnormal" is kUnknown here (the caller splits glued values).
BsubOptionRule FindBsubOption(std::string_view flag);

// The argv of one bsub call: `bsub_path` first, then -q, -m, -Jd and the
// options in a fixed order, then the command string as ONE argument (bsub
// keeps its first command word as it is, lsf::BsubCommandString, and the
// execution host's shell parses the string, as with a typed bsub). Never fails: options are
// validated before (see CheckExtraArgs and the API's request decoder).
std::vector<std::string> BuildBsubArgv(const std::string& bsub_path, const BsubOptions& options);

// Quotes one word for a POSIX shell so that it reaches the program as is:
// plain words (letters, digits, and -_./=:,+@%) stay bare, anything else is
// put in single quotes with embedded quotes written '\''. "" becomes ''.
std::string ShellQuote(std::string_view word);

// Joins `argv` into one shell command string, each word quoted by ShellQuote;
// a first word holding '=' or being a shell reserved word ("if", "time",
// ...) is always quoted (bare, the shell would take it as a variable
// assignment or as syntax instead of the program).
std::string JoinShellQuoted(const std::vector<std::string>& argv);

// Checks the `extra_args` of a job request against the bsub options bplace
// lets callers pass (LSF 10.1 bsub(1)). Refused with kInvalidArgument, naming
// the argument: options the daemon sets itself (-q -m -Jd, and -J -n -R -o -e
// -cwd -W -M -P -app which have request fields), options that make bsub wait
// or take a terminal (-I -Ip -Is -IS -ISp -ISs -IX -K -tty -XF), options that
// replace the submission (-pack -h -V -Zs), unknown options, an option
// missing its value or whose value starts with '-' (an option to bsub, as
// in ["-G", "-q"]), and a bare word (bsub would take it as the command).
Result<void> CheckExtraArgs(const std::vector<std::string>& extra_args);

// Whether `flag` ("-G") is one of the options CheckExtraArgs lets through and,
// if so, whether it takes a value (true for "-G", false for "-B"); nullopt
// for any other word. The same table CheckExtraArgs reads; the bplace
// command uses it to tell options from the job's command.
std::optional<bool> ExtraArgTakesValue(std::string_view flag);

}  // namespace bplace::lsf
