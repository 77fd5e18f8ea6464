#include "daemon/state/job_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/sys_error.h"
#include "common/unique_fd.h"

namespace bplace {

namespace {

constexpr const char* kFileName = "bplace.sqlite";
// Long enough to outlast an operator's sqlite3 shell reading the file or a
// checkpoint, short enough that a stuck lock surfaces as kUnavailable.
constexpr std::chrono::milliseconds kBusyTimeout{5000};
constexpr int kMaxPageSize = 1000;

// Schema steps: kMigrations[i] takes a file from version i to version i+1,
// in one transaction with the version bump. A future version appends a step;
// a step already released is never edited.
//
// Times are integer nanoseconds since the Unix epoch (columns *_ns), exact
// round trips of SystemTime. job_labels repeats its job's submitted_at_ns,
// which never changes, so that the label index hands out rows in ListJobs'
// order and a page stops after `limit` rows instead of sorting every match.
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE submissions (
  caller          TEXT    NOT NULL,
  idempotency_key TEXT,
  request_id      TEXT    NOT NULL UNIQUE,
  body_sha256     TEXT    NOT NULL,
  tag             TEXT    NOT NULL UNIQUE,
  labels          TEXT    NOT NULL DEFAULT '{}',
  state           TEXT    NOT NULL
                  CHECK (state IN ('pending', 'submitted', 'failed', 'unknown')),
  job_id          INTEGER,
  http_status     INTEGER,
  response_body   TEXT,
  bsub_pid        INTEGER,
  created_at_ns   INTEGER NOT NULL,
  updated_at_ns   INTEGER NOT NULL,
  UNIQUE (caller, idempotency_key)
);
CREATE INDEX submissions_open ON submissions (created_at_ns)
  WHERE state IN ('pending', 'unknown');
CREATE INDEX submissions_finished ON submissions (updated_at_ns)
  WHERE state IN ('submitted', 'failed');

CREATE TABLE tracked_jobs (
  job_id              INTEGER NOT NULL CHECK (job_id > 0),
  array_index         INTEGER NOT NULL CHECK (array_index >= 0),
  user                TEXT    NOT NULL,
  queue               TEXT    NOT NULL,
  status              TEXT    NOT NULL,
  terminal            INTEGER NOT NULL CHECK (terminal IN (0, 1)),
  lsf_record          TEXT    NOT NULL,
  request_id          TEXT,
  tag                 TEXT,
  labels              TEXT    NOT NULL DEFAULT '{}',
  submitted_at_ns     INTEGER NOT NULL,
  updated_at_ns       INTEGER NOT NULL,
  last_seen_in_lsf_ns INTEGER,
  PRIMARY KEY (job_id, array_index)
);
CREATE INDEX tracked_jobs_newest ON tracked_jobs (submitted_at_ns, job_id, array_index);
CREATE INDEX tracked_jobs_by_user ON tracked_jobs (user, submitted_at_ns, job_id, array_index);
CREATE INDEX tracked_jobs_active ON tracked_jobs (job_id, array_index) WHERE terminal = 0;
CREATE INDEX tracked_jobs_prunable ON tracked_jobs (updated_at_ns) WHERE terminal = 1;

CREATE TABLE job_labels (
  job_id          INTEGER NOT NULL,
  array_index     INTEGER NOT NULL,
  label_key       TEXT    NOT NULL,
  label_value     TEXT    NOT NULL,
  submitted_at_ns INTEGER NOT NULL,
  PRIMARY KEY (job_id, array_index, label_key),
  FOREIGN KEY (job_id, array_index) REFERENCES tracked_jobs (job_id, array_index)
    ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX job_labels_by_label
  ON job_labels (label_key, label_value, submitted_at_ns, job_id, array_index);
)sql",
};
static_assert(std::size(kMigrations) == JobStore::kSchemaVersion,
              "one migration step per schema version");

constexpr const char* kSubmissionColumns =
    "caller, idempotency_key, request_id, body_sha256, tag, labels, state, job_id, "
    "http_status, response_body, bsub_pid, created_at_ns, updated_at_ns";
constexpr const char* kJobColumns =
    "j.job_id, j.array_index, j.user, j.queue, j.status, j.terminal, j.lsf_record, "
    "j.request_id, j.tag, j.labels, j.submitted_at_ns, j.updated_at_ns, j.last_seen_in_lsf_ns";

std::int64_t ToNanos(SystemTime time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

SystemTime FromNanos(std::int64_t nanos) {
  return SystemTime(
      std::chrono::duration_cast<SystemTime::duration>(std::chrono::nanoseconds(nanos)));
}

std::optional<SystemTime> FromNanos(const std::optional<std::int64_t>& nanos) {
  if (!nanos) return std::nullopt;
  return FromNanos(*nanos);
}

std::string ModeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string LabelsToJson(const std::map<std::string, std::string>& labels) {
  // std::map: keys sorted, so equal maps give equal text. `replace` rather
  // than an exception for bytes that are not UTF-8 (the API's JSON decoder
  // lets none through).
  return nlohmann::json(labels).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::map<std::string, std::string>> LabelsFromJson(const std::string& text,
                                                          const std::string& where) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_object())
    return Fail(ErrorCode::kInternal, where + ": labels are not a JSON object");
  std::map<std::string, std::string> labels;
  for (const auto& [key, value] : parsed.items()) {
    if (!value.is_string())
      return Fail(ErrorCode::kInternal, where + ": label " + key + " is not a string");
    labels.emplace(key, value.get<std::string>());
  }
  return labels;
}

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

// Whoever may write the directory may replace or delete the database and
// its -wal file, i.e. forge submissions: refuse a shared directory.
Result<void> CheckDirectory(const std::string& dir) {
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT) {
      return Fail(ErrorCode::kInvalidArgument, "bplace state directory " + dir + " does not exist");
    }
    return SysError("stat " + dir, error, ErrorCode::kInvalidArgument);
  }
  if (!S_ISDIR(info.st_mode)) {
    return Fail(ErrorCode::kInvalidArgument,
                "bplace state directory " + dir + " is not a directory");
  }
  if (info.st_uid != ::geteuid() && info.st_uid != 0) {
    return Fail(ErrorCode::kInvalidArgument, "bplace state directory " + dir + " is owned by uid " +
                                                 std::to_string(info.st_uid) +
                                                 ": it must belong to uid " +
                                                 std::to_string(::geteuid()) + " or root");
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "bplace state directory " + dir + " is writable by group or others (mode " +
                    ModeText(info.st_mode) + "): run chmod go-w " + dir);
  }
  return {};
}

