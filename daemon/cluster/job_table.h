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

// How many successful refreshes in a row must leave out a job that LSF
// listed before (or that bsub gave bplace) before bplace asks LSF about that
// job alone, to confirm that LSF no longer knows it. One odd answer (a bjobs
// that exits 0 without the ids it was asked, lists other jobs, or says "Job
// <N> is not found" for a live job) must never end the following of a job.
inline constexpr int kMissesBeforeConfirming = 3;

// A job, or one element of an array job, in the table.
struct JobKey {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;  // 0 when not an array element
  friend auto operator<=>(const JobKey&, const JobKey&) = default;
};

// What bplace told the submitter of a job about when it would start
// (the chosen candidate's expected_start, docs/api.md "GET /v1/placement"),
// kept with the job so that the realised wait can be compared with it.
struct StartPrediction {
  std::string method;  // WaitMethodName: "starts_now", "class_history", ...
  std::optional<std::int64_t> p50_s;
  std::optional<std::int64_t> bound_s;  // none: no time was promised
  double quantile = 0.0;
  double confidence = 0.0;
  std::int64_t samples = 0;
  // The queue's backlog share placement saw (BacklogShare: slots to free,
  // bplace's in-flight submissions included, over the capacity); none in
  // a record written before bplace kept it. What the job's wait is learned
  // behind (WaitObservation::backlog_at_submit).
  std::optional<double> backlog;

  friend bool operator==(const StartPrediction&, const StartPrediction&) = default;
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
  // When bplace saw the job start: the time of the first bjobs answer that
  // gave it a start time, and of the last one before it that listed it not
  // started (none: not listed before). LSF prints times to the minute; these
  // narrow the moment it started to a jobs interval (RealisedWait).
  std::optional<SystemTime> start_seen_at;
  std::optional<SystemTime> start_not_before;
  // Submitted through bplace: what its placement said about its start.
  std::optional<StartPrediction> predicted_start;
  // When bjobs last listed the job: the state above is LSF's as of then.
  std::optional<SystemTime> last_seen_in_lsf;
  // Successful refreshes in a row whose bjobs did not list the job (counted
  // up to kMissesBeforeConfirming), and the first of them; both reset when
  // bjobs lists it again.
  int misses = 0;
  std::optional<SystemTime> missing_since;
  // LSF no longer knows the job (CLEAN_PERIOD passed, or mbatchd lost it):
  // it was missing kMissesBeforeConfirming refreshes in a row, then a bjobs
  // of its id alone said "Job <N> is not found", at left_lsf_at. The last
  // state stays (as of last_seen_in_lsf). Unless it is terminal, the job is
  // still asked about: a job not seen to finish may only be hidden by a
  // faulty answer, and its row ends with its lifetime (WithoutOldJobs).
  bool left_lsf = false;
  std::optional<SystemTime> left_lsf_at;
  // A caller asked about an id LSF has never known: LSF said so of that id
  // (an ERROR record of the -json form, or a bjobs of the id alone). Such a
  // row answers the refresh that found it out and is dropped by the next
  // one (MergeBjobs); it is never written to the state store.
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
  // The jobs the next bjobs must ask about: every job not seen to finish
  // (not terminal), those that left LSF included, except ids LSF never
  // knew. Ids as bjobs takes them ("1234", "1234[7]").
  std::vector<std::string> IdsToAsk() const;
  // The jobs whose absence a bjobs of the id alone must confirm, oldest
  // missing first: not terminal, not concluded yet, and missing for
  // kMissesBeforeConfirming refreshes (a caller's lookup LSF never listed:
  // for one, since the table form of bjobs has no per-id answer).
  std::vector<std::string> IdsToConfirm() const;
  // Finished (EXIT) jobs whose exit code is not known and was not looked up
  // with `bjobs -l` yet: what the table form must ask about once.
  std::vector<std::string> IdsNeedingExitCode() const;
};

// The STAT of `job` as bjobs prints it: "PEND" for bplace's SUBMITTED (a
// job LSF accepted is PEND in LSF's vocabulary), else LSF's word.
std::string PrintedStatus(const JobView& job);

