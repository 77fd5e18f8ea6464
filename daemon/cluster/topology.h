#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_map.h"
#include "daemon/cluster/group_index.h"
#include "daemon/cluster/member_token.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace {

class HostAdmissionIndex;

// Why a queue's HOSTS line admits one host, or why not.
struct HostAdmission {
  enum class Via {
    kNotListed,  // no token names the host, a group holding it, all or others
    kExcluded,   // a "~x" token takes it out
    kDirect,     // the host is named in HOSTS
    kGroup,      // through a host group; `chain` gives the nesting
    kAll,        // through "all" (or a group defined as all hosts)
    kOthers,     // through "others"
  };
  Via via = Via::kNotListed;
  std::string token;  // the HOSTS token that decided, as printed ("hg_small/+2", "~node013")
  std::vector<std::string> chain;  // for kGroup: {"hg_all", "hg_small"}; may end in "all"
  int preference = 0;              // the +N of the deciding token

  bool admitted() const { return via != Via::kNotListed && via != Via::kExcluded; }
};

// Short name of a Via ("direct", "group", "all", "others", "excluded", "not_listed").
const char* ViaName(HostAdmission::Via via);

// A sentence for people, e.g. "via host group hg_all/ -> hg_small/ (token hg_all/+2)".
std::string DescribeAdmission(const HostAdmission& admission);

// Whether a queue's USERS line (our own reading, used to explain LSF's answer)
// admits a user, and in words why.
struct UserAdmission {
  bool admitted = false;
  std::string explanation;  // "alice is in user group ug_chem/", "not in USERS: ug_chem/ bob"
};

// One queue's definition with its HOSTS and USERS tokens parsed.
struct QueueTopology {
  lsf::QueueDefinition definition;
  std::vector<MemberToken> hosts;
  std::vector<MemberToken> users;
  bool has_remote_hosts = false;  // HOSTS names MultiCluster remote hosts (kept, not placeable)
  std::string hosts_text;         // the HOSTS tokens joined by spaces, for explanations
};

// The cluster's LSF administrators as `lsclusters -l` lists them (the
// ClusterAdmins of lsf.cluster.<name>): they may submit to every queue,
// whatever its USERS line says. `unknown_reason` is set when lsclusters
// failed; `names` is then empty.
struct LsfAdministrators {
  std::vector<std::string> names;
  std::string unknown_reason;
};

// What `bqueues -l`, `bmgroup -w` and `bugroup -w` say about which hosts and
// users each queue takes. Immutable after Build; safe to share between
// threads. All look-ups are exact and case-sensitive: "node1" never matches
// "node1.ib.example.org".
class Topology {
 public:
  // Parses every queue's tokens, resolves both group sets and builds the
  // admission index (O(queues x host names x tokens)). Never fails:
  // problems (group cycles, unknown groups, unexpandable ranges) are kept in
  // warnings() and the offending reference is taken as empty. LSF
  // administrators whose list is unknown are a warning too (USERS lines are
  // then read without them).
  static std::shared_ptr<const Topology> Build(std::vector<lsf::QueueDefinition> queues,
                                               const std::vector<lsf::Group>& host_groups,
                                               const std::vector<lsf::Group>& user_groups,
                                               LsfAdministrators lsf_administrators = {});

  const std::vector<QueueTopology>& queues() const { return queues_; }
  const QueueTopology* FindQueue(std::string_view name) const;

  // How `queue`'s HOSTS line treats `host`. Exclusions ("~x") win over every
  // other token; among admitting tokens a direct name beats a group, a group
  // beats "all"; "others" applies only when nothing else names the host.
  // Costs a few hash look-ups per token.
  HostAdmission AdmitHost(const QueueTopology& queue, std::string_view host) const;

  // How `queue`'s USERS line treats `user`, with LSF administrators (every
  // queue) and the queue's ADMINISTRATORS (that queue) admitted whatever
  // USERS says, as mbatchd does; either list may name user groups. Used to
  // explain LSF's own answer (bqueues -u), never instead of it when that
  // answer is known.
  UserAdmission AdmitUser(const QueueTopology& queue, std::string_view user) const;

  // Hosts named anywhere: in a host group or directly in some queue's HOSTS.
  bool NamesHost(std::string_view host) const;

  // The LSF administrators Build was given (empty when unknown).
  const std::vector<std::string>& lsf_administrators() const { return lsf_administrators_; }

  // Which hosts each queue admits, as bitsets over the host names this
  // topology mentions (daemon/cluster/host_admission_index.h); computed once by
  // Build, for the per-queue host counts of every load publish.
  const HostAdmissionIndex& admission_index() const { return *admission_index_; }

  const GroupIndex& host_groups() const { return host_groups_; }
  const GroupIndex& user_groups() const { return user_groups_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  bool TokenMatchesHost(const MemberToken& token, std::string_view host) const;
  // The entry of `names` that is `user` or a user group holding it, or null.
  const std::string* FindUserIn(const std::vector<std::string>& names, std::string_view user) const;

  std::vector<QueueTopology> queues_;
  StringMap<std::size_t> queue_by_name_;
  GroupIndex host_groups_;
  GroupIndex user_groups_;
  StringSet named_hosts_;
  std::vector<std::string> lsf_administrators_;
  std::vector<std::string> warnings_;
  std::shared_ptr<const HostAdmissionIndex> admission_index_;  // set by Build, never null after
};

}  // namespace bplace
