// JobStore: opening, the schema's migration, the sync level, and the
// submissions table. The tracked jobs and pruning are in job_store_jobs.cc;
// docs in job_store.h.

#include "daemon/state/job_store.h"

#include <cstddef>
#include <span>

#include "daemon/state/job_store_columns.h"
#include "daemon/state/job_store_schema.h"
#include "daemon/state/private_sqlite_file.h"

namespace bplace {

namespace {

constexpr const char* kFileName = "bplace.sqlite";
// Long enough to outlast an operator's sqlite3 shell reading the file or a
// checkpoint, short enough that a stuck lock surfaces as kUnavailable.
constexpr std::chrono::milliseconds kBusyTimeout{5000};

constexpr const char* kSubmissionColumns =
    "caller, idempotency_key, request_id, body_sha256, tag, labels, state, job_id, "
    "http_status, response_body, bsub_pid, created_at_ns, updated_at_ns";

std::optional<SubmissionState> StateFromName(std::string_view name) {
  for (const SubmissionState state : {SubmissionState::kPending, SubmissionState::kSubmitted,
                                      SubmissionState::kFailed, SubmissionState::kUnknown}) {
    if (name == SubmissionStateName(state)) return state;
  }
  return std::nullopt;
}

bool IsFinished(SubmissionState state) {
  return state == SubmissionState::kSubmitted || state == SubmissionState::kFailed;
}

bool IsSha256Hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<StoredSubmission> ReadSubmission(const SqliteStatement& row, const std::string& path) {
  StoredSubmission submission;
  submission.caller = row.Text(0);
  submission.idempotency_key = row.OptionalText(1);
  submission.request_id = row.Text(2);
  submission.body_sha256 = row.Text(3);
  submission.tag = row.Text(4);
  const std::string where = path + ": submission " + submission.tag;
  Result<std::map<std::string, std::string>> labels = LabelsFromJson(row.Text(5), where);
  if (!labels) return tl::unexpected(labels.error());
  submission.labels = std::move(*labels);
  const std::optional<SubmissionState> state = StateFromName(row.Text(6));
  if (!state) return Fail(ErrorCode::kInternal, where + ": unknown state " + row.Text(6));
  submission.state = *state;
  submission.job_id = row.OptionalInt(7);
  if (const auto status = row.OptionalInt(8)) submission.http_status = static_cast<int>(*status);
  submission.response_body = row.OptionalText(9);
  submission.bsub_pid = row.OptionalInt(10);
  submission.created_at = FromNanos(row.Int(11));
  submission.updated_at = FromNanos(row.Int(12));
  return submission;
}

Result<void> ValidateIntent(const SubmissionIntent& intent) {
  if (intent.caller.empty())
    return Fail(ErrorCode::kInvalidArgument, "submission without a caller");
  if (intent.request_id.empty())
    return Fail(ErrorCode::kInvalidArgument, "submission without a request_id");
  if (intent.tag.empty()) return Fail(ErrorCode::kInvalidArgument, "submission without a tag");
  if (intent.idempotency_key && intent.idempotency_key->empty()) {
    return Fail(ErrorCode::kInvalidArgument, "empty idempotency key (pass none instead)");
  }
  if (!IsSha256Hex(intent.body_sha256)) {
    return Fail(ErrorCode::kInvalidArgument, "body_sha256 is not 64 lowercase hex digits");
  }
  return {};
}

Result<void> ValidateOutcome(const SubmissionOutcome& outcome) {
  if (outcome.state == SubmissionState::kSubmitted) {
    if (!outcome.job_id || *outcome.job_id <= 0) {
      return Fail(ErrorCode::kInvalidArgument, "a submitted job needs a positive job id");
    }
  } else if (outcome.state == SubmissionState::kFailed) {
    if (outcome.job_id)
      return Fail(ErrorCode::kInvalidArgument, "a failed submission has no job id");
  } else {
    return Fail(ErrorCode::kInvalidArgument,
                std::string("a submission cannot finish as ") + SubmissionStateName(outcome.state));
  }
  if (outcome.http_status < 100 || outcome.http_status > 599) {
    return Fail(ErrorCode::kInvalidArgument,
                "http status " + std::to_string(outcome.http_status) + " is outside 100..599");
  }
  return {};
}

// The connection's settings that are the job store's own, not the file's.
Result<void> Configure(SqliteDb& db) {
  // The foreign key of job_labels deletes an element's labels with it.
  if (Result<void> keys = db.Exec("PRAGMA foreign_keys = ON", "enable foreign keys"); !keys)
    return keys;
  // 16 MiB of page cache instead of SQLite's 2 MiB: at 100k jobs the
  // upsert of one bjobs refresh (5000 active jobs) and ActiveJobs take
  // about half as long, since fewer index pages are re-read from the kernel.
  return db.Exec("PRAGMA cache_size = -16384", "set cache_size");
}

}  // namespace

const char* SubmissionStateName(SubmissionState state) {
  switch (state) {
    case SubmissionState::kPending:
      return "pending";
    case SubmissionState::kSubmitted:
      return "submitted";
    case SubmissionState::kFailed:
      return "failed";
    case SubmissionState::kUnknown:
      return "unknown";
  }
  return "unknown";
}

// --- Opening ----------------------------------------------------------------

Result<std::unique_ptr<JobStore>> JobStore::Open(const std::string& dir) {
  Result<SqliteDb> db = OpenPrivateSqliteFile(dir, kFileName, kBusyTimeout);
  if (!db) return tl::unexpected(db.error());
  if (Result<void> configured = Configure(*db); !configured) {
    return tl::unexpected(configured.error());
  }
  if (Result<void> intact = CheckIntegrity(*db); !intact) return tl::unexpected(intact.error());
  std::string path = db->path();
  std::unique_ptr<JobStore> store(new JobStore(std::move(*db), std::move(path)));
  std::lock_guard lock(store->mutex_);
  if (Result<void> migrated = store->Migrate(); !migrated) return tl::unexpected(migrated.error());
  return store;
}

Result<void> JobStore::Migrate() {
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kFull);
  if (!transaction) return tl::unexpected(transaction.error());
  // Read inside the write transaction: two processes opening one new file
  // at once must not both run step 1.
  if (Result<void> made = db_.Exec("CREATE TABLE IF NOT EXISTS schema_version ("
                                   " id INTEGER PRIMARY KEY CHECK (id = 1),"
                                   " version INTEGER NOT NULL)",
                                   "create schema_version");
      !made) {
    return made;
  }
  Result<SqliteStatement> read =
      db_.Prepare("SELECT version FROM schema_version", "read schema version");
  if (!read) return tl::unexpected(read.error());
  const Result<bool> row = read->Step();
  if (!row) return tl::unexpected(row.error());
  const std::int64_t version = *row ? read->Int(0) : 0;
  if (version > kSchemaVersion || version < 0) {
    return Fail(ErrorCode::kInternal, path_ + ": schema version " + std::to_string(version) +
                                          " is not one this bplace knows (up to " +
                                          std::to_string(kSchemaVersion) +
                                          "): written by a newer bplace?");
  }
  const std::span<const char* const> steps = JobStoreMigrations();
  for (std::int64_t step = version; step < kSchemaVersion; ++step) {
    const std::string purpose = "migrate schema to version " + std::to_string(step + 1);
    if (Result<void> done = db_.Exec(steps[static_cast<std::size_t>(step)], purpose); !done)
      return done;
  }
  Result<SqliteStatement> write = db_.Prepare(
      "INSERT INTO schema_version (id, version) VALUES (1, ?1)"
      " ON CONFLICT (id) DO UPDATE SET version = excluded.version",
      "write schema version");
  if (!write) return tl::unexpected(write.error());
  if (Result<void> written = write->Bind(1, std::int64_t{kSchemaVersion}).Run(); !written)
    return written;
  return transaction->Commit();
}

