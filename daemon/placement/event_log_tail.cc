#include "daemon/placement/event_log_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <variant>

#include "common/unique_fd.h"

namespace bplace {
namespace {

// A record longer than this is taken for garbage: LSF's longest (JOB_NEW
// with a long command and environment) are tens of kilobytes.
constexpr std::size_t kMaxRecordBytes = 1 << 20;

struct FileInfo {
  dev_t device = 0;
  ino_t inode = 0;
  std::uint64_t size = 0;
};

std::optional<FileInfo> Stat(const std::filesystem::path& path, std::string* error = nullptr) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (error) *error = "cannot stat " + path.string() + ": " + std::strerror(errno);
    return std::nullopt;
  }
  return FileInfo{st.st_dev, st.st_ino, static_cast<std::uint64_t>(st.st_size)};
}

std::filesystem::path Rotation(const std::filesystem::path& file, int k) {
  return std::filesystem::path(file.string() + "." + std::to_string(k));
}

// Reads up to `length` bytes at `offset`; fewer at the end of the file.
bool ReadAt(int fd, std::uint64_t offset, std::size_t length, std::string& out) {
  out.resize(length);
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n =
        ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return true;
}

// The offset of a file's first new history record, from its "#<offset>"
// first line (lsb.events(5)); 0 when it has none.
std::uint64_t HistoryOffset(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::string head;
  if (!fd.Valid() || !ReadAt(fd.Get(), 0, 64, head) || head.empty() || head[0] != '#') return 0;
  const std::size_t digits = head.find_first_not_of(" \t", 1);
  std::uint64_t offset = 0;
  if (digits == std::string::npos) return 0;
  std::from_chars(head.data() + digits, head.data() + head.size(), offset);
  return offset;
}

// Parses one line into the batch: a record, or an error naming where.
void ParseInto(const std::filesystem::path& path, std::uint64_t offset, std::string_view line,
               EventLogBatch& batch) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  auto event = lsf::ParseLsbEventsLine(line);
  if (!event) {
    batch.errors.push_back(path.filename().string() + " at byte " + std::to_string(offset) + ": " +
                           event.error().message);
  } else if (!std::holds_alternative<lsf::SkippedRecord>(event->body)) {
    batch.events.push_back(std::move(*event));
  }
}

}  // namespace

EventLogTail::EventLogTail(EventLogTailOptions options) : options_(std::move(options)) {}

EventLogBatch EventLogTail::Poll() {
  EventLogBatch batch;
  budget_ = options_.max_bytes_per_poll;
  std::string problem;
  const auto live = Stat(options_.file, &problem);
  if (!live) {
    batch.unreadable = problem;
    // Between mbatchd's rename and its new file: the old one may still
    // have records to read.
    if (followed_) DrainRotations(batch);
    return batch;
  }
  if (!followed_) {
    followed_ = Followed{live->device, live->inode, options_.read_existing ? 0 : live->size};
  }
  if (followed_->device == live->device && followed_->inode == live->inode) {
    if (live->size < followed_->offset) {
      batch.errors.push_back(options_.file.string() +
                             " is shorter than what was read: reading it again from its start");
      followed_->offset = 0;
    }
    ReadLines(options_.file, live->size, /*final=*/false, batch);
    return batch;
  }
  batch.rotated = true;
  if (DrainRotations(batch)) FollowLiveFromHistory(batch);
  return batch;
}

bool EventLogTail::DrainRotations(EventLogBatch& batch) {
  for (;;) {
    int found = 0;
    std::optional<FileInfo> info;
    for (int k = 1; k <= options_.max_rotations && !found; ++k) {
      info = Stat(Rotation(options_.file, k));
      if (!info) break;
      if (info->device == followed_->device && info->inode == followed_->inode) found = k;
    }
    if (!found) {
      batch.lost = true;
      batch.errors.push_back("the event log being read is gone (rotated past " +
                             options_.file.string() + "." + std::to_string(options_.max_rotations) +
                             " or removed): its unread records are lost");
      return true;
    }
    const auto path = Rotation(options_.file, found);
    if (!ReadLines(path, info->size, /*final=*/true, batch)) return false;
    if (found == 1) return true;
    // The next newer log began as the live one: its history starts after
    // the records copied into it at the switch.
    const auto newer = Rotation(options_.file, found - 1);
    const auto newer_info = Stat(newer);
    if (!newer_info) return true;
    followed_ = Followed{newer_info->device, newer_info->inode, HistoryOffset(newer)};
  }
}

void EventLogTail::FollowLiveFromHistory(EventLogBatch& batch) {
  const auto live = Stat(options_.file);
  if (!live) return;
  followed_ = Followed{live->device, live->inode, HistoryOffset(options_.file)};
  ReadLines(options_.file, live->size, /*final=*/false, batch);
}

bool EventLogTail::ReadLines(const std::filesystem::path& path, std::uint64_t end, bool final,
                             EventLogBatch& batch) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  // Open, then check it is still the file followed: a switch may have
  // happened since the stat.
  if (!fd.Valid() || ::fstat(fd.Get(), &st) != 0 || st.st_ino != followed_->inode ||
      st.st_dev != followed_->device) {
    return false;
  }
  end = std::max<std::uint64_t>(end, static_cast<std::uint64_t>(st.st_size));
  std::string chunk;
  while (followed_->offset < end && budget_ > 0) {
    const std::size_t want = static_cast<std::size_t>(
        std::min<std::uint64_t>(end - followed_->offset, std::max(budget_, kMaxRecordBytes)));
    if (!ReadAt(fd.Get(), followed_->offset, want, chunk) || chunk.empty()) return false;
    const bool at_end = followed_->offset + chunk.size() >= end;
    std::size_t start = 0;
    for (std::size_t nl; (nl = chunk.find('\n', start)) != std::string::npos; start = nl + 1) {
      ParseInto(path, followed_->offset + start, std::string_view(chunk).substr(start, nl - start),
                batch);
    }
    if (start == 0 && !(at_end && final)) {
      if (at_end) break;  // a record still being written
      batch.errors.push_back(path.filename().string() + " at byte " +
                             std::to_string(followed_->offset) + ": no newline in " +
                             std::to_string(chunk.size()) + " bytes: skipped");
      start = chunk.size();
    } else if (at_end && final && start < chunk.size()) {
      ParseInto(path, followed_->offset + start, std::string_view(chunk).substr(start), batch);
      start = chunk.size();
    }
    followed_->offset += start;
    bytes_read_ += start;
    budget_ -= std::min(budget_, start);
    if (start < chunk.size() && at_end) break;  // the unended last line waits
  }
  return followed_->offset >= end;
}

}  // namespace bplace
