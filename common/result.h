#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace bplace {

// The few failure kinds that some caller branches on. Everything else is a
// message for people. One function in api/ maps these to HTTP statuses.
enum class ErrorCode {
  kInvalidArgument,   // bad request field, bad config value
  kNotFound,          // unknown queue, host, group
  kParseError,        // LSF printed something we cannot read
  kCommandFailed,     // an LSF command exited non-zero or could not start
  kTimeout,           // an LSF command ran past its timeout and was killed
  kUnavailable,       // LSF (mbatchd/LIM) is down or unreachable
  kRejected,          // LSF refused a job (bsub)
  kConflict,          // nothing eligible (no queue may take the job)
  kUnauthenticated,   // no credentials, or credentials we do not know
  kPermissionDenied,  // a known caller asked for what it may not do
  kRateLimited,       // over a submission or LSF-call budget; retry later
  kInternal,          // a bug of ours
};

// A failure: a code some caller may branch on plus a message for people.
struct Error {
  ErrorCode code;
  std::string message;
};

// The value or the reason there is none. Crosses module boundaries instead of
// exceptions for every expected failure.
template <typename T>
using Result = tl::expected<T, Error>;

// Builds the unexpected side of a Result: `return Fail(ErrorCode::kParseError, "line 3: ...");`.
inline tl::unexpected<Error> Fail(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(message)});
}

// Short lowercase name of a code ("parse_error"), used in logs and JSON.
const char* ErrorCodeName(ErrorCode code);

}  // namespace bplace