// synchronous=FULL for the submission rows: in WAL mode every commit then
// waits for fsync of the -wal file, so an intent is on the disk before bsub
// runs and survives a power loss, not only a kill -9 (which loses no
// committed transaction in any mode). bplace submits a few hundred jobs per
// minute at most; an fsync per intent and per outcome is the price of never
// losing one. synchronous=NORMAL for tracked jobs and pruning: they are
// re-derived from LSF at the next bjobs, and WAL with NORMAL stays
// consistent after a crash, it only forgets the last commits. The -wal file
// is appended in commit order, so the fsync of a FULL commit also makes
// every NORMAL commit before it durable: a power loss can only take NORMAL
// commits made after the last submission write.
Result<void> JobStore::UseSync(Sync sync) {
  if (sync_ == sync) return {};
  const char* sql =
      sync == Sync::kFull ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL";
  if (Result<void> set = db_.Exec(sql, "set synchronous"); !set) return set;
  sync_ = sync;
  return {};
}

Result<SqliteTransaction> JobStore::BeginWrite(Sync sync) {
  if (Result<void> set = UseSync(sync); !set) return tl::unexpected(set.error());
  return SqliteTransaction::BeginImmediate(db_);
}

// --- Submissions ------------------------------------------------------------

Result<std::vector<StoredSubmission>> JobStore::SelectSubmissions(
    std::string_view where_and_order, const std::vector<SqlValue>& params) {
  const std::string sql = std::string("SELECT ") + kSubmissionColumns + " FROM submissions " +
                          std::string(where_and_order);
  Result<SqliteStatement> select = db_.Prepare(sql, "read submissions");
  if (!select) return tl::unexpected(select.error());
  BindAll(*select, params);
  std::vector<StoredSubmission> rows;
  for (;;) {
    const Result<bool> row = select->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) return rows;
    Result<StoredSubmission> submission = ReadSubmission(*select, path_);
    if (!submission) return tl::unexpected(submission.error());
    rows.push_back(std::move(*submission));
  }
}

