#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bplace::lsfsim::testing {

// What a child process did.
struct ProcessResult {
  int exit_code = -1;  // exit status, or 128+signal when killed by a signal
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs `path` with `args` (argv[0] is `path`) in its own process group, with
// the current environment changed by `env` (a nullopt value unsets the
// variable), feeding `stdin_text` on stdin. Blocks until the child exits or
// `timeout` passes; on timeout it kills the whole group with SIGKILL, reaps
// the child and sets timed_out. Never uses a shell. For tests only.
ProcessResult RunProcess(const std::string& path, const std::vector<std::string>& args,
                         const std::map<std::string, std::optional<std::string>>& env,
                         const std::string& stdin_text, std::chrono::milliseconds timeout);

// A child process that runs while the test goes on (`lsfsim daemon`), in
// its own process group, stdio on /dev/null, with the environment changed
// as RunProcess does. The destructor kills the group with SIGKILL and
// reaps it if Stop() was not called. For tests only; not thread-safe.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::string& path, const std::vector<std::string>& args,
                    const std::map<std::string, std::optional<std::string>>& env);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  // Sends SIGTERM and waits up to `timeout` for the exit (pidfd, no
  // polling). Returns the exit status (128+signal when killed by one), or
  // -1 when it had to be killed after the timeout.
  int Stop(std::chrono::milliseconds timeout);

 private:
  int pid_ = -1;
};

}  // namespace bplace::lsfsim::testing
