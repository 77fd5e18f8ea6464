#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/lsfsim/run_process.h"

namespace bplace::lsfsim::testing {

// The simulator's clock in these tests: Sun Nov 30 11:40:00 UTC 2025.
inline constexpr long long kT0 = 1764502800;

// A fresh simulator state directory per test, and helpers that run the real
// lsfsim binary through its LSF command symlinks against it. The clock
// (LSFSIM_NOW), time zone and submission host are fixed so that output can
// be compared byte for byte.
class SimFixture : public ::testing::Test {
 protected:
  static constexpr const char* kNow = "1764502800";  // kT0, as LSFSIM_NOW takes it

  void SetUp() override;
  void TearDown() override;

  // Writes `toml` to a file and runs `lsfsim init` on it; fails the test if
  // init fails.
  void Init(const std::string& toml);

  // Runs `lsfsim init --cluster path`.
  void InitFromFile(const std::string& path);

  // Runs LSF command `command` (a symlink name) with LSF_ENVDIR set.
  ProcessResult Lsf(const std::string& command, const std::vector<std::string>& args,
                    const std::string& stdin_text = "",
                    std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // Runs LSF command `command` as `user` (real and effective ids, primary
  // and supplementary groups, through setpriv(1)) with the environment of
  // Lsf. Needs root; see CanRunAs.
  ProcessResult LsfAs(const std::string& user, const std::string& command,
                      const std::vector<std::string>& args, const std::string& stdin_text = "",
                      std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // True when LsfAs can run commands as `user`: we are root, setpriv is
  // there and `user` exists (tools/test-users.sh creates alice and bob).
  static bool CanRunAs(const std::string& user);

  // Runs `lsfsim <args>` with LSF_ENVDIR set.
  ProcessResult Sim(const std::vector<std::string>& args,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30));

  static std::string BinDir() { return LSFSIM_BIN_DIR; }

  // The environment every command above runs with: LSF_ENVDIR, the clock,
  // the time zone, the submission host (LSF commands only) and env_.
  std::map<std::string, std::optional<std::string>> Env(bool lsf_command) const;

  // Moves the simulated clock (LSFSIM_NOW) to `now` seconds since the epoch
  // for every later command.
  void SetNow(long long now) { now_ = std::to_string(now); }

  std::string dir_;   // the state directory (LSF_ENVDIR)
  std::string user_;  // the user the tests run as
  std::string now_ = kNow;
  // Extra variables for every command (e.g. LSB_NTRIES); a nullopt unsets one.
  std::map<std::string, std::optional<std::string>> env_;
};

}  // namespace bplace::lsfsim::testing
