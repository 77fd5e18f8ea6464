#include "common/manual_clock.h"

#include <vector>

#include <boost/asio/post.hpp>

namespace bplace {

class ManualClock::ManualTimer final : public Timer {
 public:
  ManualTimer(ManualClock& clock, boost::asio::any_io_executor executor)
      : clock_(clock), executor_(executor) {}
  ~ManualTimer() override { clock_.Remove(this); }

  void Schedule(std::chrono::milliseconds delay, std::function<void()> fire) override {
    clock_.Remove(this);
    clock_.Add(this, clock_.SteadyNow() + delay, executor_, std::move(fire));
  }
  void Cancel() override { clock_.Remove(this); }

 private:
  ManualClock& clock_;
  boost::asio::any_io_executor executor_;
};

ManualClock::ManualClock()
    : steady_now_(std::chrono::hours(1000)),
      system_now_(std::chrono::sys_days(std::chrono::year(2026) / 1 / 1)) {}

ManualClock::~ManualClock() = default;

SteadyTime ManualClock::SteadyNow() const {
  std::lock_guard lock(mutex_);
  return steady_now_;
}

SystemTime ManualClock::SystemNow() const {
  std::lock_guard lock(mutex_);
  return system_now_;
}

std::unique_ptr<Timer> ManualClock::NewTimer(boost::asio::any_io_executor executor) {
  return std::make_unique<ManualTimer>(*this, executor);
}

void ManualClock::Advance(std::chrono::milliseconds step) {
  std::vector<Entry> due;
  {
    std::lock_guard lock(mutex_);
    steady_now_ += step;
    system_now_ += step;
    while (!pending_.empty() && pending_.begin()->first <= steady_now_) {
      due.push_back(std::move(pending_.begin()->second));
      pending_.erase(pending_.begin());
    }
  }
  // Posted, not called: a timer callback runs where a real one would, on
  // its executor, and may schedule its timer again without deadlock.
  for (Entry& entry : due) boost::asio::post(entry.executor, std::move(entry.fire));
}

void ManualClock::SetSystemTime(SystemTime now) {
  std::lock_guard lock(mutex_);
  system_now_ = now;
}

std::size_t ManualClock::PendingTimers() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

void ManualClock::Add(ManualTimer* owner, SteadyTime deadline,
                      boost::asio::any_io_executor executor, std::function<void()> fire) {
  if (deadline <= SteadyNow()) {
    boost::asio::post(executor, std::move(fire));
    return;
  }
  std::lock_guard lock(mutex_);
  pending_.emplace(deadline, Entry{executor, std::move(fire), owner});
}

void ManualClock::Remove(ManualTimer* owner) {
  std::lock_guard lock(mutex_);
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = it->second.owner == owner ? pending_.erase(it) : std::next(it);
  }
}

}  // namespace bplace
