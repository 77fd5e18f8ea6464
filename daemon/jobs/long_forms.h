#pragma once

// The jobs tier's copies of `bjobs -l` blocks, for the front door's `bjobs
// -l ID` (docs/lsf-front-door.md "bjobs -l"): LSF's own bytes, fetched by
// the tier in one `bjobs -a -l id...` per interval for the jobs callers ask
// about, and fetched again only when the job's state changes or the copy
// of an unfinished job grows old. Engines that poll `bjobs -l ID` once per
// job per check (Toil, Galaxy) then cost mbatchd a few `bjobs -l` per job
// in its life instead of one per check.

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "daemon/cluster/job_table.h"
#include "lsf_adapter/bjobs_long_parser.h"

namespace bplace {

// What bounds the copies. Defaults: a copy of an unfinished job serves for
// at most 30 jobs intervals (5 minutes at the 10 s default) so that its
// resource usage (MAX MEM, which Toil logs) is never older than that; jobs
// asked about in the last 10 minutes are fetched again when they change;
// at most 10,000 copies (about 1.5 KB each: 15 MB) and 200 ids per `bjobs
// -l`.
struct LongFormLimits {
  std::chrono::milliseconds max_age_unfinished{300000};
  std::chrono::milliseconds interest{600000};
  std::size_t max_copies = 10000;
  std::size_t max_ids_per_fetch = 200;
};

// The copies and who asked for them. The front door calls Find, then Ask
// for the ids it lacks; the jobs tier calls ToFetch when it builds a cycle
// and Store with that cycle's `bjobs -l` output. Thread-safe: every method
// takes one mutex and does no I/O.
class LongForms {
 public:
  explicit LongForms(LongFormLimits limits = {}) : limits_(limits) {}

  // The block of job `key` as LSF printed it, when the copy says `status`
  // (the jobs tier's current STAT of the job, "PEND" for bplace's
  // SUBMITTED) and, for an unfinished job, was fetched within
  // max_age_unfinished of `now`; else nullopt. Notes the interest.
  std::optional<std::string> Find(const JobKey& key, const std::string& status, SystemTime now);

  // Notes that callers want `keys` at `now`: the next cycles fetch them
  // until each has a current copy.
  void Ask(const std::vector<JobKey>& keys, SystemTime now);

  // The ids ("1234", "1234[7]") the cycle at `now` must give `bjobs -a -l`:
  // jobs asked about within `interest` whose copy is missing, says another
  // state than `table` does, or (unfinished) is older than
  // max_age_unfinished; at most max_ids_per_fetch, the longest-waiting
  // first. Jobs `table` does not hold are forgotten.
  std::vector<std::string> ToFetch(const JobTable& table, SystemTime now);

  // Keeps the blocks of a `bjobs -a -l` that started at `fetched_at`;
  // over max_copies, the copies asked about longest ago go first.
  void Store(std::vector<lsf::BjobsLongBlock> blocks, SystemTime fetched_at);

  std::size_t size() const;

 private:
  struct Entry {
    std::optional<std::string> text;  // the block; none until fetched
    std::string status;               // STAT in the block's header
    bool terminal = false;            // DONE or EXIT: never changes again
    SystemTime fetched_at{};
    SystemTime asked_at{};
  };
  bool Current(const Entry& entry, const std::string& status, SystemTime now) const;
  void Trim();

  const LongFormLimits limits_;
  mutable std::mutex mutex_;
  std::map<JobKey, Entry> entries_;
};

}  // namespace bplace
