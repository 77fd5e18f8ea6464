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

}  // namespace bplace::lsfsim::testing
