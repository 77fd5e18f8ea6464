#pragma once

// The Clock seam: rdma_probe reads wall-clock time through it so that tests
// of counter rates advance a manual clock instead of sleeping.

#include <chrono>

namespace bplace::rdma {

// A source of wall-clock time. Counter baselines are stored as wall-clock
// time because they must survive the process (a steady clock restarts with
// every boot and means nothing to another process).
// Implementations must be safe to call from any thread.
class Clock {
 public:
  virtual ~Clock() = default;

  // The current time. Never blocks.
  virtual std::chrono::system_clock::time_point Now() = 0;
};

// std::chrono::system_clock. Thread-safe.
class SystemClock final : public Clock {
 public:
  std::chrono::system_clock::time_point Now() override { return std::chrono::system_clock::now(); }
};

}  // namespace bplace::rdma
