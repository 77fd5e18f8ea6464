#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

namespace bplace {

using SteadyTime = std::chrono::steady_clock::time_point;
using SystemTime = std::chrono::system_clock::time_point;

// A one-shot timer on a Clock. Not thread-safe: one owner schedules and
// cancels it (typically from one strand).
class Timer {
 public:
  virtual ~Timer() = default;

  // Calls `fire` once on the timer's executor when `delay` has passed on the
  // clock, unless Cancel or another Schedule comes first (which drop it:
  // `fire` is then never called). A delay <= 0 fires at the next turn.
  virtual void Schedule(std::chrono::milliseconds delay, std::function<void()> fire) = 0;
  // Drops the pending call, if any.
  virtual void Cancel() = 0;
};

// The time seam (docs/hacking.md "Conventions"): every timer, TTL and age in
// the daemon reads it, so that unit tests advance a ManualClock instead of
// sleeping. Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;

  // Monotonic time, for intervals, deadlines and TTLs.
  virtual SteadyTime SteadyNow() const = 0;
  // Wall-clock time, for `as_of` stamps and anything shown to people.
  virtual SystemTime SystemNow() const = 0;
  // A timer measured on this clock whose callbacks run on `executor`.
  virtual std::unique_ptr<Timer> NewTimer(boost::asio::any_io_executor executor) = 0;
};

// std::chrono::steady_clock and system_clock, with Asio steady timers.
class RealClock final : public Clock {
 public:
  SteadyTime SteadyNow() const override { return std::chrono::steady_clock::now(); }
  SystemTime SystemNow() const override { return std::chrono::system_clock::now(); }
  std::unique_ptr<Timer> NewTimer(boost::asio::any_io_executor executor) override;
};

}  // namespace bplace
