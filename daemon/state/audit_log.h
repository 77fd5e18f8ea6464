#pragma once

// The audit trail's sink: JSON records, one line each, in a file of their
// own (docs/operations.md "Security"; [log] audit_file). Submission decisions
// (api/audit.h builds them) and intents (daemon/submit/submission_service.cc) go
// here.

#include <memory>
#include <string>

#include <spdlog/logger.h>
#include <nlohmann/json.hpp>

#include "common/result.h"
#include "daemon/options.h"

namespace bplace {

// The audit file of `options`: options.file, or audit.log in `state_dir`
// when that is empty. Pure.
std::string AuditFilePath(const AuditOptions& options, const std::string& state_dir);

// Opens the audit file (AuditFilePath) for appending, creating it, rotated
// by size; it and every file rotation opens get mode 0600 whatever the
// umask (records name users and their commands). Returns the logger to pass
// to SetAuditSink, or kUnavailable naming the file and the system's reason
// ("cannot open the audit file /var/lib/bplace/audit.log: ...").
Result<std::shared_ptr<spdlog::logger>> OpenAuditFile(const AuditOptions& options,
                                                      const std::string& state_dir);

// Where LogAudit writes from now on, for the whole process (the daemon sets
// it once at start-up); null: the main log, as "audit <json>" lines at level
// info (tests and embedders). Thread-safe.
void SetAuditSink(std::shared_ptr<spdlog::logger> sink);

// Writes `record` to the audit sink as one line: {"time":"<UTC, ISO 8601,
// microseconds>Z", ...the record's members}, flushed to the file at once
// (a record survives the daemon's crash). A record that is not a non-empty
// JSON object is written as {"time":..., "record": <it>}. Strings that are
// not valid UTF-8 (LSF's replies are arbitrary bytes) are repaired, never
// thrown on. Thread-safe.
void LogAudit(const nlohmann::json& record);

}  // namespace bplace
