#include "tests/lsfsim/util.h"

#include <pwd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace bplace::lsfsim {

std::string StrPrintf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int size = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string out;
  if (size > 0) {
    out.resize(static_cast<size_t>(size) + 1);
    std::vsnprintf(out.data(), out.size(), format, args);
    out.resize(static_cast<size_t>(size));
  }
  va_end(args);
  return out;
}

std::vector<std::string> SplitWs(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
      ++i;
    }
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n' &&
           text[i] != '\r') {
      ++i;
    }
    if (i > start) out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string JsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += StrPrintf("\\u%04x", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

tl::expected<std::string, std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return tl::unexpected("open " + path + ": " + std::strerror(errno));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

tl::expected<void, std::string> AtomicWriteFile(const std::string& path, std::string_view content) {
  std::string tmp = StrPrintf("%s.tmp.%ld", path.c_str(), static_cast<long>(getpid()));
  // A leftover of a killed process that had our pid may belong to another
  // user, whose file we could not truncate; in the shared (0777, not sticky)
  // state directory anyone may remove it.
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return tl::unexpected("open " + tmp + ": " + std::strerror(errno));
  }
  // 0644 whatever the caller's umask: with a umask of 077 (pam_umask on
  // some sites) alice's jobs.json would be unreadable to bob and the state
  // directory unusable to anyone but her.
  if (::fchmod(fd, 0644) != 0) {
    std::string error = "chmod " + tmp + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return tl::unexpected(error);
  }
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string error = "write " + tmp + ": " + std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return tl::unexpected(error);
    }
    done += static_cast<size_t>(n);
  }
  // No fsync: the state only has to survive concurrent processes, not a
  // power cut, and fsync on every LSF call would make the simulator slow.
  if (::close(fd) != 0) {
    std::string error = "close " + tmp + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return tl::unexpected(error);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string error = "rename " + tmp + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return tl::unexpected(error);
  }
  return {};
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool ParseInt(std::string_view text, long long* value) {
  if (text.empty() || text.size() > 18) return false;
  long long v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *value = v;
  return true;
}

long long NowSeconds() {
  const char* fixed = std::getenv("LSFSIM_NOW");
  long long value = 0;
  if (fixed != nullptr && ParseInt(fixed, &value)) return value;
  return static_cast<long long>(std::time(nullptr));
}

std::string FormatLocalTime(long long epoch_seconds, const char* strftime_format) {
  time_t t = static_cast<time_t>(epoch_seconds);
  struct tm local {};
  localtime_r(&t, &local);
  char buffer[128];
  std::strftime(buffer, sizeof buffer, strftime_format, &local);
  return buffer;
}

std::string HomeDirectoryOf(const std::string& user) {
  struct passwd pwd {};
  struct passwd* pw = nullptr;
  std::vector<char> buffer(16384);
  ::getpwnam_r(user.c_str(), &pwd, buffer.data(), buffer.size(), &pw);
  return pw != nullptr && pw->pw_dir != nullptr ? pw->pw_dir : "";
}

}  // namespace bplace::lsfsim
