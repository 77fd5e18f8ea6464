#pragma once

#include <string>

namespace bplace::lsfsim::testing {

// A small cluster for byte-exact output tests. The test user (whoever runs
// the tests) is in no user group and is not an admin.
inline constexpr const char* kTestCluster = R"toml(
[cluster]
name = "testc"
master = "hostm"
admins = ["lsfadmin"]

[[host]]
name = "node[01-04]"
max = 8

[[host]]
name = "node03"
status = "closed_Adm"

[[host]]
name = "node04"
status = "unavail"
ib_ok = 0

[[host]]
name = "gpu01"
max = 2

[[host]]
name = "gpu010"
max = 2

[[host]]
name = "a_very_long_host_name_01"
max = 1

[[host_group]]
name = "hg_small"
members = ["node[01-02]"]

[[host_group]]
name = "hg_gpu"
members = ["gpu01", "gpu010"]

[[host_group]]
name = "hg_all_nested_long"
members = ["hg_small/", "hg_gpu/", "node03"]
admins = ["hpcadm"]

[[user_group]]
name = "ug_chem"
members = ["alice", "bob"]

[[user_group]]
name = "ug_all"
members = ["ug_chem/", "carol"]

[[queue]]
name = "normal"
priority = 30
nice = 20
default = true
description = "For normal low priority jobs."
hosts = "hg_small"
background = { pend = 3, run = 1 }

[[queue]]
name = "short"
priority = 40
description = "Short jobs."
users = "all"
hosts = "all ~node04 ~hg_gpu/"
max = 10
jl_u = 4

[[queue]]
name = "chem"
priority = 35
description = "Chemistry."
users = "ug_all/"
hosts = "hg_all_nested_long/+2 others+1"
administrators = "hpcadm"

[[queue]]
name = "closedq"
priority = 10
status = "closed"
description = "Closed."

[[queue]]
name = "inactq"
priority = 10
activity = "inact_adm"
description = "Inactive."

[[queue]]
name = "general-interactive"
priority = 20
description = "Long name."
hosts = "node01+1 gpu010"

[[queue]]
name = "gpu"
priority = 25
description = "GPU."
hosts = "hg_gpu/"
job_limit = 1

[[queue]]
name = "rewrite"
priority = 5
description = "Rewritten by the esub."
rewrite_to = "normal"

[[queue]]
name = "esubq"
priority = 5
description = "Rejected by the esub."
esub_reject = "esub: project required"
)toml";

// kTestCluster with `cluster_keys` (TOML lines) added to its [cluster] table.
inline std::string ClusterWith(const std::string& cluster_keys) {
  std::string toml = kTestCluster;
  const std::string anchor = "admins = [\"lsfadmin\"]\n";
  toml.insert(toml.find(anchor) + anchor.size(), cluster_keys);
  return toml;
}

}  // namespace bplace::lsfsim::testing
