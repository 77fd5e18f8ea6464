#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "daemon/common/result.h"

namespace bplace::lsf {

// One command to run: argv[0] is an absolute path or a name resolved by the
// runner against PATH in `env`; no shell is ever involved.
struct CommandSpec {
  std::vector<std::string> argv;
  // The complete environment of the child ("NAME=value"). The runner adds
  // nothing: the caller sets PATH, LSF_ENVDIR and the like.
  std::vector<std::string> env;
  // Fed to the child's stdin, which is then closed; without it stdin is /dev/null.
  std::optional<std::string> stdin_data;
  // Wall-clock limit; on expiry the child's whole process group gets SIGKILL.
  std::chrono::milliseconds timeout{30000};
};

// What a finished (or killed) command did.
struct CommandResult {
  int exit_code = -1;      // exit status, or -1 when killed by a signal
  int term_signal = 0;     // the signal that ended it, 0 if it exited
  bool timed_out = false;  // killed by us at `timeout`
  std::string out;         // all of stdout
  std::string err;         // all of stderr
  std::chrono::milliseconds elapsed{0};
  // `out` or `err` reached the runner's size limit and was cut there; the
  // rest was read and discarded so the child never blocked on a full pipe.
  bool output_truncated = false;
};

// Runs external commands without blocking the caller. Implementations are
// thread-safe: Run may be called from any thread, concurrently.
class CommandRunner {
 public:
  using Callback = std::function<void(Result<CommandResult>)>;

  virtual ~CommandRunner() = default;

  // Starts `spec` and returns at once. `done` is called exactly once, on an
  // executor thread of the runner, with the result; a command that times out
  // is a CommandResult with timed_out set (not an error). The error side is
  // kCommandFailed when the child could not be started at all (e.g. argv[0]
  // not found, fork failure), with the failing call and errno text.
  virtual void Run(CommandSpec spec, Callback done) = 0;
};

}  // namespace bplace::lsf
