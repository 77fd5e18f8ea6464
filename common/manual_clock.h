#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "common/clock.h"

namespace bplace {

// A Clock that moves only when told (the fake of the Clock seam). Starts at
// a fixed steady time and at 2026-01-01T00:00:00Z wall time; Advance moves
// both. Timers fire when Advance passes their deadline: their callbacks are
// posted to their executors (run them with io_context::poll), in deadline
// order. Thread-safe.
class ManualClock final : public Clock {
 public:
  ManualClock();
  ~ManualClock() override;

  SteadyTime SteadyNow() const override;
  SystemTime SystemNow() const override;
  std::unique_ptr<Timer> NewTimer(boost::asio::any_io_executor executor) override;

  // Moves time forward by `step` (>= 0) and posts every timer now due.
  void Advance(std::chrono::milliseconds step);
  // Sets the wall clock alone (steady time is untouched), e.g. to test a
  // clock step by NTP.
  void SetSystemTime(SystemTime now);
  // Timers scheduled and not yet fired or cancelled.
  std::size_t PendingTimers() const;

 private:
  class ManualTimer;
  struct Entry {
    boost::asio::any_io_executor executor;
    std::function<void()> fire;
    ManualTimer* owner;
  };

  void Add(ManualTimer* owner, SteadyTime deadline, boost::asio::any_io_executor executor,
           std::function<void()> fire);
  void Remove(ManualTimer* owner);

  mutable std::mutex mutex_;
  SteadyTime steady_now_;
  SystemTime system_now_;
  std::multimap<SteadyTime, Entry> pending_;
};

}  // namespace bplace