Result<std::optional<StoredSubmission>> JobStore::SelectSubmission(
    std::string_view where, const std::vector<SqlValue>& params) {
  Result<std::vector<StoredSubmission>> rows = SelectSubmissions(where, params);
  if (!rows) return tl::unexpected(rows.error());
  if (rows->empty()) return std::optional<StoredSubmission>();
  return std::optional<StoredSubmission>(std::move(rows->front()));
}

Result<BeginResult> JobStore::Begin(const SubmissionIntent& intent) {
  if (Result<void> valid = ValidateIntent(intent); !valid) return tl::unexpected(valid.error());
  std::lock_guard lock(mutex_);
  // One write transaction from look-up to insert: with the write lock held
  // no other thread or process can insert the same key in between.
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kFull);
  if (!transaction) return tl::unexpected(transaction.error());
  const Result<std::optional<StoredSubmission>> existing =
      intent.idempotency_key ? SelectSubmission("WHERE caller = ?1 AND idempotency_key = ?2",
                                                {intent.caller, *intent.idempotency_key})
                             : SelectSubmission("WHERE request_id = ?1", {intent.request_id});
  if (!existing) return tl::unexpected(existing.error());
  if (*existing) {
    // Nothing written: the transaction rolls back on return, without fsync.
    const StoredSubmission& row = **existing;
    BeginOutcome outcome = BeginOutcome::kBodyMismatch;
    if (row.body_sha256 == intent.body_sha256) {
      outcome = IsFinished(row.state) ? BeginOutcome::kReplay : BeginOutcome::kInProgress;
    }
    return BeginResult{outcome, row};
  }
  Result<BeginResult> inserted = InsertIntent(intent);
  if (!inserted) return inserted;
  if (Result<void> committed = transaction->Commit(); !committed) {
    return tl::unexpected(committed.error());
  }
  return inserted;
}

Result<BeginResult> JobStore::InsertIntent(const SubmissionIntent& intent) {
  const Result<std::optional<StoredSubmission>> clash =
      SelectSubmission("WHERE tag = ?1 OR request_id = ?2", {intent.tag, intent.request_id});
  if (!clash) return tl::unexpected(clash.error());
  if (*clash) {
    return Fail(ErrorCode::kConflict, "tag " + intent.tag + " or request id " + intent.request_id +
                                          " already belongs to submission " + (*clash)->tag);
  }
  Result<SqliteStatement> insert = db_.Prepare(
      "INSERT INTO submissions (caller, idempotency_key, request_id, body_sha256, tag, labels,"
      " state, created_at_ns, updated_at_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?7)",
      "insert submission");
  if (!insert) return tl::unexpected(insert.error());
  StoredSubmission row;
  row.caller = intent.caller;
  row.idempotency_key = intent.idempotency_key;
  row.request_id = intent.request_id;
  row.body_sha256 = intent.body_sha256;
  row.tag = intent.tag;
  row.labels = intent.labels;
  row.state = SubmissionState::kPending;
  // Read back through the same conversion as a stored row, so both compare equal.
  row.created_at = row.updated_at = FromNanos(ToNanos(intent.now));
  insert->Bind(1, std::string_view(row.caller))
      .Bind(2, row.idempotency_key)
      .Bind(3, std::string_view(row.request_id))
      .Bind(4, std::string_view(row.body_sha256))
      .Bind(5, std::string_view(row.tag))
      .Bind(6, std::string_view(LabelsToJson(row.labels)))
      .Bind(7, ToNanos(intent.now));
  if (Result<void> done = insert->Run(); !done) return tl::unexpected(done.error());
  return BeginResult{BeginOutcome::kNew, std::move(row)};
}

