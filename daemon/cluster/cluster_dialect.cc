#include "daemon/cluster/cluster_dialect.h"

namespace bplace {

ClusterDialect DialectOf(const ClusterSnapshot& snapshot, const lsf::LsfInvoker& lsf) {
  return ClusterDialect{lsf::FamilyOfLsidVersion(snapshot.identity.version), lsf.limit_units()};
}

bool IsOpenlava(const ClusterSnapshot& snapshot) {
  return lsf::FamilyOfLsidVersion(snapshot.identity.version) == lsf::LsfFamily::kOpenlava;
}

}  // namespace bplace
