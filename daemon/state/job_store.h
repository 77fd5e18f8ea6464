#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/state/job_store_schema.h"
#include "daemon/state/sqlite_db.h"

namespace bplace {

// Where a submission stands (docs/design.md "Submit", exactly once).
enum class SubmissionState {
  kPending,    // the intent is written; bsub has not answered (yet)
  kSubmitted,  // LSF took the job: job_id and the answer are stored
  kFailed,     // a definitive refusal: the answer is stored, no job exists
  kUnknown,    // bsub timed out or the daemon died: reconcile through LSF by tag
};

// Lowercase name ("pending", "submitted", "failed", "unknown"), as stored
// in the database and shown in logs.
const char* SubmissionStateName(SubmissionState state);

// What the API knows before bsub runs. `caller` is the authenticated user;
// `body_sha256` is the lowercase hex SHA-256 of the canonical request body
// and `tag` the unique job tag (`-Jd bplace:<tag>`), both computed by the
// caller. Without an idempotency key the submission is keyed by request_id.
struct SubmissionIntent {
  std::string caller;
  std::optional<std::string> idempotency_key;
  std::string request_id;
  std::string body_sha256;
  std::string tag;
  std::map<std::string, std::string> labels;
  SystemTime now{};
};

// One submission row as stored. `job_id` is set in kSubmitted (and possibly
// by reconciliation); `http_status` and `response_body` (the exact JSON
// answer to replay) are set in kSubmitted and kFailed; `bsub_pid` is the pid
// of the bsub child while one runs.
struct StoredSubmission {
  std::string caller;
  std::optional<std::string> idempotency_key;
  std::string request_id;
  std::string body_sha256;
  std::string tag;
  std::map<std::string, std::string> labels;
  SubmissionState state = SubmissionState::kPending;
  std::optional<std::int64_t> job_id;
  std::optional<int> http_status;
  std::optional<std::string> response_body;
  std::optional<std::int64_t> bsub_pid;
  SystemTime created_at{};
  SystemTime updated_at{};
};

// What Begin decided, and what the HTTP layer answers.
enum class BeginOutcome {
  kNew,           // the intent was written in kPending: run bsub
  kReplay,        // same key, same body, finished: answer the stored answer
  kInProgress,    // same key, same body, not finished: 409 with Retry-After
  kBodyMismatch,  // same key, another body: 422
};

struct BeginResult {
  BeginOutcome outcome = BeginOutcome::kNew;
  // kNew: the row just written; otherwise the row already there.
  StoredSubmission submission;
};

// How a bsub ended, for Finish. kSubmitted needs a job_id; kFailed has none.
// `http_status` (100..599) and `response_body` are the answer replayed to
// every retry with the same key.
struct SubmissionOutcome {
  SubmissionState state = SubmissionState::kSubmitted;
  std::optional<std::int64_t> job_id;
  int http_status = 0;
  std::string response_body;
};

// A job bplace tracks: one row per LSF job id and array index (0 when the
// job is not an array element). `lsf_record` is the last LSF record as
// opaque JSON text; `request_id`, `tag` and `labels` come from the
// submission and are absent for jobs bplace did not submit.
// `last_seen_in_lsf` is when bjobs last listed the job (never yet: nullopt).
// Job ids are LSF's numbers, kept as integers so that they sort as numbers
// (BsubReply's text job_id converts with std::from_chars).
struct TrackedJob {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;
  std::string user;
  std::string queue;
  std::string status;
  bool terminal = false;
  std::string lsf_record;
  std::optional<std::string> request_id;
  std::optional<std::string> tag;
  std::map<std::string, std::string> labels;
  SystemTime submitted_at{};
  SystemTime updated_at{};
  std::optional<SystemTime> last_seen_in_lsf;
};

// A stored job that bjobs listed again, unchanged: when (MarkSeen).
struct JobSeen {
  std::int64_t job_id = 0;
  std::int64_t array_index = 0;
  SystemTime last_seen_in_lsf{};
  SystemTime updated_at{};
};

// What ListJobs selects: jobs meeting every condition given. Empty fields
// select everything.
struct JobFilter {
  std::string user;                                          // "": every user
  std::set<std::string> statuses;                            // {}: every status
  std::optional<std::pair<std::string, std::string>> label;  // has label key = value
  std::optional<SystemTime> since;                           // submitted_at >= since
  int limit = 100;                                           // 1..1000
  std::string cursor;                                        // "": the first page
};

// One page of ListJobs, newest first. `next_cursor` is empty on the last page.
struct JobPage {
  std::vector<TrackedJob> jobs;
  std::string next_cursor;
};

// The daemon's durable state: submission intents and their outcomes (so a
// submission is exactly-once across retries and `kill -9`), and the jobs it
// tracks (so their last state outlives LSF's CLEAN_PERIOD). One SQLite file,
// <dir>/bplace.sqlite, in WAL mode.
//
// Every method BLOCKS on the disk (a submission write waits for fsync) and
// for the lock of other threads: call it from a worker thread, never from
// an io_context thread. Times are given by the caller (from its Clock); the
// store never reads a clock. Errors: kInvalidArgument for a bad argument,
// kNotFound for an unknown tag, kConflict for a transition the state does
// not allow, kUnavailable when the disk or a lock held elsewhere fails us
// (worth retrying), kInternal for a corrupt file or a bug; messages name the
// database file and carry SQLite's message.
// Thread-safe: one connection behind a mutex.
//
// Implemented in two files that share that connection, its mutex and its
// sync level: job_store.cc (opening, migration, sync, submissions) and
// job_store_jobs.cc (tracked jobs, ListJobs, Prune). The file checks are in
// private_sqlite_file.h, the schema in job_store_schema.h.
class JobStore {
 public:
  // Schema version this build writes; Open migrates older files to it.
  static constexpr int kSchemaVersion = kJobStoreSchemaVersion;

