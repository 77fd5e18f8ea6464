#include "frontdoor/real_lsf.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

namespace bplace::frontdoor {
namespace {

std::vector<char*> Argv(const std::string& command, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(command.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  return argv;
}

// Writes all of `data` to `fd`; false on an error (EPIPE: the child stopped
// reading, which is its business).
bool WriteAll(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// A child running `path` as `command` with one end of a fresh pipe as its
// `child_fd` (STDIN_FILENO: the child reads the pipe; STDOUT_FILENO: it
// writes it), and the parent's end. pid -1 after saying on stderr why no
// child runs.
struct PipedChild {
  pid_t pid = -1;
  int fd = -1;
};

PipedChild SpawnPiped(const std::string& path, const std::string& command,
                      const std::vector<std::string>& args, int child_fd) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "%s: pipe: %s\n", command.c_str(), std::strerror(errno));
    return {};
  }
  const int child_end = child_fd == STDIN_FILENO ? fds[0] : fds[1];
  const int parent_end = child_fd == STDIN_FILENO ? fds[1] : fds[0];
  std::vector<char*> argv = Argv(command, args);
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "%s: fork: %s\n", command.c_str(), std::strerror(errno));
    ::close(fds[0]);
    ::close(fds[1]);
    return {};
  }
  if (pid == 0) {
    ::dup2(child_end, child_fd);
    ::execv(path.c_str(), argv.data());
    _exit(255);
  }
  ::close(child_end);
  return {pid, parent_end};
}

// How `pid` ended, as a shell reports it: its exit code, 128 + the signal
// that killed it, or 255.
int WaitExitStatus(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 255;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

Result<std::string> RealCommandPath(const std::string& command,
                                    const std::map<std::string, std::string>& env,
                                    const std::string& self) {
  std::string dir;
  for (const char* name : {"BPLACE_LSF_BINDIR", "LSF_BINDIR"}) {
    const auto it = env.find(name);
    if (it != env.end() && !it->second.empty()) {
      dir = it->second;
      break;
    }
  }
  if (dir.empty()) {
    return Fail(ErrorCode::kNotFound,
                "cannot find LSF's own " + command +
                    ": LSF_BINDIR is not set (source LSF's profile.lsf, or set BPLACE_LSF_BINDIR)");
  }
  const std::string path = dir + "/" + command;
  struct stat real {};
  if (::stat(path.c_str(), &real) != 0 || !S_ISREG(real.st_mode) ||
      ::access(path.c_str(), X_OK) != 0) {
    return Fail(ErrorCode::kNotFound, "cannot run LSF's own " + command + " at " + path + ": " +
                                          std::strerror(errno ? errno : ENOENT));
  }
  struct stat ours {};
  if (::stat(self.c_str(), &ours) == 0 && ours.st_dev == real.st_dev &&
      ours.st_ino == real.st_ino) {
    return Fail(ErrorCode::kInvalidArgument,
                path + " is bplace's front door, not LSF's " + command +
                    ": point LSF_BINDIR (or BPLACE_LSF_BINDIR) at LSF's own bin directory");
  }
  return path;
}

int ExecRealCommand(const std::string& path, const std::string& command,
                    const std::vector<std::string>& args) {
  std::vector<char*> argv = Argv(command, args);
  ::execv(path.c_str(), argv.data());
  std::fprintf(stderr, "%s: cannot run %s: %s\n", command.c_str(), path.c_str(),
               std::strerror(errno));
  return 255;
}

int RunRealCommandWithInput(const std::string& path, const std::string& command,
                            const std::vector<std::string>& args, const std::string& stdin_data) {
  const PipedChild child = SpawnPiped(path, command, args, STDIN_FILENO);
  if (child.pid < 0) return 255;
  // The child may exit without reading everything: a write error is not ours.
  std::signal(SIGPIPE, SIG_IGN);
  WriteAll(child.fd, stdin_data);
  ::close(child.fd);
  return WaitExitStatus(child.pid);
}

int RunRealCommandReadingStdout(const std::string& path, const std::string& command,
                                const std::vector<std::string>& args, std::string& out) {
  const PipedChild child = SpawnPiped(path, command, args, STDOUT_FILENO);
  if (child.pid < 0) return 255;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(child.fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(child.fd);
  return WaitExitStatus(child.pid);
}

bool IsEmptyJsonAnswer(const std::string& out) {
  const nlohmann::json answer = nlohmann::json::parse(out, nullptr, false);
  if (!answer.is_object()) return false;
  const auto records = answer.find("RECORDS");
  return records != answer.end() && records->is_array() && records->empty();
}

}  // namespace bplace::frontdoor
