#pragma once

// Runs a shell command line and returns what it printed on stdout: for the
// tests and benchmarks that capture the LSF simulator's output of a
// generated cluster (`lsfsim generate`, then `LSF_ENVDIR=... bqueues -l`).

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace bplace::testing {

// stdout of `/bin/sh -c command`, whole. Throws std::runtime_error when the
// shell cannot be started; a command that fails prints what it printed
// (often nothing), which the caller's parser then refuses.
inline std::string CaptureCommand(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("popen failed: " + command);
  std::string out;
  std::array<char, 65536> buffer;
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0) out.append(buffer.data(), n);
  return out;
}

}  // namespace bplace::testing
