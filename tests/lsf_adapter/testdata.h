#pragma once

// Access to the captured LSF output in tests/testdata/ (see its README.md)
// for the parser tests. Not thread-safe; tests call it from one thread.

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace bplace::lsf::testing {

// The bytes of tests/testdata/<relative_path>. Records a test failure and
// returns "" when the file cannot be read.
std::string ReadTestdata(std::string_view relative_path);

// ReadTestdata of each of `relative_paths`, in order.
std::vector<std::string> ReadTestdataFiles(std::initializer_list<const char*> relative_paths);

// One case of a bsub_replies.txt file. Expected fields that the file leaves
// out are empty.
struct BsubCase {
  std::string name;
  std::string source;
  int exit_code = 0;
  std::string outcome;  // submitted, queue_rejected, job_rejected, unavailable, unknown
  std::string job_id;
  std::string queue;
  std::string prefix;
  std::string message;
  bool has_prefix = false;
  std::string out;
  std::string err;
};

// The cases of tests/testdata/<relative_path>, in file order (layout in
// tests/testdata/README.md).
std::vector<BsubCase> ReadBsubCases(std::string_view relative_path);

// Replaces every "\n" with "\r\n".
std::string WithCrlf(std::string_view text);

}  // namespace bplace::lsf::testing
