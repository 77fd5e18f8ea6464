#pragma once

#include <string>
#include <vector>

namespace bplace::lsfsim {

// The simulator's own subcommands (`lsfsim init|schedule|set-host|set-queue|
// set-ib|fault|counts|jobs|generate`), which tests and demos use to set up and
// drive the simulated cluster. Each writes its output to stdout/stderr and
// returns the process exit status (0 on success, 2 on bad usage, 1 on other
// errors). `args` excludes the subcommand name. The state directory comes
// from `--state DIR`, else $LSF_ENVDIR.
int RunControlCommand(const std::string& name, const std::vector<std::string>& args);

// Prints the control usage text to stderr.
void PrintControlUsage();

// For a control subcommand's bad usage: prints "lsfsim: MESSAGE" and the
// control usage text to stderr and returns 2, the exit status to return.
int ControlUsageError(const std::string& message);

// For a control subcommand's other errors: prints "lsfsim: MESSAGE" to
// stderr and returns 1, the exit status to return.
int ControlError(const std::string& message);

}  // namespace bplace::lsfsim