  // Opens (creating it mode 0600 when absent) <dir>/bplace.sqlite and
  // migrates its schema to kSchemaVersion. `dir` must exist, be a directory
  // owned by this process's user or root, and not be writable by group or
  // others (kInvalidArgument otherwise, naming the directory and its mode):
  // whoever may write there may replace the store. An existing file must be
  // a regular file (not a symlink) owned by this user and not group/other-
  // writable. A file that is not a SQLite database, a damaged one (every
  // page is read: about 150 ms per 100k jobs), or one written by a newer
  // bplace (schema version above kSchemaVersion) gives kInternal naming the
  // path; a filesystem without WAL support (NFS) gives kUnavailable. Blocks
  // on the disk.
  static Result<std::unique_ptr<JobStore>> Open(const std::string& dir);

  // The database file's path.
  const std::string& path() const { return path_; }

  // --- Submissions --------------------------------------------------------

  // Atomically looks up the submission of `intent` (by caller and
  // idempotency key when a key is given, else by request_id) and, when there
  // is none, writes it in kPending durably (fsync) before returning kNew:
  // only then may bsub run.
  // When there is one: the same body hash and state kSubmitted or kFailed
  // gives kReplay; the same body hash and kPending or kUnknown gives
  // kInProgress; another body hash gives kBodyMismatch; nothing is written
  // then. Never two kNew for one key, across threads and processes.
  // kInvalidArgument when caller, request_id or tag is empty, the key is
  // present but empty, or body_sha256 is not 64 lowercase hex digits;
  // kConflict when the tag or request_id already belongs to another row.
  Result<BeginResult> Begin(const SubmissionIntent& intent);

  // Records the pid of the bsub child of the kPending or kUnknown row `tag`,
  // so a restarted daemon can wait for it. kInvalidArgument for pid <= 0,
  // kNotFound for an unknown tag, kConflict when the row is finished.
  Result<void> SetBsubPid(const std::string& tag, std::int64_t pid);

  // Stores how the bsub of `tag` ended, durably, and clears its bsub_pid.
  // Allowed from kPending and kUnknown (reconciliation); a finished row is
  // never rewritten (kConflict), so every replay gives the same answer.
  // kInvalidArgument when outcome.state is not kSubmitted or kFailed, when
  // kSubmitted has no positive job_id or kFailed has one, or when
  // http_status is outside 100..599; kNotFound for an unknown tag.
  Result<void> Finish(const std::string& tag, const SubmissionOutcome& outcome, SystemTime now);

  // bsub of `tag` timed out (or its outcome is otherwise lost): kPending
  // becomes kUnknown, to reconcile through LSF by tag. Keeps bsub_pid. A row
  // already kUnknown is left as it is (success). kNotFound for an unknown
  // tag; kConflict when the row is finished.
  Result<void> MarkUnknown(const std::string& tag, SystemTime now);

  // The kPending and kUnknown rows, oldest (created_at) first: what a
  // restarted daemon must reconcile. At run time this also returns the
  // submissions whose bsub is running now.
  Result<std::vector<StoredSubmission>> Unreconciled();

  // Deletes the kPending or kUnknown row `tag`, for an intent LSF provably
  // never got, so that the same key may be tried again (the next Begin gives
  // kNew). kNotFound for an unknown tag; kConflict when the row is finished
  // (a stored answer goes only by Prune).
  Result<void> Release(const std::string& tag);

