#pragma once

// Starting and watching real processes in the rdma_probe tests: posix_spawn
// with a stdout pipe, reads and waits bounded by deadlines (no test can hang).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace bplace::testing {

struct SpawnedProcess {
  pid_t pid = -1;
  int stdout_fd = -1;  // read end of the child's stdout; -1 if closed
};

// Starts `argv` (argv[0] a path) with stdout into a pipe; stdin and stderr
// are inherited. pid -1 on failure.
inline SpawnedProcess SpawnWithStdoutPipe(const std::vector<std::string>& argv) {
  SpawnedProcess out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return out;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return out;
  }
  out.pid = pid;
  out.stdout_fd = fds[0];
  return out;
}

// Reads from `fd` until `pred(text)` holds, EOF, or `timeout`. Returns all
// that was read.
template <typename Pred>
std::string ReadUntil(int fd, std::chrono::milliseconds timeout, Pred pred) {
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred(text)) {
    // Rounded up, so that the wait never ends before `timeout` passed.
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

inline std::string ReadAll(int fd, std::chrono::milliseconds timeout) {
  return ReadUntil(fd, timeout, [](const std::string&) { return false; });
}

// Waits for `pid` up to `timeout`; its wait status, or nullopt (the child
// is then killed with SIGKILL and reaped, so no test leaves one behind).
inline std::optional<int> WaitFor(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    if (std::chrono::steady_clock::now() >= deadline) break;
    ::poll(nullptr, 0, 5);
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return std::nullopt;
}

inline int CountLines(const std::string& text, const std::string& line) {
  int n = 0;
  for (std::size_t pos = 0; (pos = text.find(line, pos)) != std::string::npos; pos += line.size()) {
    ++n;
  }
  return n;
}

}  // namespace bplace::testing
