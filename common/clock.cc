#include "common/clock.h"

#include <boost/asio/steady_timer.hpp>

namespace bplace {
namespace {

class AsioTimer final : public Timer {
 public:
  explicit AsioTimer(boost::asio::any_io_executor executor) : timer_(executor) {}

  void Schedule(std::chrono::milliseconds delay, std::function<void()> fire) override {
    timer_.expires_after(delay);
    timer_.async_wait([fire = std::move(fire)](const boost::system::error_code& ec) {
      if (!ec) fire();
    });
  }
  void Cancel() override { timer_.cancel(); }

 private:
  boost::asio::steady_timer timer_;
};

}  // namespace

std::unique_ptr<Timer> RealClock::NewTimer(boost::asio::any_io_executor executor) {
  return std::make_unique<AsioTimer>(executor);
}

}  // namespace bplace
