#include "common/result.h"

namespace bplace {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kParseError:
      return "parse_error";
    case ErrorCode::kCommandFailed:
      return "command_failed";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kRejected:
      return "rejected";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kUnauthenticated:
      return "unauthenticated";
    case ErrorCode::kPermissionDenied:
      return "permission_denied";
    case ErrorCode::kRateLimited:
      return "rate_limited";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "unknown";
}

}  // namespace bplace
