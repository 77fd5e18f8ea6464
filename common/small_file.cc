#include "common/small_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "common/sys_error.h"
#include "common/unique_fd.h"

namespace bplace {
namespace {

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "directory";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  return "unknown type";
}

}  // namespace

Result<std::string> ReadSmallFile(const std::string& path, std::size_t limit_bytes,
                                  const SmallFileOptions& options) {
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  if (!options.follow_symlinks) flags |= O_NOFOLLOW;
  const UniqueFd fd(::open(path.c_str(), flags));
  if (!fd.Valid()) {
    const int err = errno;
    if (err == ELOOP && !options.follow_symlinks) {
      return Fail(ErrorCode::kInvalidArgument, path + ": is a symbolic link; name the file itself");
    }
    return SysError(path + ": open", err, ErrorCode::kNotFound);
  }
  struct stat info {};
  if (::fstat(fd.Get(), &info) != 0) return SysError(path + ": fstat", errno, ErrorCode::kNotFound);
  if (!S_ISREG(info.st_mode)) {
    return Fail(ErrorCode::kInvalidArgument,
                path + ": not a regular file (" + FileKind(info.st_mode) + ")");
  }
  if (options.check) {
    if (auto checked = options.check(info); !checked) return tl::unexpected(checked.error());
  }
  const std::string too_large = path + ": larger than " + std::to_string(limit_bytes) + " bytes";
  if (static_cast<std::uintmax_t>(info.st_size) > limit_bytes) {
    return Fail(ErrorCode::kInvalidArgument, too_large);
  }
  std::string text;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd.Get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SysError(path + ": read", errno, ErrorCode::kNotFound);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > limit_bytes) return Fail(ErrorCode::kInvalidArgument, too_large);
  }
  return text;
}

Result<void> WriteFileAtomically(const std::string& path, std::string_view text, mode_t mode) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&tmp](const char* call, int err) {
    ::unlink(tmp.c_str());
    return SysError(tmp + ": " + call, err, ErrorCode::kUnavailable);
  };
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd.Valid()) return SysError(tmp + ": open", errno, ErrorCode::kUnavailable);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.Get(), text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write", errno);
    }
    done += static_cast<std::size_t>(n);
  }
  // fsync before rename: after a crash the file is the old one or the new
  // one, never an empty one.
  if (::fsync(fd.Get()) != 0) return fail("fsync", errno);
  if (::close(fd.Release()) != 0) return fail("close", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename", errno);
  return {};
}

}  // namespace bplace
