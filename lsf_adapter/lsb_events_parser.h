#pragma once

// Parser of one record of LSF's batch event log, `lsb.events` (the file
// bhist reads, under LSB_SHAREDIR/<cluster>/logdir). Pure: no I/O, safe
// from any thread.
//
// Format (lsb.events(5), LSF 10.1 configuration reference; OpenLava 2's
// lsbatch/lib/lsb.events.c for the older layout): one record per line,
// fields separated by blanks. Strings are double-quoted, a quote inside
// doubled (`"a ""b"""`); numbers are bare. Every record starts with its type
// and the version of the daemon that wrote it, both quoted, and the event
// time (seconds since the epoch):
//   "JOB_NEW" "10.1" 1700000000 <fields of JOB_NEW>
// The first line of a file is "#<number>" (lsb.events: the offset of the
// first history event; lsb.events.N: the time of its newest event).
// LSF only appends fields between versions, so each record is read as a
// prefix and whatever follows is ignored. Fields the parser keeps are
// converted; the others it reads past are checked for presence and kind
// (number or string) only. Where LSF 7 and later differ from
// OpenLava's layout, the parser reads the record by its shape, not by
// position (see each record below).

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.h"

namespace bplace::lsf {

// JOB_STAT_* of lsbatch.h: a job's status in JOB_START, JOB_STATUS.
namespace job_stat {
inline constexpr int kPend = 0x01;
inline constexpr int kPsusp = 0x02;
inline constexpr int kRun = 0x04;
inline constexpr int kSsusp = 0x08;
inline constexpr int kUsusp = 0x10;
inline constexpr int kExit = 0x20;
inline constexpr int kDone = 0x40;
}  // namespace job_stat

// JOB_NEW: a job was submitted. Fields read: jobId, userId, options (and,
// LSF 7 and later, options2), numProcessors, submitTime, beginTime,
// termTime, sigValue, chkpntPeriod, restartPid, userName, rLimits (their
// number differs between versions: the run of numbers up to the next
// string), hostSpec, hostFactor, umask, queue.
struct JobNewRecord {
  std::int64_t job_id = 0;
  std::int64_t user_id = 0;
  std::string user;
  std::string queue;
  std::int64_t num_processors = 0;  // bsub -n (the minimum when min,max)
  std::int64_t submit_time = 0;
  std::int64_t begin_time = 0;  // bsub -b; 0 when not given
};

// JOB_START: a job was dispatched. Fields read: jobId, jStatus, jobPid,
// jobPGid, hostFactor, numExHosts, execHosts, queuePreCmd, queuePostCmd,
// jFlags, then (LSF 7 and later) userGroup, then idx.
struct JobStartRecord {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;  // idx; 0 outside job arrays
  int status = 0;                // job_stat::*
  std::vector<std::string> exec_hosts;
};

// JOB_STATUS: a job's status changed. Fields read: jobId, jStatus, reason,
// subreasons, cpuTime, endTime, ru and, when ru is not 0, the 19 lsfRusage
// numbers; then (LSF 7 and later: jFlags,) exitStatus, idx. Which layout
// is told by the version: LSF writes "<major>.<minor>" ("10.1"), the
// OpenLava family an integer ("20", "30"; jhlava "10").
struct JobStatusRecord {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;
  int status = 0;  // job_stat::*
  std::int64_t end_time = 0;
};

// JOB_SWITCH: a job was moved to another queue (bswitch). Fields: userId,
// jobId, queue, idx, userName.
struct JobSwitchRecord {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;
  std::string queue;  // the new queue
  std::string user;   // who switched it
};

// JOB_MOVE: a pending job's position in its queue was changed (btop,
// bbot). Fields: userId, jobId, position, base, idx, userName.
struct JobMoveRecord {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;
  std::int64_t position = 0;
  std::int64_t base = 0;  // TO_TOP 1, TO_BOTTOM 2 (lsbatch.h)
};

// JOB_FORCE: a job was started by force (brun). Fields: jobId, userId, idx,
// options, numExecHosts, execHosts, userName.
struct JobForceRecord {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;
  std::vector<std::string> exec_hosts;
  std::string user;
};

// JOB_CLEAN: mbatchd forgot a finished job. Fields: jobId, idx.
struct JobCleanRecord {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;
};

// A record of another type (MBD_START, QUEUE_CTRL, JOB_FINISH ...) or a
// "#..." line: recognised and skipped.
struct SkippedRecord {};

using LsbEventBody = std::variant<JobNewRecord, JobStartRecord, JobStatusRecord, JobSwitchRecord,
                                  JobMoveRecord, JobForceRecord, JobCleanRecord, SkippedRecord>;

struct LsbEvent {
  std::string type;     // "JOB_NEW", ...; empty for a "#" line
  std::string version;  // "10.1"
  std::int64_t event_time = 0;
  LsbEventBody body;
};

// Parses one line of lsb.events (without its newline). A "#..." line and a
// record of a type not listed above give SkippedRecord. Fails with
// kParseError on an empty line, an unterminated string, a missing or
// non-numeric field of a record it reads, naming the record type and the
// field ("JOB_START: numExHosts: expected a number, got '\"hostA\"'").
// Never throws.
Result<LsbEvent> ParseLsbEventsLine(std::string_view line);

}  // namespace bplace::lsf
