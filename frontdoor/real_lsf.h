#pragma once

// The real LSF commands behind the front door: found in LSF's own bin
// directory, never through PATH (where the front door itself comes first),
// and run in the front door's place with its arguments, stdin and terminal.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace bplace::frontdoor {

// Where the real `command` ("bsub") is: $BPLACE_LSF_BINDIR/<command>, else
// $LSF_BINDIR/<command> (set by LSF's profile.lsf), from `env`. Errors:
// kNotFound when neither variable is set or the file is not executable, and
// kInvalidArgument when it is the front door itself (the same file as
// `self`, e.g. /proc/self/exe, or a link to it): running it would loop.
// Blocks on stat(2).
Result<std::string> RealCommandPath(const std::string& command,
                                    const std::map<std::string, std::string>& env,
                                    const std::string& self = "/proc/self/exe");

// Replaces this process with the real command: `path` with argv[0]
// `command` and then `args`; stdin, stdout, stderr, the terminal, the
// working directory and the environment stay as they are. Returns only when
// exec failed: then it prints why on stderr and returns LSF's exit status
// for a command that could not run (255).
int ExecRealCommand(const std::string& path, const std::string& command,
                    const std::vector<std::string>& args);

// Runs the real command as a child with `stdin_data` on its stdin (bsub's
// job script, which the front door has read already), the rest inherited,
// and returns its exit status (128 + signal when a signal ended it, 255
// when it could not start). Blocks until the child exits.
int RunRealCommandWithInput(const std::string& path, const std::string& command,
                            const std::vector<std::string>& args, const std::string& stdin_data);

// Runs the real command as a child with its stdout read into `out`, stdin
// and stderr inherited, and returns its exit status as
// RunRealCommandWithInput does. Blocks until the child exits.
int RunRealCommandReadingStdout(const std::string& path, const std::string& command,
                                const std::vector<std::string>& args, std::string& out);

// True when `out` is a bjobs -json answer without records: a JSON object
// whose RECORDS is an empty array (volclava 2.2 prints one, with exit 255,
// when no job matches; LSF 10.1 the same with exit 0).
bool IsEmptyJsonAnswer(const std::string& out);

}  // namespace bplace::frontdoor
