#pragma once

// How the job store's values are kept in its columns, shared by the two
// files that implement JobStore (job_store.cc: submissions; job_store_jobs.cc:
// tracked jobs). Private to them: nothing else includes this header.
// Pure functions, thread-safe (BindAll: under the statement's lock).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/clock.h"
#include "common/nanos.h"
#include "common/result.h"
#include "daemon/state/sqlite_db.h"

namespace bplace {

// Times are integer nanoseconds since the Unix epoch (columns *_ns):
// ToNanos and FromNanos (common/nanos.h). nullopt stays nullopt (a NULL
// column).
std::optional<SystemTime> FromNanos(const std::optional<std::int64_t>& nanos);

// Labels are a JSON object of strings, keys sorted, so that equal maps give
// equal text.
std::string LabelsToJson(const std::map<std::string, std::string>& labels);
// The labels of the JSON text `text`; kInternal "<where>: ..." when it is not
// an object of strings (a damaged or foreign row).
Result<std::map<std::string, std::string>> LabelsFromJson(const std::string& text,
                                                          const std::string& where);

// Binds `params` to the parameters 1, 2, ... of `statement`, in order.
void BindAll(SqliteStatement& statement,
             const std::vector<std::variant<std::int64_t, std::string>>& params);

}  // namespace bplace