// Runs `change`, an UPDATE or DELETE of the row `tag` guarded by "state IN
// ('pending', 'unknown')"; when it changed nothing, tells why.
Result<void> JobStore::ChangeOpenRow(SqliteStatement& change, const std::string& tag,
                                     std::string_view what, bool unknown_is_done) {
  if (Result<void> set = UseSync(Sync::kFull); !set) return set;
  if (Result<void> done = change.Run(); !done) return done;
  if (db_.Changes() > 0) return {};
  const Result<std::optional<StoredSubmission>> row = SelectSubmission("WHERE tag = ?1", {tag});
  if (!row) return tl::unexpected(row.error());
  if (!*row) return Fail(ErrorCode::kNotFound, "no submission is tagged " + tag);
  if (unknown_is_done && (*row)->state == SubmissionState::kUnknown) return {};
  return Fail(ErrorCode::kConflict, "submission " + tag + " is " +
                                        SubmissionStateName((*row)->state) + ": cannot " +
                                        std::string(what));
}

Result<void> JobStore::SetBsubPid(const std::string& tag, std::int64_t pid) {
  if (pid <= 0)
    return Fail(ErrorCode::kInvalidArgument,
                "bsub pid " + std::to_string(pid) + " is not positive");
  std::lock_guard lock(mutex_);
  Result<SqliteStatement> update = db_.Prepare(
      "UPDATE submissions SET bsub_pid = ?1 WHERE tag = ?2 AND state IN ('pending', 'unknown')",
      "set bsub pid");
  if (!update) return tl::unexpected(update.error());
  update->Bind(1, pid).Bind(2, std::string_view(tag));
  return ChangeOpenRow(*update, tag, "record a bsub pid");
}

Result<void> JobStore::Finish(const std::string& tag, const SubmissionOutcome& outcome,
                              SystemTime now) {
  if (Result<void> valid = ValidateOutcome(outcome); !valid) return valid;
  std::lock_guard lock(mutex_);
  Result<SqliteStatement> update = db_.Prepare(
      "UPDATE submissions SET state = ?1, job_id = ?2, http_status = ?3, response_body = ?4,"
      " bsub_pid = NULL, updated_at_ns = ?5 WHERE tag = ?6 AND state IN ('pending', 'unknown')",
      "finish submission");
  if (!update) return tl::unexpected(update.error());
  update->Bind(1, std::string_view(SubmissionStateName(outcome.state)))
      .Bind(2, outcome.job_id)
      .Bind(3, std::int64_t{outcome.http_status})
      .Bind(4, std::string_view(outcome.response_body))
      .Bind(5, ToNanos(now))
      .Bind(6, std::string_view(tag));
  return ChangeOpenRow(*update, tag, "finish it again");
}

Result<void> JobStore::MarkUnknown(const std::string& tag, SystemTime now) {
  std::lock_guard lock(mutex_);
  Result<SqliteStatement> update = db_.Prepare(
      "UPDATE submissions SET state = 'unknown', updated_at_ns = ?1"
      " WHERE tag = ?2 AND state = 'pending'",
      "mark submission unknown");
  if (!update) return tl::unexpected(update.error());
  update->Bind(1, ToNanos(now)).Bind(2, std::string_view(tag));
  return ChangeOpenRow(*update, tag, "mark it unknown", /*unknown_is_done=*/true);
}

Result<std::vector<StoredSubmission>> JobStore::Unreconciled() {
  std::lock_guard lock(mutex_);
  return SelectSubmissions("WHERE state IN ('pending', 'unknown') ORDER BY created_at_ns, rowid",
                           {});
}

Result<void> JobStore::Release(const std::string& tag) {
  std::lock_guard lock(mutex_);
  Result<SqliteStatement> remove =
      db_.Prepare("DELETE FROM submissions WHERE tag = ?1 AND state IN ('pending', 'unknown')",
                  "release submission");
  if (!remove) return tl::unexpected(remove.error());
  remove->Bind(1, std::string_view(tag));
  return ChangeOpenRow(*remove, tag, "release it");
}

Result<std::optional<StoredSubmission>> JobStore::FindByTag(const std::string& tag) {
  std::lock_guard lock(mutex_);
  return SelectSubmission("WHERE tag = ?1", {tag});
}

Result<std::optional<StoredSubmission>> JobStore::FindByKey(const std::string& caller,
                                                            const std::string& key) {
  std::lock_guard lock(mutex_);
  return SelectSubmission("WHERE caller = ?1 AND idempotency_key = ?2", {caller, key});
}

}  // namespace bplace
