#include "tests/lsfsim/resolver.h"

#include <algorithm>
#include <unordered_set>

namespace bplace::lsfsim {
namespace {

constexpr const char* kAllHostsSentence = "all hosts used by the batch system";
constexpr const char* kAllUsersSentence = "all users";

void Union(const HostSet& from, HostSet* into) {
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i]) (*into)[i] = true;
  }
}

void AppendUnique(const std::string& name, std::vector<std::string>* out,
                  std::unordered_set<std::string>* seen) {
  if (seen->insert(name).second) out->push_back(name);
}

}  // namespace

Resolver::Resolver(const ClusterDef& cluster)
    : cluster_(cluster),
      group_hosts_(cluster.host_groups.size()),
      group_in_progress_(cluster.host_groups.size(), false),
      queue_hosts_(cluster.queues.size()),
      user_group_in_progress_(cluster.user_groups.size(), false),
      no_hosts_(cluster.hosts.size(), false) {}

void Resolver::AddHostToken(const MemberToken& token, HostSet* set) {
  if (token.remote || token.name == "none") return;
  if (token.name == "all" || token.name == "others") {
    // `others` is every host not named elsewhere in the list; together with
    // the named ones that is every host.
    set->assign(cluster_.hosts.size(), true);
    return;
  }
  std::optional<size_t> group = cluster_.FindHostGroup(token.name);
  if (group) {
    Union(EvaluateGroup(*group), set);
    return;
  }
  if (IsRangePattern(token.name)) {
    std::optional<std::vector<std::string>> names = ExpandRange(token.name);
    if (!names) return;
    for (const std::string& name : *names) {
      if (std::optional<size_t> host = cluster_.FindHost(name)) (*set)[*host] = true;
    }
    return;
  }
  // An unknown name admits nothing: mbatchd ignores it with a warning.
  if (std::optional<size_t> host = cluster_.FindHost(token.name)) (*set)[*host] = true;
}

HostSet Resolver::EvaluateHostTokens(const std::vector<std::string>& tokens) {
  HostSet included(cluster_.hosts.size(), false);
  HostSet excluded(cluster_.hosts.size(), false);
  for (const std::string& text : tokens) {
    MemberToken token = ParseMemberToken(text);
    AddHostToken(token, token.excluded ? &excluded : &included);
  }
  for (size_t i = 0; i < included.size(); ++i) {
    if (excluded[i]) included[i] = false;
  }
  return included;
}

const HostSet& Resolver::HostGroupHosts(size_t group) {
  if (!group_hosts_[group]) group_hosts_[group] = EvaluateGroup(group);
  return *group_hosts_[group];
}

HostSet Resolver::EvaluateGroup(size_t group) {
  if (group_hosts_[group]) return *group_hosts_[group];
  // A cycle: the inner reference contributes nothing new, since the outer
  // evaluation of the same group adds its members anyway.
  if (group_in_progress_[group]) {
    ++cycle_cuts_;
    return no_hosts_;
  }
  size_t cuts_before = cycle_cuts_;
  group_in_progress_[group] = true;
  ++depth_;
  HostSet hosts = EvaluateHostTokens(cluster_.host_groups[group].members);
  --depth_;
  group_in_progress_[group] = false;
  // A group evaluated inside a cycle saw only part of it: memoise it only
  // when it is the outermost evaluation.
  if (cycle_cuts_ == cuts_before || depth_ == 0) group_hosts_[group] = hosts;
  return hosts;
}

const HostSet& Resolver::QueueHosts(size_t queue) {
  if (!queue_hosts_[queue]) queue_hosts_[queue] = EvaluateHostTokens(cluster_.queues[queue].hosts);
  return *queue_hosts_[queue];
}

std::optional<HostSet> Resolver::HostsOfName(std::string_view name) {
  MemberToken token = ParseMemberToken(name);
  if (token.excluded || token.remote) return std::nullopt;
  HostSet set(cluster_.hosts.size(), false);
  if (token.name == "all" || token.name == "others") {
    set.assign(cluster_.hosts.size(), true);
    return set;
  }
  if (std::optional<size_t> group = cluster_.FindHostGroup(token.name)) {
    return HostGroupHosts(*group);
  }
  if (token.group_marker) return std::nullopt;
  if (std::optional<size_t> host = cluster_.FindHost(token.name)) {
    set[*host] = true;
    return set;
  }
  return std::nullopt;
}

bool Resolver::UserMatchesToken(const MemberToken& token, std::string_view user) {
  if (token.name == "all") return true;
  if (std::optional<size_t> group = cluster_.FindUserGroup(token.name)) {
    return UserInGroup(*group, user);
  }
  return !token.group_marker && token.name == user;
}

bool Resolver::UserMatchesTokens(const std::vector<std::string>& tokens, std::string_view user) {
  bool included = false;
  bool excluded = false;
  for (const std::string& text : tokens) {
    MemberToken token = ParseMemberToken(text);
    if (!UserMatchesToken(token, user)) continue;
    (token.excluded ? excluded : included) = true;
  }
  return included && !excluded;
}

