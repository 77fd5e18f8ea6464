#include "daemon/state/sqlite_db.h"

#include <sqlite3.h>

namespace bplace {

namespace {

ErrorCode CodeFor(int rc) {
  switch (rc & 0xff) {  // the primary code of an extended one
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
    case SQLITE_NOMEM:
      return ErrorCode::kUnavailable;
    default:
      return ErrorCode::kInternal;
  }
}

}  // namespace

// --- SqliteStatement --------------------------------------------------------

SqliteStatement::SqliteStatement(SqliteDb* db, sqlite3_stmt* statement, std::string_view purpose)
    : db_(db), statement_(statement), purpose_(purpose) {}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_),
      statement_(std::exchange(other.statement_, nullptr)),
      purpose_(std::move(other.purpose_)),
      bind_rc_(other.bind_rc_) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(statement_);
    db_ = other.db_;
    statement_ = std::exchange(other.statement_, nullptr);
    purpose_ = std::move(other.purpose_);
    bind_rc_ = other.bind_rc_;
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

void SqliteStatement::Keep(int rc) {
  if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) bind_rc_ = rc;
}

SqliteStatement& SqliteStatement::Bind(int index, std::int64_t value) {
  Keep(sqlite3_bind_int64(statement_, index, value));
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, std::string_view text) {
  // SQLITE_TRANSIENT: SQLite copies the text, so the caller's buffer may go.
  Keep(sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT,
                           SQLITE_UTF8));
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, const std::optional<std::int64_t>& value) {
  return value ? Bind(index, *value) : BindNull(index);
}

SqliteStatement& SqliteStatement::Bind(int index, const std::optional<std::string>& text) {
  return text ? Bind(index, std::string_view(*text)) : BindNull(index);
}

SqliteStatement& SqliteStatement::BindNull(int index) {
  Keep(sqlite3_bind_null(statement_, index));
  return *this;
}

Result<bool> SqliteStatement::Step() {
  if (bind_rc_ != SQLITE_OK) return tl::unexpected(db_->Failure(bind_rc_, purpose_ + " (bind)"));
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return tl::unexpected(db_->Failure(rc, purpose_));
}

Result<void> SqliteStatement::Run() {
  for (;;) {
    const Result<bool> row = Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) return {};
  }
}

void SqliteStatement::Reset() {
  // sqlite3_reset repeats the last step's error, already reported by Step.
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
  bind_rc_ = SQLITE_OK;
}

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

std::int64_t SqliteStatement::Int(int column) const {
  return sqlite3_column_int64(statement_, column);
}

std::string SqliteStatement::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
  // sqlite3_column_bytes after sqlite3_column_text: the size of that UTF-8 text.
  const int size = sqlite3_column_bytes(statement_, column);
  return text == nullptr ? std::string() : std::string(text, static_cast<std::size_t>(size));
}

std::optional<std::int64_t> SqliteStatement::OptionalInt(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Int(column);
}

std::optional<std::string> SqliteStatement::OptionalText(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Text(column);
}

// --- SqliteDb ---------------------------------------------------------------

Result<SqliteDb> SqliteDb::Open(const std::string& path, std::chrono::milliseconds busy_timeout) {
  sqlite3* handle = nullptr;
  // No SQLITE_OPEN_CREATE: the caller made the file with its mode. NOFOLLOW:
  // a symlink planted in place of the file is refused. EXRESCODE: extended
  // codes (SQLITE_IOERR_FSYNC) in results, for the messages.
  const int flags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE;
  const int rc = sqlite3_open_v2(path.c_str(), &handle, flags, nullptr);
  SqliteDb db(handle, path);  // closes the handle on every path below
  if (handle == nullptr) return Fail(ErrorCode::kUnavailable, path + ": open: out of memory");
  if (rc != SQLITE_OK) return tl::unexpected(db.Failure(rc, "open"));
  const int busy_rc = sqlite3_busy_timeout(handle, static_cast<int>(busy_timeout.count()));
  if (busy_rc != SQLITE_OK) return tl::unexpected(db.Failure(busy_rc, "busy_timeout"));
  return db;
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

SqliteDb::~SqliteDb() {
  // close_v2 defers the close until the last statement is finalized, so an
  // order mistake among owners can never leave the handle open for good.
  sqlite3_close_v2(db_);
}

Result<void> SqliteDb::Exec(std::string_view sql, std::string_view purpose) {
  const std::string text(sql);  // sqlite3_exec wants a NUL-terminated string
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return tl::unexpected(Failure(rc, purpose));
  return {};
}

Result<SqliteStatement> SqliteDb::Prepare(std::string_view sql, std::string_view purpose) {
  sqlite3_stmt* statement = nullptr;
  const int rc =
      sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(statement);
    return tl::unexpected(Failure(rc, std::string(purpose) + " (prepare)"));
  }
  return SqliteStatement(this, statement, purpose);
}

std::int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

Error SqliteDb::Failure(int rc, std::string_view purpose) const {
  // The connection's message is more precise than sqlite3_errstr(rc) ("no
  // such table: x"), but belongs to the last call: use it only when it is
  // about this failure.
  const bool same = db_ != nullptr && sqlite3_extended_errcode(db_) == rc;
  const char* message = same ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  return Error{CodeFor(rc), path_ + ": " + std::string(purpose) + ": " + message};
}

// --- SqliteTransaction ------------------------------------------------------

Result<SqliteTransaction> SqliteTransaction::BeginImmediate(SqliteDb& db) {
  const Result<void> begun = db.Exec("BEGIN IMMEDIATE", "begin transaction");
  if (!begun) return tl::unexpected(begun.error());
  return SqliteTransaction(&db);
}

SqliteTransaction::SqliteTransaction(SqliteTransaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

SqliteTransaction::~SqliteTransaction() {
  // Failure to roll back leaves nothing to do: SQLite rolls back an open
  // transaction itself when the connection closes or the process dies.
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK", "rollback");
}

Result<void> SqliteTransaction::Commit() {
  const Result<void> committed = db_->Exec("COMMIT", "commit");
  if (committed) db_ = nullptr;
  return committed;
}

}  // namespace bplace
