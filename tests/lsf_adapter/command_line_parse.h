#pragma once

// What the command-line tests share (lsf_command_line_test): a command line
// the test expects to parse.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lsf_adapter/bjobs_command_line.h"
#include "lsf_adapter/bsub_command_line.h"

namespace bplace::lsf::testing {

// ParseBjobsCommandLine(args), which must succeed: otherwise a test failure
// with its message, and an empty BjobsCommandLine.
inline BjobsCommandLine ParsedBjobsLine(const std::vector<std::string>& args) {
  auto line = ParseBjobsCommandLine(args);
  EXPECT_TRUE(line) << (line ? "" : line.error().message);
  return line ? *line : BjobsCommandLine{};
}

// ParseBsubCommandLine(args), which must succeed: otherwise a test failure
// with its message, and an empty BsubCommandLine.
inline BsubCommandLine ParsedBsubLine(const std::vector<std::string>& args) {
  auto line = ParseBsubCommandLine(args);
  EXPECT_TRUE(line) << (line ? "" : line.error().message);
  return line ? *line : BsubCommandLine{};
}

}  // namespace bplace::lsf::testing
