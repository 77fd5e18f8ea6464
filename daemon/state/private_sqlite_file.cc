#include "daemon/state/private_sqlite_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "common/sys_error.h"
#include "common/unique_fd.h"

namespace bplace {

namespace {

std::string ModeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
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
Result<void> UseWal(SqliteDb& db, const std::string& dir) {
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
  return {};
}

}  // namespace

Result<SqliteDb> OpenPrivateSqliteFile(const std::string& dir, std::string_view file_name,
                                       std::chrono::milliseconds busy_timeout) {
  if (Result<void> checked = CheckDirectory(dir); !checked) return tl::unexpected(checked.error());
  const std::string path = dir + (dir.ends_with('/') ? "" : "/") + std::string(file_name);
  if (Result<void> made = CreateOrCheckFile(path); !made) return tl::unexpected(made.error());
  Result<SqliteDb> db = SqliteDb::Open(path, busy_timeout);
  if (!db) return db;
  if (Result<void> wal = UseWal(*db, dir); !wal) return tl::unexpected(wal.error());
  return db;
}

// It is quick_check rather than integrity_check, which also matches every
// index entry against its row and takes several times as long.
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

}  // namespace bplace
