#pragma once

// Judges the error counters of one port against a stored baseline. Pure: no
// I/O, no clock (the caller passes the time), safe from any thread.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rdma_probe/probe_options.h"

namespace bplace::rdma {

// The counter values of one port at one time: the baseline a later probe
// compares with.
struct CounterSample {
  std::chrono::system_clock::time_point at;
  std::map<std::string, std::uint64_t> values;  // counter file name -> value
};

// One counter as the report shows it.
struct CounterReading {
  std::string name;
  std::uint64_t value = 0;
  std::optional<std::uint64_t> delta;  // rise since the baseline; none without one
  std::optional<double> per_hour;      // rate counters only (see JudgeCounters)
  bool saturated = false;              // at the maximum of its PMA width
};

struct CounterJudgement {
  std::vector<CounterReading> counters;  // in kJudgedCounters order, those present
  std::vector<std::string> reasons;      // unhealthy findings, without "dev port N: "
  std::vector<std::string> notes;        // baseline restarts and the like
  CounterSample next_baseline;           // what to store for the next probe
};

// Rates are judged over at least this long: a baseline is kept until it is
// this old, and a rise seen sooner counts as if it happened within one hour,
// so a single symbol error between two probes a minute apart is not read as
// 60 per hour.
inline constexpr std::chrono::hours kRateWindow{1};

// Compares `current` (counters read at `now`) with `baseline`.
// - No baseline: only saturation is judged; a note says rises are judged from
//   the next probe on; `current` becomes the baseline.
// - `rebooted` (the boot id differs from the stored one), the clock went back,
//   or any counter is lower than in the baseline (reset by `perfquery -R` or a
//   driver reload): nothing is judged as a rise, a note says why, and
//   `current` becomes the baseline.
// - Otherwise, for link_downed, local_link_integrity_errors and
//   excessive_buffer_overrun_errors any rise is a reason; for symbol_error,
//   link_error_recovery and port_rcv_errors the rise divided by
//   max(elapsed, kRateWindow) in hours is a reason when above the threshold
//   of `config`. The baseline is kept until it is kRateWindow old, then
//   replaced by `current`; a rise therefore stays visible until then.
// - A counter at 2^bits - 1 (its PMA width) is a reason of its own: it no
//   longer counts, so rises cannot be seen until it is cleared.
CounterJudgement JudgeCounters(const std::map<std::string, std::uint64_t>& current,
                               std::chrono::system_clock::time_point now,
                               const std::optional<CounterSample>& baseline, bool rebooted,
                               const ProbeOptions& config);

}  // namespace bplace::rdma
