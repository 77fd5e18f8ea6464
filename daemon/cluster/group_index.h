#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/string_map.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace {

// Host groups (from `bmgroup -w`) or user groups (from `bugroup -w`) with
// their nesting resolved once, so that "is x in group g, and through which
// subgroups?" costs a few hash look-ups. Immutable after Build; safe to share
// between threads.
class GroupIndex {
 public:
  GroupIndex() = default;

  // Resolves `groups` (members may be names, "sub/" references in any order,
  // "~x" exclusions, or the group may be `all`). A reference to an unknown
  // group is treated as empty and a reference that closes a cycle is cut;
  // both are reported in warnings() ("host group cycle: a/ -> b/ -> a/").
  static GroupIndex Build(const std::vector<lsf::Group>& groups);

  // Whether a group of this name exists.
  bool Has(std::string_view group) const;

  // If `member` belongs to `group` (directly, through nested subgroups, or
  // because the group is `all`), returns the chain of group names from
  // `group` down to the one that lists it, e.g. {"hg_all", "hg_small"}; a
  // group that is `all` ends the chain with "all". Returns nullopt when it
  // does not belong, or is excluded by a "~x" in the group or a subgroup.
  std::optional<std::vector<std::string>> Chain(std::string_view group,
                                                std::string_view member) const;

  // Whether `member` belongs to `group`, as Chain but without building the
  // chain: a few hash look-ups and no allocation.
  bool Contains(std::string_view group, std::string_view member) const;

  // Every name the group expands to, sorted; for an `all` group only the
  // explicit members (the caller knows what "all" means). `is_all` tells.
  std::vector<std::string> Expand(std::string_view group) const;
  bool IsAll(std::string_view group) const;

  // The groups as LSF printed them (for the API), by name.
  const lsf::Group* Find(std::string_view group) const;
  std::vector<std::string> Names() const;

  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Resolved {
    bool all = false;
    // member -> index of the direct subgroup it came through, or -1 when the
    // group lists it itself. Keeping only the next hop keeps this small for
    // thousands of hosts; Chain() walks the hops.
    StringMap<std::int32_t> members;
    StringSet excluded;
  };

  void Resolve(std::size_t index, std::vector<int>& state, std::vector<std::size_t>& stack);

  std::vector<lsf::Group> groups_;
  StringMap<std::size_t> by_name_;
  std::vector<Resolved> resolved_;
  std::vector<std::string> warnings_;
};

}  // namespace bplace