bool Resolver::UserInGroup(size_t group, std::string_view user) {
  if (user_group_in_progress_[group]) return false;
  user_group_in_progress_[group] = true;
  bool result = UserMatchesTokens(cluster_.user_groups[group].members, user);
  user_group_in_progress_[group] = false;
  return result;
}

bool Resolver::UserCanUseQueue(size_t queue, std::string_view user) {
  const QueueDef& def = cluster_.queues[queue];
  return cluster_.IsLsfAdmin(user) || UserMatchesTokens(def.administrators, user) ||
         UserMatchesTokens(def.users, user);
}

std::vector<std::string> Resolver::QueueHostsDisplay(size_t queue) const {
  std::vector<std::string> out;
  for (const std::string& text : cluster_.queues[queue].hosts) {
    MemberToken token = ParseMemberToken(text);
    if (token.remote) {
      out.push_back(text);
      continue;
    }
    std::string shown = token.excluded ? "~" : "";
    shown += token.name;
    if (token.group_marker || cluster_.FindHostGroup(token.name)) shown += "/";
    if (token.preference) shown += "+" + std::to_string(*token.preference);
    out.push_back(shown);
  }
  return out;
}

std::vector<std::string> Resolver::UserTokensDisplay(const std::vector<std::string>& tokens) const {
  std::vector<std::string> out;
  for (const std::string& text : tokens) {
    MemberToken token = ParseMemberToken(text);
    std::string shown = token.excluded ? "~" : "";
    shown += token.name;
    if (token.group_marker || cluster_.FindUserGroup(token.name)) shown += "/";
    out.push_back(shown);
  }
  return out;
}

void Resolver::FlattenHostGroup(size_t group, std::vector<std::string>* out,
                                std::vector<bool>* visiting) {
  if ((*visiting)[group]) return;
  (*visiting)[group] = true;
  const GroupDef& def = cluster_.host_groups[group];
  bool needs_resolving = false;
  for (const std::string& text : def.members) {
    MemberToken token = ParseMemberToken(text);
    if (token.excluded || token.name == "all") needs_resolving = true;
  }
  if (needs_resolving) {
    const HostSet& hosts = HostGroupHosts(group);
    for (size_t i = 0; i < hosts.size(); ++i) {
      if (hosts[i]) out->push_back(cluster_.hosts[i].name);
    }
  } else {
    for (const std::string& text : def.members) {
      MemberToken token = ParseMemberToken(text);
      if (std::optional<size_t> sub = cluster_.FindHostGroup(token.name)) {
        FlattenHostGroup(*sub, out, visiting);
      } else {
        out->push_back(token.name);
      }
    }
  }
  (*visiting)[group] = false;
}

std::vector<std::string> Resolver::HostGroupMembersDisplay(size_t group, bool recursive) {
  const GroupDef& def = cluster_.host_groups[group];
  if (def.members.size() == 1 && def.members[0] == "all") return {kAllHostsSentence};
  std::vector<std::string> raw;
  bool has_exclusion = false;
  for (const std::string& text : def.members) {
    if (ParseMemberToken(text).excluded) has_exclusion = true;
  }
  if (recursive || has_exclusion) {
    std::vector<bool> visiting(cluster_.host_groups.size(), false);
    FlattenHostGroup(group, &raw, &visiting);
  } else {
    for (const std::string& text : def.members) {
      MemberToken token = ParseMemberToken(text);
      if (token.group_marker || cluster_.FindHostGroup(token.name)) {
        raw.push_back(token.name + "/");
      } else {
        raw.push_back(token.name);
      }
    }
  }
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const std::string& name : raw) AppendUnique(name, &out, &seen);
  return out;
}

void Resolver::FlattenUserGroup(size_t group, std::vector<std::string>* out,
                                std::vector<bool>* visiting) {
  if ((*visiting)[group]) return;
  (*visiting)[group] = true;
  for (const std::string& text : cluster_.user_groups[group].members) {
    MemberToken token = ParseMemberToken(text);
    std::optional<size_t> sub = cluster_.FindUserGroup(token.name);
    if (sub && !token.excluded) {
      FlattenUserGroup(*sub, out, visiting);
    } else if (sub) {
      out->push_back("~" + token.name + "/");
    } else {
      out->push_back(text);
    }
  }
  (*visiting)[group] = false;
}

std::vector<std::string> Resolver::UserGroupMembersDisplay(size_t group, bool recursive) {
  const GroupDef& def = cluster_.user_groups[group];
  if (def.members.size() == 1 && def.members[0] == "all") return {kAllUsersSentence};
  std::vector<std::string> raw;
  if (recursive) {
    std::vector<bool> visiting(cluster_.user_groups.size(), false);
    FlattenUserGroup(group, &raw, &visiting);
  } else {
    raw = UserTokensDisplay(def.members);
  }
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const std::string& name : raw) AppendUnique(name, &out, &seen);
  return out;
}

}  // namespace bplace::lsfsim
