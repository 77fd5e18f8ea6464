#include "rdma_probe/watchdog.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace bplace::rdma {

bool WriteAllToFd(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

int RunWithWatchdog(std::chrono::milliseconds timeout, const std::function<WatchdogOutput()>& work,
                    const std::function<std::string()>& on_timeout, int on_timeout_exit_code,
                    int fd) {
  // Whoever takes this first writes; the other stays silent.
  static std::atomic<bool> claimed{false};
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  std::thread watchdog([&] {
    std::unique_lock lock(mu);
    if (cv.wait_for(lock, timeout, [&] { return finished; })) return;
    lock.unlock();
    if (claimed.exchange(true)) return;
    WriteAllToFd(fd, on_timeout());
    // _exit, not exit: static destructors would run while `work` still
    // uses them on the other thread, and a thread inside the kernel cannot
    // be joined anyway.
    ::_exit(on_timeout_exit_code);
  });

  WatchdogOutput output = work();
  {
    std::lock_guard lock(mu);
    finished = true;
  }
  cv.notify_all();
  if (claimed.exchange(true)) {
    // The watchdog fired first and is ending the process.
    for (;;) ::pause();
  }
  watchdog.join();
  WriteAllToFd(fd, output.text);
  return output.exit_code;
}

}  // namespace bplace::rdma
