#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace bplace::lsf {

// Finds the file a child runs for argv[0] = `name`: `name` itself when it
// contains a '/', else the first "<dir>/<name>" that is a regular file we may
// execute, for each non-empty <dir> of the PATH in `env` ("NAME=value"
// strings: the child's environment, not ours). Empty PATH entries, which
// execvp reads as the current directory, are skipped.
// Returns kCommandFailed "bqueues: not found in PATH=/a:/b", or "bqueues: not
// found: the command's environment has no PATH". Blocks on stat(2) and
// access(2) of each candidate (a hung NFS mount blocks it). Thread-safe.
Result<std::string> ResolveExecutable(const std::string& name, const std::vector<std::string>& env);

}  // namespace bplace::lsf
