#include "rdma_probe/counter_judge.h"

#include <algorithm>
#include <cstdio>

#include "rdma_probe/sysfs_reader.h"

namespace bplace::rdma {
namespace {

double ThresholdPerHour(const std::string& name, const ProbeOptions& config) {
  if (name == "symbol_error") return config.symbol_error_per_hour;
  if (name == "link_error_recovery") return config.link_error_recovery_per_hour;
  return config.port_rcv_errors_per_hour;
}

std::string FormatRate(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", value);
  return buf;
}

}  // namespace

CounterJudgement JudgeCounters(const std::map<std::string, std::uint64_t>& current,
                               std::chrono::system_clock::time_point now,
                               const std::optional<CounterSample>& baseline, bool rebooted,
                               const ProbeOptions& config) {
  CounterJudgement out;
  out.next_baseline = CounterSample{now, current};

  for (const CounterSpec& spec : kJudgedCounters) {
    auto it = current.find(spec.name);
    if (it == current.end()) continue;
    CounterReading reading;
    reading.name = spec.name;
    reading.value = it->second;
    reading.saturated = it->second >= CounterMax(spec.bits);
    if (reading.saturated) {
      out.reasons.push_back(std::string(spec.name) + " saturated at " + std::to_string(it->second) +
                            " (" + std::to_string(spec.bits) +
                            "-bit counter; rises are invisible until the counters are "
                            "cleared, e.g. perfquery -R)");
    }
    out.counters.push_back(std::move(reading));
  }

  if (rebooted) {
    out.notes.push_back(
        "host rebooted since the counter baseline (new boot id); baseline restarted");
    return out;
  }
  if (!baseline) {
    out.notes.push_back("no counter baseline yet; rises are judged from the next probe on");
    return out;
  }
  if (now < baseline->at) {
    out.notes.push_back("clock is earlier than the counter baseline; baseline restarted");
    return out;
  }
  for (const CounterReading& reading : out.counters) {
    auto it = baseline->values.find(reading.name);
    if (it != baseline->values.end() && reading.value < it->second) {
      out.notes.push_back("counters were reset (" + reading.name + " went from " +
                          std::to_string(it->second) + " to " + std::to_string(reading.value) +
                          "); baseline restarted");
      return out;
    }
  }

  const auto elapsed = now - baseline->at;
  const double hours = std::chrono::duration<double, std::ratio<3600>>(
                           std::max<std::chrono::system_clock::duration>(elapsed, kRateWindow))
                           .count();
  for (std::size_t i = 0; i < out.counters.size(); ++i) {
    CounterReading& reading = out.counters[i];
    auto it = baseline->values.find(reading.name);
    if (it == baseline->values.end()) continue;  // new file: judged from the next probe
    const std::uint64_t delta = reading.value - it->second;
    reading.delta = delta;
    const CounterSpec& spec =
        *std::find_if(std::begin(kJudgedCounters), std::end(kJudgedCounters),
                      [&](const CounterSpec& s) { return reading.name == s.name; });
    if (reading.saturated) continue;  // already a reason; its delta means little
    if (spec.any_rise_fails) {
      if (delta > 0) {
        out.reasons.push_back(reading.name + " rose by " + std::to_string(delta) + " (" +
                              std::to_string(it->second) + " -> " + std::to_string(reading.value) +
                              ")");
      }
      continue;
    }
    const double per_hour = static_cast<double>(delta) / hours;
    reading.per_hour = per_hour;
    const double threshold = ThresholdPerHour(reading.name, config);
    if (delta > 0 && per_hour > threshold) {
      out.reasons.push_back(reading.name + " rising at " + FormatRate(per_hour) + "/h (threshold " +
                            FormatRate(threshold) + "/h; " + std::to_string(it->second) + " -> " +
                            std::to_string(reading.value) + ")");
    }
  }

  if (elapsed < kRateWindow) {
    // Keep judging against the old baseline until the window is full; add
    // counters the baseline did not have yet.
    out.next_baseline = *baseline;
    for (const auto& [name, value] : current) out.next_baseline.values.emplace(name, value);
  }
  return out;
}

}  // namespace bplace::rdma
