#include "api/openlava_bjobs.h"

#include "api/lsf_answer.h"
#include "daemon/cluster/cluster_dialect.h"

namespace bplace::api {

Response RunRealBjobs(const ClusterSnapshot& snapshot, const lsf::BjobsCommandLine& line,
                      const std::vector<std::string>& args, const std::string& reason) {
  return RunRealLsf(args, reason, IsOpenlava(snapshot) && line.json && line.ids.empty());
}

}  // namespace bplace::api
