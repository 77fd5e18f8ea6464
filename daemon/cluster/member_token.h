#pragma once

#include <string>
#include <string_view>

namespace bplace {

// One token of a queue's HOSTS or USERS line as `bqueues -l` prints it (which
// echoes lsb.queues; see docs/lsf-formats.md "Tokens in HOSTS and USERS").
struct MemberToken {
  enum class Kind {
    kName,    // a host or user name ("node007", "alice"); may also name a group without "/"
    kGroup,   // "hg_small/" or "ug_chem/"
    kAll,     // "all": every host / every user
    kOthers,  // "others": every host not named elsewhere in the same list
    kNone,    // "none": no host
    kRemote,  // "host@cluster", "all@cluster", "allremote": MultiCluster, not placeable here
  };
  Kind kind = Kind::kName;
  bool exclude = false;  // written "~x": x is taken out wherever else it appears
  std::string name;      // without "~", "/", "+N"
  int preference = 0;    // the N of "x+N"; 0 when absent. Membership does not depend on it.
  std::string text;      // the token as printed, for explanations
};

// Splits one token into its parts. Never fails: anything that is not one of
// the special forms is a name. `~` binds to the whole token; "+N" is read only
// when N is all digits, so a host literally named "a+b" stays a name.
MemberToken ParseMemberToken(std::string_view token);

}  // namespace bplace
