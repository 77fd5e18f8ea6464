#pragma once

// What kind of LSF bplaced serves: the one place to ask. Each fact is
// learnt once, where it comes from, and read here:
//  - the family (IBM LSF or OpenLava/volclava): lsid's banner, read by the
//    topology tier into ClusterSnapshot::identity (at start and on every
//    topology refresh);
//  - the memory units of limits: LSF_UNIT_FOR_LIMITS of the lsf.conf under
//    LSF_ENVDIR, read once at start (lsf::LsfInvoker::limit_units);
//  - whether bjobs gives -o/-json or only its table: learnt from the first
//    refusal of any caller, daemon/cluster/bjobs_dialect.h (BjobsDialect:
//    it depends on the bjobs, not on the banner; LSF before 10.1 lacks
//    -json too).
// Pure functions.

#include "common/result.h"
#include "daemon/cluster/snapshot.h"
#include "lsf_adapter/lsf_dialect.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

struct ClusterDialect {
  lsf::LsfFamily family = lsf::LsfFamily::kIbmLsf;
  Result<lsf::LimitUnits> units;  // the error names a bad LSF_UNIT_FOR_LIMITS
};

// The dialect of the cluster `snapshot` describes, whose commands `lsf`
// runs. kIbmLsf until lsid has answered (no compensation: LSF's own words
// then say what is wrong).
ClusterDialect DialectOf(const ClusterSnapshot& snapshot, const lsf::LsfInvoker& lsf);

// True when `snapshot`'s lsid named an OpenLava-family scheduler.
bool IsOpenlava(const ClusterSnapshot& snapshot);

}  // namespace bplace
