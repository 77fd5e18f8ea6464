#include "common/sys_error.h"

#include <string>
#include <system_error>

namespace bplace {

tl::unexpected<Error> SysError(std::string_view call, int error_number, ErrorCode code) {
  // std::system_category().message is strerror_r underneath: thread-safe,
  // unlike strerror.
  return Fail(code, std::string(call) + ": " + std::system_category().message(error_number));
}

}  // namespace bplace