  // The submission tagged `tag`, or nullopt.
  Result<std::optional<StoredSubmission>> FindByTag(const std::string& tag);
  // The submission of `caller` with idempotency key `key`, or nullopt.
  Result<std::optional<StoredSubmission>> FindByKey(const std::string& caller,
                                                    const std::string& key);

  // --- Tracked jobs -------------------------------------------------------

  // Inserts or updates `jobs` in one transaction (all or none). For a job
  // already stored, the LSF fields (user, queue, status, terminal,
  // lsf_record, updated_at) take the given values; request_id, tag and
  // last_seen_in_lsf keep theirs when the given one is nullopt, and labels
  // when the given map is empty (a refresh from bjobs knows none of them);
  // submitted_at is set by the first insert and never changes, so a job
  // never moves in ListJobs' order. Written without fsync (see UseSync in
  // job_store.cc): after a power loss the latest upserts may be lost, never
  // a submission. Holds the store for the whole batch (some 50 us per job):
  // keep batches to a few thousand jobs. kInvalidArgument when a job_id is
  // not positive or an array_index is negative (nothing is written then).
  Result<void> UpsertJobs(const std::vector<TrackedJob>& jobs);

  // Sets last_seen_in_lsf and updated_at of the stored rows of `seen` and
  // nothing else, in one transaction (all or none): far cheaper than
  // UpsertJobs for jobs whose record did not change. A job not stored is
  // skipped. Written without fsync, as UpsertJobs.
  Result<void> MarkSeen(const std::vector<JobSeen>& seen);

  // Deletes the jobs `keys` (job id, array index) and their labels in one
  // transaction (all or none), and returns how many were stored: the rows
  // the jobs tier stopped following (their lifetime ended, or an array job's
  // own row gave way to its elements). Unknown keys are no error. Written
  // without fsync, as UpsertJobs.
  Result<std::size_t> DeleteJobs(const std::vector<std::pair<std::int64_t, std::int64_t>>& keys);

  // The jobs not terminal, by job id and index: what the next bjobs asks about.
  Result<std::vector<TrackedJob>> ActiveJobs();

  // The job `job_id`, element `array_index` (0: not an array element), or nullopt.
  Result<std::optional<TrackedJob>> FindJob(std::int64_t job_id, std::int64_t array_index);
  // Every row of `job_id` (all elements of an array job), by index; empty
  // when none is stored.
  Result<std::vector<TrackedJob>> FindArrayJob(std::int64_t job_id);

  // One page of the jobs `filter` selects, newest first (submitted_at, then
  // job_id, then array_index, all descending). The cursor is opaque: pass
  // back next_cursor for the next page. Pages are keyset-based, so jobs
  // inserted between two calls never shift or repeat rows (newer ones are
  // simply not on later pages). kInvalidArgument for a limit outside
  // 1..1000 or a cursor this store did not make.
  Result<JobPage> ListJobs(const JobFilter& filter);

  // Retention: deletes the terminal jobs and the finished (kSubmitted,
  // kFailed) submissions last updated before `older_than`, and returns how
  // many rows went. Deletes up to kPruneBatch rows per transaction and lets other
  // calls in between, so it never holds the store for long; after a failure
  // the batches before it stay deleted. An idempotency key whose submission
  // was pruned is new again: keep retention well above any client's retry
  // horizon.
  Result<std::size_t> Prune(SystemTime older_than);
  static constexpr std::size_t kPruneBatch = 1000;

 private:
  enum class Sync { kFull, kNormal };
  using SqlValue = std::variant<std::int64_t, std::string>;

  JobStore(SqliteDb db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}

  // All of these expect mutex_ held.
  Result<void> Migrate();
  Result<void> UseSync(Sync sync);
  Result<SqliteTransaction> BeginWrite(Sync sync);
  Result<std::vector<StoredSubmission>> SelectSubmissions(std::string_view where_and_order,
                                                          const std::vector<SqlValue>& params);
  Result<std::optional<StoredSubmission>> SelectSubmission(std::string_view where,
                                                           const std::vector<SqlValue>& params);
  Result<BeginResult> InsertIntent(const SubmissionIntent& intent);
  Result<void> ChangeOpenRow(SqliteStatement& change, const std::string& tag, std::string_view what,
                             bool unknown_is_done = false);
  Result<std::size_t> PruneBatch(const char* sql, SystemTime older_than);
  Result<std::vector<TrackedJob>> SelectJobs(std::string_view from_where_order,
                                             const std::vector<SqlValue>& params);

  std::mutex mutex_;  // guards db_ and sync_
  SqliteDb db_;
  std::optional<Sync> sync_;
  const std::string path_;
};

}  // namespace bplace
