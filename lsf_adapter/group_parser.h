#pragma once

// Parsers of `bmgroup -w` (host groups) and `bugroup -w` (user groups), and
// the expansion of LSF's condensed host ranges. Pure functions: no I/O, safe
// from any thread.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace::lsf {

// Most hosts one condensed name may expand to; more is taken as garbage.
inline constexpr std::size_t kMaxExpandedHosts = 100000;

// Expands a condensed host name such as "node[001-003,007]" into
// {"node001", "node002", "node003", "node007"} (format of condensed host
// groups, LSF 10.1; see docs/lsf-formats.md "bmgroup / bugroup"). Zero padding
// is kept: a bound printed with leading zeros sets the width. Text around the
// brackets is kept ("~node[1-2]" gives "~node1", "~node2"); several bracket
// lists multiply ("r[1-2]n[1-2]" gives four names). A name without brackets is
// returned alone. Fails with kInvalidArgument for an empty name, malformed
// brackets (unclosed, stray ']', nested, empty list or item, a non-digit), a
// reversed range ("[5-3]"), a bound over 9 digits, or more than
// kMaxExpandedHosts names.
Result<std::vector<std::string>> ExpandHostRange(std::string_view name);

// Parses `bmgroup -w` or `bmgroup -w -r` output (format of LSF 10.1 and
// OpenLava/volclava 2.2; see docs/lsf-formats.md "bmgroup / bugroup") into
// groups in the order printed (a subgroup may come after the group that names
// it as "name/"). The header is the first line with a GROUP_NAME column
// (chatter before it is skipped) and must have a HOSTS column. A trailing
// group-administrator column in parentheses ("( - )", "(admin1 admin2)") is not
// a member. An indented line continues the previous group's members. A member
// list starting with "all" (including the sentence "all hosts used by the batch
// system") sets `all`; the sentence's words are dropped, other members such as
// "~node3" are kept. Condensed ranges are expanded with ExpandHostRange; "~x"
// members are kept as printed. Returns kNotFound when the text says "No such
// user/host group"; kParseError for no header, a header without HOSTS, an
// unbalanced admin column, a bad range, or an indented line before any group
// (each naming the line). Never throws.
Result<std::vector<Group>> ParseBmgroup(std::string_view text);

// Parses `bugroup -w` or `bugroup -w -r` output: as ParseBmgroup, with a USERS
// column instead of HOSTS, "all users" as the all sentence, and no range
// expansion (user names never use brackets, so they are kept as printed).
Result<std::vector<Group>> ParseBugroup(std::string_view text);

}  // namespace bplace::lsf
