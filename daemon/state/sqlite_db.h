#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace bplace {

class SqliteDb;

// One prepared statement of a SqliteDb: bind (1-based, as SQLite counts),
// step, read columns (0-based, as SQLite counts). Finalized on destruction.
// Movable, not copyable; must not outlive its SqliteDb. Not thread-safe: use
// it under the lock that guards its connection.
class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Bind a parameter. A failure (index out of range, value too big) is kept
  // and reported by the next Step or Run, so that a run of binds needs no
  // checks of its own. A nullopt binds SQL NULL.
  SqliteStatement& Bind(int index, std::int64_t value);
  SqliteStatement& Bind(int index, std::string_view text);
  SqliteStatement& Bind(int index, const std::optional<std::int64_t>& value);
  SqliteStatement& Bind(int index, const std::optional<std::string>& text);
  SqliteStatement& BindNull(int index);

  // Runs the statement to its next row: true when a row is ready to read,
  // false when the statement is done. Errors name the database path, the
  // statement's purpose and SQLite's message (codes as SqliteDb::Failure).
  Result<bool> Step();
  // Steps to the end, ignoring any rows (for INSERT, UPDATE, DELETE, DDL).
  Result<void> Run();
  // Makes the statement ready to run again; keeps no bindings.
  void Reset();

  // Columns of the current row. Text of a NULL column is "".
  bool IsNull(int column) const;
  std::int64_t Int(int column) const;
  std::string Text(int column) const;
  std::optional<std::int64_t> OptionalInt(int column) const;
  std::optional<std::string> OptionalText(int column) const;

 private:
  friend class SqliteDb;
  SqliteStatement(SqliteDb* db, sqlite3_stmt* statement, std::string_view purpose);
  void Keep(int rc);

  SqliteDb* db_ = nullptr;
  sqlite3_stmt* statement_ = nullptr;
  std::string purpose_;
  int bind_rc_ = 0;  // first failed bind, 0 (SQLITE_OK) when none
};

// Owns one SQLite connection (C API, Debian's libsqlite3). Errors carry the
// database path, what was being done, and SQLite's own message. Movable, not
// copyable. Not thread-safe: one thread at a time, under the owner's lock
// (it is opened SQLITE_OPEN_NOMUTEX for that reason).
class SqliteDb {
 public:
  // Opens the existing database file `path` read-write without following a
  // symlink (the caller creates the file with the mode it wants) and sets a
  // busy timeout, so that a lock held by another process (an operator's
  // sqlite3 shell) is waited for up to `busy_timeout` instead of failing at
  // once. Returns kUnavailable when the file cannot be opened.
  static Result<SqliteDb> Open(const std::string& path, std::chrono::milliseconds busy_timeout);

  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  // Runs `sql` (one or more statements, no parameters, rows ignored).
  Result<void> Exec(std::string_view sql, std::string_view purpose);
  // Compiles the first statement of `sql`; `purpose` ("insert submission")
  // names it in errors.
  Result<SqliteStatement> Prepare(std::string_view sql, std::string_view purpose);
  // Rows changed by the last INSERT, UPDATE or DELETE (not counting cascades).
  std::int64_t Changes() const;
  const std::string& path() const { return path_; }

  // The Error for SQLite result code `rc` while doing `purpose`:
  // "<path>: <purpose>: <SQLite's message>". Busy, locked, I/O, disk-full,
  // read-only and cannot-open failures are kUnavailable (the disk or another
  // process, worth a retry later); everything else (a corrupt file, a
  // constraint, a misuse) is kInternal.
  Error Failure(int rc, std::string_view purpose) const;

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_ = nullptr;
  std::string path_;
};

// A transaction on a SqliteDb, rolled back on destruction unless committed.
// Not thread-safe, like its connection.
class SqliteTransaction {
 public:
  // BEGIN IMMEDIATE: takes the write lock at once, so that a second writer
  // (another process) waits in the busy timeout at BEGIN rather than failing
  // with SQLITE_BUSY halfway through, when a read lock cannot be upgraded.
  static Result<SqliteTransaction> BeginImmediate(SqliteDb& db);

  SqliteTransaction(SqliteTransaction&& other) noexcept;
  SqliteTransaction& operator=(SqliteTransaction&&) = delete;
  SqliteTransaction(const SqliteTransaction&) = delete;
  ~SqliteTransaction();

  // COMMIT. After a failure the transaction is rolled back on destruction.
  Result<void> Commit();

 private:
  explicit SqliteTransaction(SqliteDb* db) : db_(db) {}

  SqliteDb* db_ = nullptr;  // null once committed or moved from
};

}  // namespace bplace