// The key of `record` (job_id must be digits: lsf::ParseJobId).
std::optional<JobKey> KeyOf(const lsf::JobRecord& record);

// The key of `id`, an id lsf::ParseJobId accepted (its digits fit).
JobKey KeyOf(const lsf::JobId& id);

// What one refresh of the jobs tier learnt: LSF's records for the ids
// asked (`asked`, as JobTable::IdsToAsk gave them; the records of the
// per-id bjobs of IdsToConfirm too), and the ids a per-id bjobs said LSF
// does not know (`confirmed_gone`), read at `now` in a cluster whose local
// time is `utc_offset_minutes` from UTC.
struct BjobsAnswer {
  std::vector<lsf::JobRecord> records;
  std::vector<std::string> asked;
  std::vector<std::string> confirmed_gone;
  SystemTime now{};
  int utc_offset_minutes = 0;
};

// The table after `answer` (pure):
//  - each record updates its job (times parsed with the year; terminal for
//    DONE/EXIT; misses and left_lsf cleared). The elements of an array job
//    asked for as "1234" replace the job's own row and inherit what bplace
//    knew of it (request, labels, tag);
//  - an asked job the answer does not list keeps its last state and counts
//    a miss; only a caller's lookup of an id LSF never listed, which the
//    answer names in an ERROR record ("Job <N> is not found"), becomes
//    not_found at once;
//  - a job of `confirmed_gone` the answer does not list becomes left_lsf
//    (not_found for a lookup LSF never listed);
//  - rows that were not_found before are dropped (they answered their
//    refresh); jobs not asked about are kept as they are.
std::shared_ptr<const JobTable> MergeBjobs(const JobTable& before, const BjobsAnswer& answer);

// The table with the exit codes (and exit reasons) `bjobs -l` gave for jobs
// of IdsNeedingExitCode; every job asked is marked exit_checked. Pure.
struct ExitCodes {
  std::vector<std::string> asked;
  std::map<JobKey, std::optional<int>> codes;
};
std::shared_ptr<const JobTable> WithExitCodes(const JobTable& before, const ExitCodes& exits);

// The table without the rows whose lifetime ended before `cutoff` (now
// minus the retention). Every row has one: a finished (terminal) job's
// starts at its last change, a job that left LSF's at left_lsf_at, a job
// missing from bjobs at missing_since, a lookup LSF never answered at
// submitted_at (when it was first asked), a not_found row's at its change.
// A job bjobs lists is never dropped. Pure.
std::shared_ptr<const JobTable> WithoutOldJobs(const JobTable& before, SystemTime cutoff);

// The table with `job` added or replaced (a job bplace just submitted, or
// an id a caller asked about). Pure.
std::shared_ptr<const JobTable> WithJob(const JobTable& before, JobKey key, JobView job);

// How far the state store may lag behind the table in when LSF last
// listed a job (last_seen_in_lsf, and the updated_at that moves with it):
// see StoreWriteFor.
inline constexpr std::chrono::minutes kStoredSeenPeriod{10};

// What the state store must get for the row of `key` when `after` (another
// object: the same pointer is the same row) replaced `before`:
//  - kRow: the whole row (ToTracked), when anything changed but
//    last_seen_in_lsf and updated_at, or LSF listed the job for the first
//    time;
//  - kSeen: only those two times (JobStore::MarkSeen), when LSF listed the
//    job again as it was (as at every refresh), once per kStoredSeenPeriod,
//    each row at its own phase of the period (by its key), so that the
//    writes of a refresh are few and spread evenly;
//  - kNothing otherwise. Pure.
enum class StoreWrite { kNothing, kSeen, kRow };
StoreWrite StoreWriteFor(const JobKey& key, const JobView& before, const JobView& after);

// The row of `view` for the state store, and back: what a restart needs to
// answer for the job as before. The whole view is kept as JSON in
// TrackedJob::lsf_record. FromTracked fails with kParseError on a record
// it cannot read (a damaged or foreign row).
TrackedJob ToTracked(const JobKey& key, const JobView& view);
Result<std::pair<JobKey, JobView>> FromTracked(const TrackedJob& row);

}  // namespace bplace
