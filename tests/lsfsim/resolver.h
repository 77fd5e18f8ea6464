#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/hostlist.h"

namespace bplace::lsfsim {

// A set of hosts of one cluster, indexed like ClusterDef::hosts.
using HostSet = std::vector<bool>;

// Evaluates the definition's name lists the way mbatchd does: host groups
// (nested, ranges, `all`, `~x` exclusions), queue HOSTS (`others`, `+N`,
// remote tokens), user groups and queue USERS/ADMINISTRATORS. Results are
// memoised, so a Resolver is not thread-safe; use one per thread. A cycle
// between groups makes the groups on it resolve to what was found before the
// cycle closed (mbatchd would reject the configuration; we do not crash).
class Resolver {
 public:
  // `cluster` must outlive the Resolver.
  explicit Resolver(const ClusterDef& cluster);

  // Returns the hosts of host group `group`, recursively expanded.
  const HostSet& HostGroupHosts(size_t group);

  // Returns the hosts queue `queue` may dispatch to (its HOSTS list).
  const HostSet& QueueHosts(size_t queue);

  // Returns the hosts a `-m` or bhosts argument names: a host, a host group
  // or `all` (a trailing `/` and a `+N` preference are allowed). Returns
  // nullopt when the name is neither a host nor a host group.
  std::optional<HostSet> HostsOfName(std::string_view name);

  // Returns true when `user` is in user group `group` (recursively, with
  // `all` and `~x` handled).
  bool UserInGroup(size_t group, std::string_view user);

  // Returns true when `user` may submit to queue `queue`: an LSF admin, one
  // of the queue's ADMINISTRATORS, or admitted by its USERS list.
  bool UserCanUseQueue(size_t queue, std::string_view user);

  // HOSTS of a queue as `bqueues -l` prints them: host groups get a
  // trailing `/`, `+N` and `~` are kept.
  std::vector<std::string> QueueHostsDisplay(size_t queue) const;

  // USERS or ADMINISTRATORS tokens as `bqueues -l` prints them: user groups
  // get a trailing `/`.
  std::vector<std::string> UserTokensDisplay(const std::vector<std::string>& tokens) const;

  // Members of a host group as bmgroup prints them: subgroups as `name/`,
  // ranges kept condensed; with `recursive`, subgroups are replaced by their
  // members. A group defined as `all` prints LSF's sentence; a group with
  // exclusions prints its resolved host list.
  std::vector<std::string> HostGroupMembersDisplay(size_t group, bool recursive);

  // Members of a user group as bugroup prints them, same rules as above
  // (`all` prints `all users`).
  std::vector<std::string> UserGroupMembersDisplay(size_t group, bool recursive);

 private:
  HostSet EvaluateGroup(size_t group);
  void AddHostToken(const MemberToken& token, HostSet* set);
  HostSet EvaluateHostTokens(const std::vector<std::string>& tokens);
  bool UserMatchesTokens(const std::vector<std::string>& tokens, std::string_view user);
  bool UserMatchesToken(const MemberToken& token, std::string_view user);
  void FlattenHostGroup(size_t group, std::vector<std::string>* out, std::vector<bool>* visiting);
  void FlattenUserGroup(size_t group, std::vector<std::string>* out, std::vector<bool>* visiting);

  const ClusterDef& cluster_;
  std::vector<std::optional<HostSet>> group_hosts_;
  std::vector<bool> group_in_progress_;
  std::vector<std::optional<HostSet>> queue_hosts_;
  std::vector<bool> user_group_in_progress_;
  HostSet no_hosts_;
  size_t cycle_cuts_ = 0;
  int depth_ = 0;
};

}  // namespace bplace::lsfsim
