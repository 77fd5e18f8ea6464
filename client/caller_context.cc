#include "client/caller_context.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

extern char** environ;

namespace bplace::client {

Result<std::string> WorkingDirectory() {
  char buffer[PATH_MAX];
  if (::getcwd(buffer, sizeof buffer) == nullptr) {
    return Fail(ErrorCode::kNotFound,
                std::string("cannot read the working directory: ") + std::strerror(errno));
  }
  return std::string(buffer);
}

std::string UmaskText() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  char text[8];
  std::snprintf(text, sizeof text, "%03o", static_cast<unsigned>(mask));
  return text;
}

nlohmann::json EnvironmentJson() {
  nlohmann::json env = nlohmann::json::object();
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals == nullptr || equals == *entry) continue;
    std::string name(*entry, static_cast<std::size_t>(equals - *entry));
    if (name == "BPLACE_TOKEN") continue;
    env[std::move(name)] = std::string(equals + 1);
  }
  return env;
}

std::map<std::string, std::string> EnvironmentMap() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals == nullptr) continue;
    env.emplace(std::string(*entry, static_cast<std::size_t>(equals - *entry)),
                std::string(equals + 1));
  }
  return env;
}

Result<StdinText> ReadStdin(std::size_t max_bytes) {
  StdinText text;
  if (::isatty(STDIN_FILENO)) {
    text.terminal = true;
    return text;
  }
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.data.append(buffer, static_cast<std::size_t>(n));
    if (text.data.size() > max_bytes) {
      return Fail(ErrorCode::kInvalidArgument,
                  "the job script on stdin is longer than " + std::to_string(max_bytes) + " bytes");
    }
  }
  return text;
}

}  // namespace bplace::client
