#include "daemon/cluster/bjobs_dialect.h"

#include <spdlog/spdlog.h>

#include "lsf_adapter/bjobs_command.h"

namespace bplace {

bool BjobsDialect::LearnFrom(const lsf::CommandResult& result, std::string_view who) {
  if (!lsf::BjobsRefusedOutputFormat(result)) return false;
  if (!table_form_.exchange(true, std::memory_order_acq_rel)) {
    spdlog::warn(
        "{}: bjobs does not give our fields with -o ... -json ({}); asking in the table and "
        "long forms (bjobs -a -w -u all, bjobs -a -l) from now on",
        who, result.err.empty() ? result.out.substr(0, 200) : result.err.substr(0, 200));
  }
  return true;
}

}  // namespace bplace
