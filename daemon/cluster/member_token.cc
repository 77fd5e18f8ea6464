#include "daemon/cluster/member_token.h"

#include <charconv>

namespace bplace {

MemberToken ParseMemberToken(std::string_view token) {
  MemberToken result;
  result.text = std::string(token);
  std::string_view rest = token;
  if (!rest.empty() && rest.front() == '~') {
    result.exclude = true;
    rest.remove_prefix(1);
  }
  // "+N" preference suffix (lsb.queues: "host+2", "group/+1", "others+1").
  if (const auto plus = rest.rfind('+'); plus != std::string_view::npos && plus + 1 < rest.size()) {
    const std::string_view digits = rest.substr(plus + 1);
    int level = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), level);
    const bool all_digits = digits.find_first_not_of("0123456789") == std::string_view::npos;
    if (all_digits && ec == std::errc() && end == digits.data() + digits.size()) {
      result.preference = level;
      rest = rest.substr(0, plus);
    }
  }
  if (rest == "allremote" || rest.find('@') != std::string_view::npos) {
    result.kind = MemberToken::Kind::kRemote;
    result.name = std::string(rest);
    return result;
  }
  if (rest.size() > 1 && rest.back() == '/') {
    result.kind = MemberToken::Kind::kGroup;
    result.name = std::string(rest.substr(0, rest.size() - 1));
    return result;
  }
  result.name = std::string(rest);
  if (rest == "all") {
    result.kind = MemberToken::Kind::kAll;
  } else if (rest == "others") {
    result.kind = MemberToken::Kind::kOthers;
  } else if (rest == "none") {
    result.kind = MemberToken::Kind::kNone;
  } else {
    result.kind = MemberToken::Kind::kName;
  }
  return result;
}

}  // namespace bplace
