#pragma once

// The counter baseline file (IbConfig::state_file): a small JSON document
// that carries counter values from one probe to the next. Blocking file I/O;
// no shared state; safe from any thread (concurrent writers are safe too:
// the last rename wins and the file is never half-written).

#include <map>
#include <string>

#include "common/result.h"
#include "rdma_probe/counter_judge.h"

namespace bplace::rdma {

struct CounterState {
  std::string boot_id;                         // of the boot the samples were taken in
  std::map<std::string, CounterSample> ports;  // "mlx5_0:1" -> baseline
};

// Key of a port in CounterState::ports: "mlx5_0:1".
std::string PortKey(const std::string& device, std::uint32_t port);

// Reads the file at `path`:
//   {"version": 1, "boot_id": "...",
//    "ports": {"mlx5_0:1": {"at_unix_s": 1714567890, "counters": {"symbol_error": 0, ...}}}}
// Fails with kNotFound ("PATH: No such file or directory") when it cannot be
// read, and kParseError naming the path when it is not such a document.
Result<CounterState> LoadCounterState(const std::string& path);

// Writes `state` to `path` atomically: into "PATH.tmp.<pid>" in the same
// directory, fsync'ed, then renamed over `path`. Fails with kUnavailable
// naming the step and errno ("PATH.tmp.12: open: Permission denied").
Result<void> SaveCounterState(const std::string& path, const CounterState& state);

// Whether a state file could be written at `path`: its directory exists and
// is writable. Returns an empty string when so, else why not
// ("/var/lib/bplace: No such file or directory").
std::string CheckStateDirectory(const std::string& path);

}  // namespace bplace::rdma
