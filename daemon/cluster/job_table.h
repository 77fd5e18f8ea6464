#pragma once

// What bplace knows about the jobs it follows (docs/design.md "Jobs"): every
// job it submitted and every job id a caller asked about, each with its last
// state as bjobs reported it. Immutable once published; pure functions.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/state/job_store.h"
#include "lsf_adapter/job_record.h"

namespace bplace {

// "SUBMITTED": bplace submitted the job (bsub said so) and bjobs has not
// shown it yet; LSF may not list a job for a moment after accepting it.
inline constexpr char kSubmittedStatus[] = "SUBMITTED";

// A job, or one element of an array job, in the table.
struct JobKey {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;  // 0 when not an array element
  friend auto operator<=>(const JobKey&, const JobKey&) = default;
};

// One followed job. `lsf` is LSF's last word on it (status "SUBMITTED"
// until bjobs has shown it); the rest is what bplace adds.
struct JobView {
  lsf::JobRecord lsf;
  // LSF's times, with the year (LSF prints none; lsf::ParseLsfTime).
  std::optional<SystemTime> submit_time;
  std::optional<SystemTime> start_time;
  std::optional<SystemTime> finish_time;
  bool terminal = false;  // DONE or EXIT: never asked about again
  // Submitted through bplace: the request, its tag (-Jd bplace:<tag>), the
  // client's idempotency key, the labels, and the queue bplace asked for.
  bool submitted_by_bplace = false;
  std::string request_id;
  std::string tag;
  std::string idempotency_key;
  std::map<std::string, std::string> labels;
  std::string requested_queue;
  std::optional<SystemTime> submitted_at;  // when bplace got the job id (or first asked)
  std::optional<SystemTime> last_seen_in_lsf;
  // bjobs no longer lists a job it showed before (CLEAN_PERIOD passed, or
  // mbatchd restarted without it): the last state stays.
  bool left_lsf = false;
  // A caller asked about an id LSF has never known.
  bool not_found = false;
  // The table form of bjobs has no exit code: it was looked up once with
  // `bjobs -l` (exit_code stays unset if LSF printed none).
  bool exit_checked = false;
  SystemTime updated_at{};
};

// Every followed job, by key. Values are shared between successive tables:
// a refresh copies pointers, not jobs.
struct JobTable {
  std::map<JobKey, std::shared_ptr<const JobView>> jobs;

  // The job, or null.
  const JobView* Find(const JobKey& key) const;
  // Every element of array job `job_id` (array_index > 0), in index order.
  std::vector<const JobView*> Elements(std::int64_t job_id) const;
  // The jobs the next bjobs must ask about: not terminal and not "never
  // known to LSF". Ids as bjobs takes them ("1234", "1234[7]").
  std::vector<std::string> IdsToAsk() const;
  // Finished (EXIT) jobs whose exit code is not known and was not looked up
  // with `bjobs -l` yet: what the table form must ask about once.
  std::vector<std::string> IdsNeedingExitCode() const;
};

// The key of `record` (job_id must be digits: lsf::ParseJobId).
std::optional<JobKey> KeyOf(const lsf::JobRecord& record);

// What one refresh of the jobs tier learnt: LSF's records for the ids
// asked (`asked`, as JobTable::IdsToAsk gave them), read at `now` in a
// cluster whose local time is `utc_offset_minutes` from UTC.
struct BjobsAnswer {
  std::vector<lsf::JobRecord> records;
  std::vector<std::string> asked;
  SystemTime now{};
  int utc_offset_minutes = 0;
};

// The table after `answer` (pure):
//  - each record updates its job (times parsed with the year; terminal for
//    DONE/EXIT). The elements of an array job asked for as "1234" replace
//    the job's own row and inherit what bplace knew of it (request,
//    labels, tag);
//  - an asked job LSF no longer knows keeps its last state: left_lsf when
//    bjobs showed it before; still SUBMITTED when bplace submitted it and
//    bjobs has not shown it yet; not_found when a caller asked about an id
//    LSF never knew;
//  - jobs not asked about are kept as they are.
std::shared_ptr<const JobTable> MergeBjobs(const JobTable& before, const BjobsAnswer& answer);

// The table with the exit codes (and exit reasons) `bjobs -l` gave for jobs
// of IdsNeedingExitCode; every job asked is marked exit_checked. Pure.
struct ExitCodes {
  std::vector<std::string> asked;
  std::map<JobKey, std::optional<int>> codes;
};
std::shared_ptr<const JobTable> WithExitCodes(const JobTable& before, const ExitCodes& exits);

// The table without the finished jobs (terminal, left LSF, or never known
// to it) whose last change is before `cutoff` (retention). Pure.
std::shared_ptr<const JobTable> WithoutOldJobs(const JobTable& before, SystemTime cutoff);

// The table with `job` added or replaced (a job bplace just submitted, or
// an id a caller asked about). Pure.
std::shared_ptr<const JobTable> WithJob(const JobTable& before, JobKey key, JobView job);

// The row of `view` for the state store, and back: what a restart needs to
// answer for the job as before. The whole view is kept as JSON in
// TrackedJob::lsf_record. FromTracked fails with kParseError on a record
// it cannot read (a damaged or foreign row).
TrackedJob ToTracked(const JobKey& key, const JobView& view);
Result<std::pair<JobKey, JobView>> FromTracked(const TrackedJob& row);

}  // namespace bplace