Result<void> CheckExistingFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ELOOP) return Fail(ErrorCode::kInvalidArgument, path + " is a symbolic link");
    return SysError("open " + path, error, ErrorCode::kUnavailable);
  }
  const UniqueFd owned(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) return SysError("fstat " + path, errno, ErrorCode::kUnavailable);
  if (!S_ISREG(info.st_mode))
    return Fail(ErrorCode::kInvalidArgument, path + " is not a regular file");
  if (info.st_uid != ::geteuid()) {
    return Fail(ErrorCode::kInvalidArgument, path + " is owned by uid " +
                                                 std::to_string(info.st_uid) + ", not " +
                                                 std::to_string(::geteuid()));
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return Fail(ErrorCode::kInvalidArgument, path + " is writable by group or others (mode " +
                                                 ModeText(info.st_mode) + "): run chmod 600 " +
                                                 path);
  }
  return {};
}

// Creates the file mode 0600 ourselves: SQLite would create it 0644 (less
// the umask). SQLite gives its -wal and -shm files the mode and owner of the
// database file, so they are private too.
Result<void> CreateOrCheckFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    if (error == EEXIST) return CheckExistingFile(path);
    return SysError("create " + path, error, ErrorCode::kUnavailable);
  }
  const UniqueFd owned(fd);
  // The umask may have taken the owner's write bit: set the mode exactly.
  if (::fchmod(fd, 0600) != 0) return SysError("fchmod " + path, errno, ErrorCode::kUnavailable);
  return {};
}

// WAL: readers never block the writer and a commit is one append to the
// -wal file. It needs shared memory, which network filesystems do not
// offer; SQLite then silently keeps the rollback journal, so check.
Result<void> Configure(SqliteDb& db, const std::string& dir) {
  Result<SqliteStatement> wal = db.Prepare("PRAGMA journal_mode = WAL", "set journal_mode");
  if (!wal) return tl::unexpected(wal.error());
  const Result<bool> row = wal->Step();
  if (!row) return tl::unexpected(row.error());
  const std::string mode = *row ? wal->Text(0) : "";
  if (mode != "wal") {
    return Fail(ErrorCode::kUnavailable, db.path() +
                                             ": SQLite refused WAL mode (journal_mode is '" + mode +
                                             "'): is " + dir + " on a network filesystem?");
  }
  // The foreign key of job_labels deletes an element's labels with it.
  if (Result<void> keys = db.Exec("PRAGMA foreign_keys = ON", "enable foreign keys"); !keys)
    return keys;
  // 16 MiB of page cache instead of SQLite's 2 MiB: at 100k jobs the
  // upsert of one bjobs refresh (5000 active jobs) and ActiveJobs take
  // about half as long, since fewer index pages are re-read from the kernel.
  return db.Exec("PRAGMA cache_size = -16384", "set cache_size");
}

