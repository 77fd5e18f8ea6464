#pragma once

// The exit statuses of the bplace command (docs/cli.md "Exit status").

namespace bplace::cli {

// What `bplace` returns to the shell.
enum class ExitCode : int {
  kOk = 0,           // the daemon did it (or answered the question)
  kRefused = 1,      // the daemon refused, or found nothing: its problem's detail is printed
  kUsage = 2,        // the command line (or the token file) is wrong; nothing was sent
  kUnreachable = 3,  // no answer from bplaced: not running, wrong address, timed out
};

// The exit status for a daemon's HTTP answer: 2xx kOk, every other status
// (4xx refusals and not-founds, 5xx: LSF down, bsub timed out) kRefused.
ExitCode ExitCodeForStatus(int http_status);

// The text of the exit codes for --help, the one list of them.
inline constexpr char kExitCodesHelp[] =
    "Exit status: 0 ok; 1 refused or not found (the daemon's reason is printed); 2 usage error "
    "(nothing sent); 3 bplaced unreachable or no answer within --timeout.";

}  // namespace bplace::cli
