#include "tests/integration/append_line.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <string>

namespace bplace::testing {
namespace {

// One lock for every file: the records are few and small next to the HTTP
// exchanges they describe, so contention costs nothing worth a lock per file.
std::mutex append_mutex;

}  // namespace

bool AppendLine(const std::filesystem::path& file, std::string_view line) {
  std::string text(line);
  text += '\n';
  // A stream writes a line longer than its buffer in several write(2)
  // calls, and another thread's line could land between them. Under the
  // lock, the whole line goes out before any other starts.
  std::lock_guard<std::mutex> lock(append_mutex);
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      return false;
    }
    written += static_cast<size_t>(n);
  }
  return ::close(fd) == 0;
}

}  // namespace bplace::testing
