#include "daemon/cluster/member_token.h"

#include <ostream>
#include <string>

#include <gtest/gtest.h>

namespace bplace {
namespace {

using Kind = MemberToken::Kind;

struct TokenCase {
  std::string text;
  Kind kind;
  bool exclude;
  std::string name;
  int preference;
};

std::ostream& operator<<(std::ostream& os, const TokenCase& c) {
  return os << '"' << c.text << '"';
}

class ParseMemberTokenTest : public ::testing::TestWithParam<TokenCase> {};

TEST_P(ParseMemberTokenTest, SplitsTokenIntoItsParts) {
  const TokenCase& c = GetParam();
  const MemberToken token = ParseMemberToken(c.text);
  EXPECT_EQ(token.kind, c.kind);
  EXPECT_EQ(token.exclude, c.exclude);
  EXPECT_EQ(token.name, c.name);
  EXPECT_EQ(token.preference, c.preference);
  EXPECT_EQ(token.text, c.text) << "the token as printed is kept for explanations";
}

// Forms of docs/lsf-formats.md "Tokens in HOSTS and USERS".
INSTANTIATE_TEST_SUITE_P(
    EveryForm, ParseMemberTokenTest,
    ::testing::Values(TokenCase{"node007", Kind::kName, false, "node007", 0},
                      TokenCase{"alice", Kind::kName, false, "alice", 0},
                      TokenCase{"node1.ib.example.org", Kind::kName, false, "node1.ib.example.org",
                                0},
                      TokenCase{"hg_small/", Kind::kGroup, false, "hg_small", 0},
                      TokenCase{"~node3", Kind::kName, true, "node3", 0},
                      TokenCase{"~hg_bad/", Kind::kGroup, true, "hg_bad", 0},
                      TokenCase{"node68+2", Kind::kName, false, "node68", 2},
                      TokenCase{"hg_small/+1", Kind::kGroup, false, "hg_small", 1},
                      TokenCase{"others+1", Kind::kOthers, false, "others", 1},
                      TokenCase{"others", Kind::kOthers, false, "others", 0},
                      TokenCase{"all", Kind::kAll, false, "all", 0},
                      TokenCase{"none", Kind::kNone, false, "none", 0},
                      TokenCase{"h1@cluster2", Kind::kRemote, false, "h1@cluster2", 0},
                      TokenCase{"all@cluster2", Kind::kRemote, false, "all@cluster2", 0},
                      TokenCase{"allremote", Kind::kRemote, false, "allremote", 0},
                      // A '+' not followed by digits only is part of the name.
                      TokenCase{"a+b", Kind::kName, false, "a+b", 0},
                      TokenCase{"node+", Kind::kName, false, "node+", 0},
                      TokenCase{"gpu+2x", Kind::kName, false, "gpu+2x", 0},
                      // Only the last "+N" is a preference.
                      TokenCase{"a+b+3", Kind::kName, false, "a+b", 3},
                      // Words that merely contain a keyword are names.
                      TokenCase{"allnodes", Kind::kName, false, "allnodes", 0},
                      TokenCase{"others2", Kind::kName, false, "others2", 0},
                      TokenCase{"nonexistent", Kind::kName, false, "nonexistent", 0},
                      TokenCase{"All", Kind::kName, false, "All", 0}));

// BUG: ParseMemberToken reads "+N" with std::from_chars, which accepts a
// leading '-': "node1+-1" becomes name "node1" with preference -1, although
// the contract says "+N" is read only when N is all digits.
TEST(ParseMemberTokenEdgeTest, SignedSuffixIsPartOfTheName) {
  const MemberToken token = ParseMemberToken("node1+-1");
  EXPECT_EQ(token.kind, Kind::kName);
  EXPECT_EQ(token.name, "node1+-1");
  EXPECT_EQ(token.preference, 0);
}

TEST(ParseMemberTokenEdgeTest, HugePreferenceDoesNotOverflow) {
  const MemberToken token = ParseMemberToken("node1+99999999999999999999");
  EXPECT_EQ(token.kind, Kind::kName);
  EXPECT_GE(token.preference, 0);
}

TEST(ParseMemberTokenEdgeTest, DegenerateTokensNeverCrash) {
  for (const char* text : {"", "~", "/", "~/", "+", "+1", "~+1", "@", "~@x", "//", "~~x"}) {
    const MemberToken token = ParseMemberToken(text);
    EXPECT_EQ(token.text, text);
  }
}

}  // namespace
}  // namespace bplace
