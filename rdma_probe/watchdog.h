#pragma once

// A deadline for work that cannot be cancelled (a verbs call stuck in the
// driver): past it, the process prints a fallback and ends.

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace bplace::rdma {

// What the guarded work produced: text for `fd` and the exit status.
struct WatchdogOutput {
  std::string text;
  int exit_code = 0;
};

// Runs `work` on the calling thread while a watchdog thread waits up to
// `timeout`. If `work` returns first, its text is written to `fd` and its
// exit status returned. Otherwise the watchdog writes `on_timeout()` to `fd`
// and ends the process with _exit(`on_timeout_exit_code`), whatever `work`
// is doing: exactly one of the two texts is ever written. `on_timeout` runs
// on the watchdog thread. Call it at most once per process.
int RunWithWatchdog(std::chrono::milliseconds timeout, const std::function<WatchdogOutput()>& work,
                    const std::function<std::string()>& on_timeout, int on_timeout_exit_code,
                    int fd);

// Writes all of `text` to `fd` with write(2), retrying on EINTR. Returns
// false (errno set) on failure.
bool WriteAllToFd(int fd, std::string_view text);

}  // namespace bplace::rdma
