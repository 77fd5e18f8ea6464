#pragma once

#include <sys/types.h>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lsf_adapter/lsb_events_parser.h"

namespace bplace {

// What EventLogTail follows ([lsf] events_file, or
// LSB_SHAREDIR/<cluster>/logdir/lsb.events).
struct EventLogTailOptions {
  std::filesystem::path file;  // the live log, "lsb.events"; rotations are file + ".N"
  // The first Poll reads the live file from its start (the jobs it still
  // holds teach at once); false starts at its end (new records only).
  bool read_existing = true;
  // Bytes read per Poll at most: a backlog is worked off over several polls.
  std::size_t max_bytes_per_poll = 4 << 20;
  // lsb.events.1 .. .N are searched for the file being followed.
  int max_rotations = 32;
};

// What one Poll found.
struct EventLogBatch {
  std::vector<lsf::LsbEvent> events;  // in log order
  // One per corrupt or truncated record, "lsb.events.1 at byte 4096:
  // JOB_START: ...": the record is skipped, the tail goes on.
  std::vector<std::string> errors;
  // The log was switched (lsb.events -> lsb.events.1) since the last poll.
  bool rotated = false;
  // The file being followed disappeared before it was read to its end
  // (rotated past max_rotations, or removed): records were lost.
  bool lost = false;
  // The live file cannot be read now (missing, permission): a sentence.
  std::optional<std::string> unreadable;
};

// Follows LSF's batch event log across log switches. mbatchd appends one
// record per line to lsb.events; at a switch (lsb.params MAX_JOB_NUM) it
// renames lsb.events to lsb.events.1 (the older ones to .2, .3 ...) and
// starts a new lsb.events whose first line, "#<offset>", is where its new
// history starts: the records before it are copies of the unfinished jobs'
// records, already read from the old file (lsb.events(5)). The tail keeps
// the file it follows by inode and its offset, so a switch between two polls
// loses nothing: the rest of the old file is read from lsb.events.N first,
// then every newer rotation, then the new file from its history offset.
// A line not yet ended by a newline is left for the next poll (mbatchd may
// be writing it); in a rotated file, where nothing is written any more, it
// is a truncated record. Corrupt records are reported and skipped; nothing
// here throws or stops. Not thread-safe: one owner polls (the daemon's
// event-log timer).
class EventLogTail {
 public:
  explicit EventLogTail(EventLogTailOptions options);

  // Reads what was appended since the last poll, at most
  // options.max_bytes_per_poll bytes. Blocks on local file reads only.
  EventLogBatch Poll();

  // Bytes read so far over all files (for metrics and tests).
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  struct Followed {
    dev_t device = 0;
    ino_t inode = 0;
    std::uint64_t offset = 0;
  };

  bool Start(EventLogBatch& batch);
  // Reads complete lines of `path` from `followed_.offset` up to `end`
  // (budget permitting); `final` treats a last unterminated line as a
  // record (the file is no longer written). Returns true when it reached `end`.
  bool ReadLines(const std::filesystem::path& path, std::uint64_t end, bool final,
                 EventLogBatch& batch);
  bool DrainRotations(EventLogBatch& batch);
  void FollowLiveFromHistory(EventLogBatch& batch);

  EventLogTailOptions options_;
  std::optional<Followed> followed_;
  std::size_t budget_ = 0;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace bplace
