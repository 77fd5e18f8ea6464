#pragma once

// Parser of `lsclusters -l`. Pure: no I/O, safe from any thread.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace bplace::lsf {

// One cluster of `lsclusters -l` and its LSF administrators, primary first.
struct ClusterAdministrators {
  std::string cluster_name;
  std::vector<std::string> administrators;
};

// Parses `lsclusters -l` into the clusters it lists with their LSF
// administrators (the ClusterAdmins section of lsf.cluster.<name>, expanded
// by LIM). Layout as OpenLava's lsclusters.c prints it (volclava 2.2 is of
// that family) and IBM documents for LSF 10.1: the table
//   CLUSTER_NAME   STATUS   MASTER_HOST               ADMIN    HOSTS  SERVERS
//   cluster1       ok       hostA                  lsfadmin        6        6
//   LSF administrators: lsfadmin hpcadm
//   Available resources: ...
// where the administrators line is spelt "<product> administrators:" (LSF,
// OpenLava, volclava) and follows its cluster's row. The ADMIN column alone
// (plain `lsclusters`) gives the primary administrator. A "CLUSTER_NAME: x"
// line (a block layout some releases may print; *inferred*, no sample) also
// starts a cluster. Columns are found by name; retry chatter and other lines
// are skipped. Fails with kParseError "lsclusters -l: no cluster listed"
// when no cluster row or block is found (LIM down prints only chatter).
Result<std::vector<ClusterAdministrators>> ParseLsclusters(std::string_view text);

}  // namespace bplace::lsf
