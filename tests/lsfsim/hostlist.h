#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bplace::lsfsim {

// Name lists as lsb.hosts, lsb.queues and lsb.users write them: condensed
// ranges (`node[001-010,012]`) and member tokens (`~x`, `name/`, `x+N`,
// `host@cluster`). Pure functions, thread-safe.

// Expands a condensed host name: `node[001-003,007]` gives node001 node002
// node003 node007. Zero padding is kept from the range's first number (LSF
// pads every number to the width of `001`). A name without brackets expands
// to itself. Returns nullopt on bad syntax (unbalanced brackets, a range
// whose end is below its start, non-digits, or more than 100000 names).
std::optional<std::vector<std::string>> ExpandRange(std::string_view pattern);

// Returns true when `token` contains a bracketed range.
bool IsRangePattern(std::string_view token);

// One member token of HOSTS, USERS, ADMINISTRATORS or a group definition.
struct MemberToken {
  std::string name;               // without `~`, trailing `/` and `+N`
  bool excluded = false;          // `~name`
  bool group_marker = false;      // written with a trailing `/`
  std::optional<int> preference;  // `+N`
  bool remote = false;            // `host@cluster`, `all@cluster`, `allremote`
};

// Splits a token like `~hg_gpu/`, `node07+2`, `others+1` or `hg/+3` into its
// parts. Never fails: anything unrecognised is a plain name.
MemberToken ParseMemberToken(std::string_view token);

}  // namespace bplace::lsfsim
