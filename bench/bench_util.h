#pragma once

// What the benches that drive the real bplaced share (jobs_bench,
// site_bench): their flags, the machine's load and time for their reports,
// and small file and PATH helpers.

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bplace::bench {

// `--name value` pairs (the arguments after the mode). Throws
// std::invalid_argument for a malformed list, a value that is not a count
// (an integer >= 0) or a range of counts, or, from CheckAllKnown, a name no
// Int/Ints/Range/String asked for.
class Flags {
 public:
  explicit Flags(const std::vector<std::string>& args);

  // The value of --name, or `fallback` when not given.
  int Int(const std::string& name, int fallback);
  // The text of --name, or `fallback` when not given.
  std::string String(const std::string& name, const std::string& fallback);
  // A comma-separated list of counts ("1,200"); `fallback` is parsed the same way.
  std::vector<int> Ints(const std::string& name, const std::string& fallback);
  // A range of counts "MIN-MAX" with MIN <= MAX, as {MIN, MAX}; `fallback`
  // when not given.
  std::pair<int, int> Range(const std::string& name, std::pair<int, int> fallback);
  // Call after every Int/Ints/String: an unknown flag is an error.
  void CheckAllKnown() const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

// The three load averages of /proc/loadavg ("0.52 0.61 1.10").
std::string LoadAverage();
// Now as "2026-12-01 20:41:52 UTC".
std::string Timestamp();
// Seconds from `start` to now, on the steady clock.
double SecondsSince(std::chrono::steady_clock::time_point start);
// Whether an executable `program` is in one of $PATH's directories.
bool OnPath(const std::string& program);
// The whole file; empty when it cannot be read.
std::string ReadFile(const std::filesystem::path& path);

// A bench's main: runs `main_function` with argv[1..] and returns its
// status; an exception is printed as "<name>: <what>" on stderr, status 1.
int RunMain(int argc, char** argv, const char* name,
            const std::function<int(const std::vector<std::string>&)>& main_function);

}  // namespace bplace::bench
