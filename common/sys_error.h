#pragma once

#include <string_view>

#include "common/result.h"

namespace bplace {

// The failure of a system call: "<call>: <strerror(error_number)>" with
// `code`. Capture errno right after the call and pass it here, before
// anything else can change it:
//   if (fstat(fd, &st) != 0) return SysError("fstat " + path, errno);
// Never fails; thread-safe.
tl::unexpected<Error> SysError(std::string_view call, int error_number,
                               ErrorCode code = ErrorCode::kInternal);

}  // namespace bplace
