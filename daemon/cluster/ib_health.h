#pragma once

// InfiniBand health of hosts as the daemon knows it: from the `ib_ok` load
// index (rdma_probe running as an LSF elim on each host) or from rdma_probe
// run locally. The daemon never calls verbs itself.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_map.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace {

// A host's InfiniBand verdict.
enum class IbHealth {
  kHealthy,    // the probe passed every check on every checked port
  kUnhealthy,  // the probe failed a check, or could not run to the end
  kUnknown,    // no data: no source configured, elim not reporting, LIM down
};

// "healthy", "unhealthy" or "unknown", for JSON and messages.
const char* IbHealthName(IbHealth health);

// One host's verdict, with the reasons (each naming device and port when the
// probe said so) and when it was learnt.
struct HostIbHealth {
  IbHealth health = IbHealth::kUnknown;
  std::vector<std::string> reasons;
  std::chrono::system_clock::time_point as_of{};
};

// Every host's verdict from one source at one time. Immutable once published
// in a snapshot.
struct IbHealthState {
  std::string source;  // "lsload" or "local"
  StringMap<HostIbHealth> hosts;
  std::chrono::system_clock::time_point as_of{};  // when the source was last read successfully
  std::string last_error;  // the last failed read of the source; empty after a success

  // The host's entry, or null when the source said nothing about it.
  const HostIbHealth* Find(std::string_view host) const;
};

// The `ib_ok` load index as rdma_probe's elim publishes it: 1 healthy, 0 not.
inline constexpr std::string_view kIbOkIndex = "ib_ok";

// Verdicts from `lsload -w -I ib_ok` rows (lsf::ParseLsload): 1 is healthy,
// 0 unhealthy; no value is unknown ("LIM on the host is unavailable" when the
// status says unavail, else "the host does not report ib_ok (is elim.ib
// installed there?)"); any other value is unknown and says so. Pure.
IbHealthState IbHealthFromLsload(const std::vector<lsf::LoadIndexValue>& rows,
                                 std::chrono::system_clock::time_point as_of);

// One host's verdict from a run of `rdma_probe` (its JSON report on stdout,
// format of rdma_probe/report.h: {"verdict": "healthy"|"unhealthy"|"error",
// "reasons": [...]}) and its exit status (0 healthy, 1 unhealthy, 2 error).
// A report that is missing or unreadable, a verdict of "error", or an exit
// status that disagrees with the verdict makes the host unhealthy with a
// reason saying which; `failure` (the run timed out or could not start) does
// too. Pure.
HostIbHealth IbHealthFromProbe(std::string_view report_json, int exit_code,
                               const std::optional<std::string>& failure,
                               std::chrono::system_clock::time_point as_of);

}  // namespace bplace
