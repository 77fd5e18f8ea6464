#include "cli/exit_code.h"

namespace bplace::cli {

ExitCode ExitCodeForStatus(int http_status) {
  return http_status >= 200 && http_status < 300 ? ExitCode::kOk : ExitCode::kRefused;
}

}  // namespace bplace::cli
