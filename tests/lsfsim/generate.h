#pragma once

#include <string>

namespace bplace::lsfsim {

// Size and shape of a generated cluster.
struct GenerateOptions {
  int queues = 300;
  int hosts = 5000;
  int host_groups = 200;
  int depth = 3;  // levels of host group nesting
  unsigned seed = 1;
};

// Returns a cluster definition (TOML, the format LoadClusterDef reads) of the
// requested size. Deterministic for a given seed. Queue HOSTS lists mix every
// token kind: all, others, others+N, ~host, ~group/, group/, group/+N,
// host+N, none, host@cluster and allremote; host groups nest `depth` levels
// deep and use condensed ranges and exclusions; user groups nest too.
std::string GenerateCluster(const GenerateOptions& options);

}  // namespace bplace::lsfsim
