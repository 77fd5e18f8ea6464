#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace bplace {

// How ReadSmallFile opens its file.
struct SmallFileOptions {
  // Refuse a symbolic link as the last component (O_NOFOLLOW): for files
  // whose owner and mode are checked, so that whoever controls a link
  // cannot point the daemon at a file of their choosing.
  bool follow_symlinks = true;
  // Called with the open file's fstat before it is read; an error stops the
  // read and is returned as is. Checks here are on the file that is read.
  std::function<Result<void>(const struct stat&)> check;
};

// Reads a small regular file (a config, tokens or probe-state file) whole.
// Opens `path` with O_NONBLOCK (a FIFO given by mistake fails the check
// instead of blocking), checks on the open descriptor that it is a regular
// file of at most `limit_bytes`, runs options.check, then reads to end of
// file (the file may grow after fstat; one byte past the limit is an
// error). Blocks on the file system. Thread-safe.
// Errors, each message starting with `path`:
//   kNotFound          "PATH: open: No such file or directory" (any open or
//                      read failure, with the call and errno text)
//   kInvalidArgument   "PATH: is a symbolic link; name the file itself",
//                      "PATH: not a regular file (directory)" (or fifo,
//                      socket, character device, block device),
//                      "PATH: larger than N bytes"
// and whatever options.check returns.
Result<std::string> ReadSmallFile(const std::string& path, std::size_t limit_bytes,
                                  const SmallFileOptions& options = {});

// Replaces the file at `path` with `text` so that a reader sees the old
// file or the new one, never a part: writes PATH.tmp.<pid> with `mode`
// (less the umask), fsyncs it, renames it over `path`. Blocks on the file
// system. Errors: kUnavailable "PATH.tmp.<pid>: <call>: <errno text>" for
// the open, write, fsync, close or rename that failed; the temporary file
// is removed.
Result<void> WriteFileAtomically(const std::string& path, std::string_view text,
                                 mode_t mode = 0644);

}  // namespace bplace