// PRAGMA quick_check reads every page (about 150 ms for 100k jobs, 57 MB):
// a damaged file stops the start with its path named, instead of failing
// some later request. It is quick_check rather than integrity_check, which
// also matches every index entry against its row and takes several times
// as long.
Result<void> CheckIntegrity(SqliteDb& db) {
  Result<SqliteStatement> check = db.Prepare("PRAGMA quick_check(1)", "check integrity");
  if (!check) return tl::unexpected(check.error());
  const Result<bool> row = check->Step();
  if (!row) return tl::unexpected(row.error());
  std::string verdict = *row ? check->Text(0) : "no answer";
  if (verdict == "ok") return {};
  std::replace(verdict.begin(), verdict.end(), '\n', ' ');
  return Fail(ErrorCode::kInternal, db.path() + ": the database is damaged (" + verdict +
                                        "): restore it from a backup or move it aside");
}

void BindAll(SqliteStatement& statement,
             const std::vector<std::variant<std::int64_t, std::string>>& params) {
  int index = 1;
  for (const auto& param : params) {
    if (const auto* number = std::get_if<std::int64_t>(&param)) {
      statement.Bind(index++, *number);
    } else {
      statement.Bind(index++, std::string_view(std::get<std::string>(param)));
    }
  }
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

Result<TrackedJob> ReadJob(const SqliteStatement& row, const std::string& path) {
  TrackedJob job;
  job.job_id = row.Int(0);
  job.array_index = row.Int(1);
  job.user = row.Text(2);
  job.queue = row.Text(3);
  job.status = row.Text(4);
  job.terminal = row.Int(5) != 0;
  job.lsf_record = row.Text(6);
  job.request_id = row.OptionalText(7);
  job.tag = row.OptionalText(8);
  const std::string where =
      path + ": job " + std::to_string(job.job_id) + "[" + std::to_string(job.array_index) + "]";
  Result<std::map<std::string, std::string>> labels = LabelsFromJson(row.Text(9), where);
  if (!labels) return tl::unexpected(labels.error());
  job.labels = std::move(*labels);
  job.submitted_at = FromNanos(row.Int(10));
  job.updated_at = FromNanos(row.Int(11));
  job.last_seen_in_lsf = FromNanos(row.OptionalInt(12));
  return job;
}

// The cursor is "c1.<submitted_at_ns>.<job_id>.<array_index>" of the last
// row of a page: URL-safe as it is, versioned so that its form may change.
std::string MakeCursor(const TrackedJob& job) {
  return "c1." + std::to_string(ToNanos(job.submitted_at)) + "." + std::to_string(job.job_id) +
         "." + std::to_string(job.array_index);
}

std::optional<std::array<std::int64_t, 3>> ParseCursor(std::string_view cursor) {
  if (!cursor.starts_with("c1.")) return std::nullopt;
  cursor.remove_prefix(3);
  std::array<std::int64_t, 3> parts{};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const char* end = cursor.data() + cursor.size();
    const auto [next, error] = std::from_chars(cursor.data(), end, parts[i]);
    if (error != std::errc() || next == cursor.data()) return std::nullopt;
    cursor.remove_prefix(static_cast<std::size_t>(next - cursor.data()));
    const bool last = i + 1 == parts.size();
    if (last) return cursor.empty() ? std::optional(parts) : std::nullopt;
    if (!cursor.starts_with('.')) return std::nullopt;
    cursor.remove_prefix(1);
  }
  return std::nullopt;
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

// The statements of UpsertJobs, compiled once per call rather than per job.
struct JobWriter {
  SqliteStatement upsert;
  SqliteStatement delete_labels;
  SqliteStatement insert_label;
};

Result<JobWriter> PrepareJobWriter(SqliteDb& db) {
  Result<SqliteStatement> upsert = db.Prepare(
      "INSERT INTO tracked_jobs (job_id, array_index, user, queue, status, terminal, lsf_record,"
      " request_id, tag, labels, submitted_at_ns, updated_at_ns, last_seen_in_lsf_ns)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
      " ON CONFLICT (job_id, array_index) DO UPDATE SET"
      " user = excluded.user, queue = excluded.queue, status = excluded.status,"
      " terminal = excluded.terminal, lsf_record = excluded.lsf_record,"
      " request_id = COALESCE(excluded.request_id, request_id),"
      " tag = COALESCE(excluded.tag, tag),"
      " labels = CASE WHEN excluded.labels = '{}' THEN labels ELSE excluded.labels END,"
      " updated_at_ns = excluded.updated_at_ns,"
      " last_seen_in_lsf_ns = COALESCE(excluded.last_seen_in_lsf_ns, last_seen_in_lsf_ns)",
      "upsert job");
  if (!upsert) return tl::unexpected(upsert.error());
  Result<SqliteStatement> delete_labels = db.Prepare(
      "DELETE FROM job_labels WHERE job_id = ?1 AND array_index = ?2", "delete job labels");
  if (!delete_labels) return tl::unexpected(delete_labels.error());
  // The job's own submitted_at (the first insert's), not the one given now.
  Result<SqliteStatement> insert_label = db.Prepare(
      "INSERT INTO job_labels (job_id, array_index, label_key, label_value, submitted_at_ns)"
      " SELECT job_id, array_index, ?3, ?4, submitted_at_ns FROM tracked_jobs"
      " WHERE job_id = ?1 AND array_index = ?2",
      "insert job label");
  if (!insert_label) return tl::unexpected(insert_label.error());
  return JobWriter{std::move(*upsert), std::move(*delete_labels), std::move(*insert_label)};
}

// Rewrites the job_labels rows of `job` from its labels.
Result<void> WriteLabels(JobWriter& writer, const TrackedJob& job) {
  writer.delete_labels.Reset();
  writer.delete_labels.Bind(1, job.job_id).Bind(2, job.array_index);
  if (Result<void> done = writer.delete_labels.Run(); !done) return done;
  for (const auto& [key, value] : job.labels) {
    writer.insert_label.Reset();
    writer.insert_label.Bind(1, job.job_id)
        .Bind(2, job.array_index)
        .Bind(3, std::string_view(key))
        .Bind(4, std::string_view(value));
    if (Result<void> done = writer.insert_label.Run(); !done) return done;
  }
  return {};
}

Result<void> WriteJob(JobWriter& writer, const TrackedJob& job) {
  SqliteStatement& upsert = writer.upsert;
  upsert.Reset();
  std::optional<std::int64_t> last_seen;
  if (job.last_seen_in_lsf) last_seen = ToNanos(*job.last_seen_in_lsf);
  upsert.Bind(1, job.job_id)
      .Bind(2, job.array_index)
      .Bind(3, std::string_view(job.user))
      .Bind(4, std::string_view(job.queue))
      .Bind(5, std::string_view(job.status))
      .Bind(6, std::int64_t{job.terminal ? 1 : 0})
      .Bind(7, std::string_view(job.lsf_record))
      .Bind(8, job.request_id)
      .Bind(9, job.tag)
      .Bind(10, std::string_view(LabelsToJson(job.labels)))
      .Bind(11, ToNanos(job.submitted_at))
      .Bind(12, ToNanos(job.updated_at))
      .Bind(13, last_seen);
  if (Result<void> done = upsert.Run(); !done) return done;
  // No labels: a refresh from bjobs, which keeps the stored ones.
  if (job.labels.empty()) return {};
  return WriteLabels(writer, job);
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
  if (Result<void> checked = CheckDirectory(dir); !checked) return tl::unexpected(checked.error());
  const std::string path = dir + (dir.ends_with('/') ? "" : "/") + kFileName;
  if (Result<void> made = CreateOrCheckFile(path); !made) return tl::unexpected(made.error());
  Result<SqliteDb> db = SqliteDb::Open(path, kBusyTimeout);
  if (!db) return tl::unexpected(db.error());
  if (Result<void> configured = Configure(*db, dir); !configured) {
    return tl::unexpected(configured.error());
  }
  if (Result<void> intact = CheckIntegrity(*db); !intact) return tl::unexpected(intact.error());
  std::unique_ptr<JobStore> store(new JobStore(std::move(*db), path));
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
  for (std::int64_t step = version; step < kSchemaVersion; ++step) {
    const std::string purpose = "migrate schema to version " + std::to_string(step + 1);
    if (Result<void> done = db_.Exec(kMigrations[step], purpose); !done) return done;
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

// --- Tracked jobs -----------------------------------------------------------

Result<void> JobStore::UpsertJobs(const std::vector<TrackedJob>& jobs) {
  for (const TrackedJob& job : jobs) {
    if (job.job_id <= 0 || job.array_index < 0) {
      return Fail(ErrorCode::kInvalidArgument, "bad job id " + std::to_string(job.job_id) + "[" +
                                                   std::to_string(job.array_index) + "]");
    }
  }
  std::lock_guard lock(mutex_);
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kNormal);
  if (!transaction) return tl::unexpected(transaction.error());
  Result<JobWriter> writer = PrepareJobWriter(db_);
  if (!writer) return tl::unexpected(writer.error());
  for (const TrackedJob& job : jobs) {
    if (Result<void> done = WriteJob(*writer, job); !done) return done;
  }
  return transaction->Commit();
}

Result<void> JobStore::MarkSeen(const std::vector<JobSeen>& seen) {
  std::lock_guard lock(mutex_);
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kNormal);
  if (!transaction) return tl::unexpected(transaction.error());
  Result<SqliteStatement> mark = db_.Prepare(
      "UPDATE tracked_jobs SET last_seen_in_lsf_ns = ?3, updated_at_ns = ?4"
      " WHERE job_id = ?1 AND array_index = ?2",
      "mark jobs seen");
  if (!mark) return tl::unexpected(mark.error());
  for (const JobSeen& job : seen) {
    mark->Reset();
    mark->Bind(1, job.job_id)
        .Bind(2, job.array_index)
        .Bind(3, ToNanos(job.last_seen_in_lsf))
        .Bind(4, ToNanos(job.updated_at));
    if (Result<void> done = mark->Run(); !done) return done;
  }
  return transaction->Commit();
}

Result<std::size_t> JobStore::DeleteJobs(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& keys) {
  std::lock_guard lock(mutex_);
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kNormal);
  if (!transaction) return tl::unexpected(transaction.error());
  Result<SqliteStatement> remove =
      db_.Prepare("DELETE FROM tracked_jobs WHERE job_id = ?1 AND array_index = ?2", "delete jobs");
  if (!remove) return tl::unexpected(remove.error());
  std::size_t removed = 0;
  for (const auto& [job_id, array_index] : keys) {
    remove->Reset();
    remove->Bind(1, job_id).Bind(2, array_index);
    if (Result<void> done = remove->Run(); !done) return tl::unexpected(done.error());
    removed += static_cast<std::size_t>(db_.Changes());
  }
  if (Result<void> committed = transaction->Commit(); !committed) {
    return tl::unexpected(committed.error());
  }
  return removed;
}

