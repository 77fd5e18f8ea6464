#include "daemon/cluster/group_index.h"

#include <algorithm>
#include <unordered_set>

namespace bplace {
namespace {

constexpr int kUnvisited = 0;
constexpr int kVisiting = 1;
constexpr int kDone = 2;

// "sub/" names a subgroup. LSF prints subgroups with the slash; a bare name
// that happens to be a group is also taken as one (lsb.hosts allows it).
std::string_view SubgroupName(std::string_view member) {
  if (member.size() > 1 && member.back() == '/') member.remove_suffix(1);
  return member;
}

}  // namespace

GroupIndex GroupIndex::Build(const std::vector<lsf::Group>& groups) {
  GroupIndex index;
  index.groups_ = groups;
  for (std::size_t i = 0; i < index.groups_.size(); ++i) {
    // A later definition of the same name wins, as in LSF's own files.
    index.by_name_[index.groups_[i].name] = i;
  }
  index.resolved_.resize(index.groups_.size());
  std::vector<int> state(index.groups_.size(), kUnvisited);
  std::vector<std::size_t> stack;
  for (std::size_t i = 0; i < index.groups_.size(); ++i) {
    if (state[i] == kUnvisited) index.Resolve(i, state, stack);
  }
  return index;
}

void GroupIndex::Resolve(std::size_t index, std::vector<int>& state,
                         std::vector<std::size_t>& stack) {
  state[index] = kVisiting;
  stack.push_back(index);
  const lsf::Group& group = groups_[index];
  Resolved resolved;
  resolved.all = group.all;
  // Names a subgroup leaves out ("all ~x" in the subgroup). They stay out of
  // this group only if it does not list them itself, wherever in its list.
  std::unordered_set<std::string> inherited_excluded;
  for (const std::string& raw : group.members) {
    std::string_view member = raw;
    const bool exclude = !member.empty() && member.front() == '~';
    if (exclude) member.remove_prefix(1);
    if (member.empty()) continue;
    if (member == "all") {
      resolved.all = true;
      continue;
    }
    const std::string_view sub_name = SubgroupName(member);
    const auto sub = by_name_.find(sub_name);
    const bool is_group_ref = member.back() == '/' || sub != by_name_.end();
    if (!is_group_ref) {
      if (exclude) {
        resolved.excluded.insert(std::string(member));
      } else {
        resolved.members.insert_or_assign(std::string(member), -1);  // a direct listing wins
      }
      continue;
    }
    if (sub == by_name_.end()) {
      warnings_.push_back("group " + group.name + " refers to unknown group " +
                          std::string(sub_name) + "/; taken as empty");
      continue;
    }
    const std::size_t sub_index = sub->second;
    if (state[sub_index] == kVisiting) {
      std::string cycle = "group cycle: ";
      const auto from = std::find(stack.begin(), stack.end(), sub_index);
      for (auto it = from; it != stack.end(); ++it) cycle += groups_[*it].name + "/ -> ";
      cycle += groups_[sub_index].name + "/; the reference from " + group.name + " is ignored";
      warnings_.push_back(std::move(cycle));
      continue;
    }
    if (state[sub_index] == kUnvisited) Resolve(sub_index, state, stack);
    const Resolved& child = resolved_[sub_index];
    if (exclude) {
      for (const auto& [name, hop] : child.members) resolved.excluded.insert(name);
      continue;
    }
    if (child.all) resolved.all = true;
    for (const auto& [name, hop] : child.members) {
      // Keep the first route found: a direct listing beats a subgroup's.
      resolved.members.emplace(name, static_cast<std::int32_t>(sub_index));
    }
    inherited_excluded.insert(child.excluded.begin(), child.excluded.end());
  }
  for (const std::string& name : inherited_excluded) {
    const auto member = resolved.members.find(name);
    if (member == resolved.members.end() || member->second >= 0) resolved.excluded.insert(name);
  }
  for (const std::string& name : resolved.excluded) resolved.members.erase(name);
  resolved_[index] = std::move(resolved);
  stack.pop_back();
  state[index] = kDone;
}

bool GroupIndex::Has(std::string_view group) const { return by_name_.contains(group); }

std::optional<std::vector<std::string>> GroupIndex::Chain(std::string_view group,
                                                          std::string_view member) const {
  auto it = by_name_.find(group);
  if (it == by_name_.end()) return std::nullopt;
  std::vector<std::string> chain;
  std::size_t current = it->second;
  // Bounded by the number of groups: Build cut every cycle.
  for (std::size_t step = 0; step <= groups_.size(); ++step) {
    const Resolved& resolved = resolved_[current];
    chain.push_back(groups_[current].name);
    if (resolved.excluded.contains(member)) return std::nullopt;
    const auto found = resolved.members.find(member);
    if (found == resolved.members.end()) {
      if (!resolved.all) return std::nullopt;
      chain.emplace_back("all");
      return chain;
    }
    if (found->second < 0) return chain;
    current = static_cast<std::size_t>(found->second);
  }
  return std::nullopt;
}

bool GroupIndex::Contains(std::string_view group, std::string_view member) const {
  auto it = by_name_.find(group);
  if (it == by_name_.end()) return false;
  std::size_t current = it->second;
  for (std::size_t step = 0; step <= groups_.size(); ++step) {
    const Resolved& resolved = resolved_[current];
    if (resolved.excluded.contains(member)) return false;
    const auto found = resolved.members.find(member);
    if (found == resolved.members.end()) return resolved.all;
    if (found->second < 0) return true;
    current = static_cast<std::size_t>(found->second);
  }
  return false;
}

std::vector<std::string> GroupIndex::Expand(std::string_view group) const {
  std::vector<std::string> names;
  auto it = by_name_.find(group);
  if (it == by_name_.end()) return names;
  for (const auto& [name, hop] : resolved_[it->second].members) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

bool GroupIndex::IsAll(std::string_view group) const {
  auto it = by_name_.find(group);
  return it != by_name_.end() && resolved_[it->second].all;
}

const lsf::Group* GroupIndex::Find(std::string_view group) const {
  auto it = by_name_.find(group);
  return it == by_name_.end() ? nullptr : &groups_[it->second];
}

std::vector<std::string> GroupIndex::Names() const {
  std::vector<std::string> names;
  names.reserve(groups_.size());
  for (const auto& group : groups_) names.push_back(group.name);
  return names;
}

}  // namespace bplace
