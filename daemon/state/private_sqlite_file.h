#pragma once

// Opening a SQLite file that only this process's user may change, in a
// directory only that user may write: the checks of the directory and the
// file, the file created mode 0600, and WAL mode. Whoever may write the
// directory or the file may forge its contents (for the job store:
// submissions), so both are refused when shared. Free functions that BLOCK
// on the disk: OpenPrivateSqliteFile is thread-safe; CheckIntegrity uses
// its connection as SqliteDb allows, one thread at a time.

#include <chrono>
#include <string>
#include <string_view>

#include "common/result.h"
#include "daemon/state/sqlite_db.h"

namespace bplace {

// Opens <dir>/<file_name> (a '/' added unless `dir` ends with one) in WAL
// mode, creating the file mode 0600, whatever the umask, when absent.
// SQLite gives its -wal and -shm files the mode and owner of the database
// file, so they are private too. `busy_timeout` is how long a lock held by
// another process is waited for (SqliteDb::Open). The returned connection's
// path() is the file's. Errors, each naming the directory or the file:
//  - kInvalidArgument when `dir` does not exist (or stat fails on it), is
//    not a directory, is owned by another user than this process's
//    effective user or root, or is writable by group or others (nothing is
//    created then); or when the existing file is a symbolic link, not a
//    regular file, owned by another user, or writable by group or others;
//  - kUnavailable when the file cannot be created, opened or examined, or
//    when SQLite refuses WAL mode (a network filesystem such as NFS lacks
//    the shared memory WAL needs);
//  - kInternal when the file is not a SQLite database (or another SQLite
//    failure than the disk's, as SqliteDb::Failure maps them).
Result<SqliteDb> OpenPrivateSqliteFile(const std::string& dir, std::string_view file_name,
                                       std::chrono::milliseconds busy_timeout);

// Reads every page of `db` (PRAGMA quick_check; about 150 ms for 100k jobs,
// 57 MB) so that a damaged file stops the start, with its path named,
// instead of failing some later request. Returns kInternal "<path>: the
// database is damaged (<SQLite's verdict>)" for a damaged file, and the
// errors of SqliteDb::Prepare and SqliteStatement::Step when the check
// cannot run. Blocks on the disk; not thread-safe, like `db`.
Result<void> CheckIntegrity(SqliteDb& db);

}  // namespace bplace