Result<std::vector<TrackedJob>> JobStore::SelectJobs(std::string_view from_where_order,
                                                     const std::vector<SqlValue>& params) {
  const std::string sql =
      std::string("SELECT ") + kJobColumns + " " + std::string(from_where_order);
  Result<SqliteStatement> select = db_.Prepare(sql, "read jobs");
  if (!select) return tl::unexpected(select.error());
  BindAll(*select, params);
  std::vector<TrackedJob> jobs;
  for (;;) {
    const Result<bool> row = select->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) return jobs;
    Result<TrackedJob> job = ReadJob(*select, path_);
    if (!job) return tl::unexpected(job.error());
    jobs.push_back(std::move(*job));
  }
}

Result<std::vector<TrackedJob>> JobStore::ActiveJobs() {
  std::lock_guard lock(mutex_);
  return SelectJobs("FROM tracked_jobs j WHERE j.terminal = 0 ORDER BY j.job_id, j.array_index",
                    {});
}

Result<std::optional<TrackedJob>> JobStore::FindJob(std::int64_t job_id, std::int64_t array_index) {
  std::lock_guard lock(mutex_);
  Result<std::vector<TrackedJob>> jobs = SelectJobs(
      "FROM tracked_jobs j WHERE j.job_id = ?1 AND j.array_index = ?2", {job_id, array_index});
  if (!jobs) return tl::unexpected(jobs.error());
  if (jobs->empty()) return std::optional<TrackedJob>();
  return std::optional<TrackedJob>(std::move(jobs->front()));
}

