#pragma once

#include <unistd.h>

#include <utility>

namespace bplace {

// Owns one file descriptor and closes it unless released. Movable, not
// copyable. Not thread-safe: one owner at a time.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(other.Release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(-1); }

  // The descriptor, or -1 when none is held.
  int Get() const { return fd_; }
  bool Valid() const { return fd_ >= 0; }
  // Gives up ownership: returns the descriptor (or -1) and holds none.
  int Release() { return std::exchange(fd_, -1); }
  // Closes the descriptor held (if any) and takes `fd` instead.
  void Reset(int fd) {
    // No retry on EINTR: on Linux the descriptor is gone whatever close says.
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace bplace