Result<std::vector<TrackedJob>> JobStore::FindArrayJob(std::int64_t job_id) {
  std::lock_guard lock(mutex_);
  return SelectJobs("FROM tracked_jobs j WHERE j.job_id = ?1 ORDER BY j.array_index", {job_id});
}

Result<JobPage> JobStore::ListJobs(const JobFilter& filter) {
  if (filter.limit < 1 || filter.limit > kMaxPageSize) {
    return Fail(ErrorCode::kInvalidArgument, "limit " + std::to_string(filter.limit) +
                                                 " is outside 1.." + std::to_string(kMaxPageSize));
  }
  std::optional<std::array<std::int64_t, 3>> after;
  if (!filter.cursor.empty()) {
    after = ParseCursor(filter.cursor);
    if (!after) return Fail(ErrorCode::kInvalidArgument, "malformed cursor");
  }
  // With a label the label index gives the order (its copy of the keys);
  // otherwise tracked_jobs_by_user or tracked_jobs_newest does.
  const std::string k = filter.label ? "l." : "j.";
  std::string sql = filter.label ? "FROM job_labels l JOIN tracked_jobs j"
                                   " ON j.job_id = l.job_id AND j.array_index = l.array_index"
                                   " WHERE l.label_key = ? AND l.label_value = ?"
                                 : "FROM tracked_jobs j WHERE 1";
  std::vector<SqlValue> params;
  if (filter.label) params = {filter.label->first, filter.label->second};
  if (!filter.user.empty()) {
    sql += " AND j.user = ?";
    params.emplace_back(filter.user);
  }
  if (!filter.statuses.empty()) {
    const char* separator = " AND j.status IN (?";
    for (const std::string& status : filter.statuses) {
      sql += std::exchange(separator, ", ?");
      params.emplace_back(status);
    }
    sql += ")";
  }
  if (filter.since) {
    sql += " AND " + k + "submitted_at_ns >= ?";
    params.emplace_back(ToNanos(*filter.since));
  }
  if (after) {
    sql += " AND (" + k + "submitted_at_ns, " + k + "job_id, " + k + "array_index) < (?, ?, ?)";
    params.insert(params.end(), after->begin(), after->end());
  }
  sql += " ORDER BY " + k + "submitted_at_ns DESC, " + k + "job_id DESC, " + k +
         "array_index DESC LIMIT ?";
  params.emplace_back(std::int64_t{filter.limit} + 1);  // one more: is there a next page?
  std::lock_guard lock(mutex_);
  Result<std::vector<TrackedJob>> jobs = SelectJobs(sql, params);
  if (!jobs) return tl::unexpected(jobs.error());
  JobPage page;
  if (jobs->size() > static_cast<std::size_t>(filter.limit)) {
    jobs->pop_back();
    page.next_cursor = MakeCursor(jobs->back());
  }
  page.jobs = std::move(*jobs);
  return page;
}

// In batches, each its own transaction: deleting tens of thousands of rows
// (and their labels) takes seconds, and a Begin must not wait that long.
Result<std::size_t> JobStore::Prune(SystemTime older_than) {
  std::size_t removed = 0;
  for (const char* sql :
       {"DELETE FROM tracked_jobs WHERE rowid IN (SELECT rowid FROM tracked_jobs"
        " WHERE terminal = 1 AND updated_at_ns < ?1 LIMIT ?2)",
        "DELETE FROM submissions WHERE rowid IN (SELECT rowid FROM submissions"
        " WHERE state IN ('submitted', 'failed') AND updated_at_ns < ?1 LIMIT ?2)"}) {
    for (;;) {
      const Result<std::size_t> batch = PruneBatch(sql, older_than);
      if (!batch) return batch;
      removed += *batch;
      if (*batch < kPruneBatch) break;
    }
  }
  return removed;
}

Result<std::size_t> JobStore::PruneBatch(const char* sql, SystemTime older_than) {
  std::lock_guard lock(mutex_);
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kNormal);
  if (!transaction) return tl::unexpected(transaction.error());
  Result<SqliteStatement> remove = db_.Prepare(sql, "prune");
  if (!remove) return tl::unexpected(remove.error());
  remove->Bind(1, ToNanos(older_than)).Bind(2, static_cast<std::int64_t>(kPruneBatch));
  if (Result<void> done = remove->Run(); !done) return tl::unexpected(done.error());
  // Changes() counts the rows of the statement, not the labels cascaded.
  const auto removed = static_cast<std::size_t>(db_.Changes());
  if (Result<void> committed = transaction->Commit(); !committed) {
    return tl::unexpected(committed.error());
  }
  return removed;
}

}  // namespace bplace
