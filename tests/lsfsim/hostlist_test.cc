// Pure parts: condensed ranges, member tokens, the definition loader and
// group/queue evaluation.

#include <gtest/gtest.h>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/hostlist.h"
#include "tests/lsfsim/resolver.h"

namespace bplace::lsfsim {
namespace {

using Names = std::vector<std::string>;

TEST(LsfsimRangeTest, ExpandsAndKeepsZeroPadding) {
  EXPECT_EQ(ExpandRange("node[001-003,007]"), Names({"node001", "node002", "node003", "node007"}));
  EXPECT_EQ(ExpandRange("n[8-10].ib"), Names({"n8.ib", "n9.ib", "n10.ib"}));
  EXPECT_EQ(ExpandRange("r[1-2]n[01-02]"), Names({"r1n01", "r1n02", "r2n01", "r2n02"}));
  EXPECT_EQ(ExpandRange("plain"), Names({"plain"}));
}

TEST(LsfsimRangeTest, RejectsBadSyntax) {
  for (const char* bad : {"node[001-", "node[]", "node[3-1]", "node[a-b]", "node[1,]", "x]"}) {
    EXPECT_EQ(ExpandRange(bad), std::nullopt) << bad;
  }
}

TEST(LsfsimTokenTest, SplitsExclusionGroupAndPreference) {
  MemberToken t = ParseMemberToken("~hg_gpu/+2");
  EXPECT_TRUE(t.excluded);
  EXPECT_TRUE(t.group_marker);
  EXPECT_EQ(t.preference, 2);
  EXPECT_EQ(t.name, "hg_gpu");
  EXPECT_TRUE(ParseMemberToken("host@cluster2").remote);
  EXPECT_TRUE(ParseMemberToken("allremote").remote);
  EXPECT_EQ(ParseMemberToken("others+1").name, "others");
  EXPECT_EQ(ParseMemberToken("c++").name, "c++");
}

constexpr const char* kCluster = R"toml(
[cluster]
name = "c"
master = "h1"
[[host]]
name = "h[1-4]"
[[host]]
name = "h1.ib.example.org"
[[host_group]]
name = "loop_a"
members = ["loop_b/", "h1"]
[[host_group]]
name = "loop_b"
members = ["loop_a/", "h2"]
[[host_group]]
name = "most"
members = ["all", "~h4", "~loop_b/"]
[[user_group]]
name = "ug"
members = ["all", "~mallory"]
[[queue]]
name = "q"
users = "ug/ ~eve"
hosts = "most/ h4+1"
administrators = "eve"
)toml";

TEST(LsfsimResolverTest, EvaluatesExclusionsCyclesAndAdmins) {
  auto cluster = ParseClusterDef(kCluster, "test.toml");
  ASSERT_TRUE(cluster) << cluster.error();
  Resolver resolver(*cluster);
  // The cycle loop_a -> loop_b -> loop_a resolves without hanging.
  HostSet loop = resolver.HostGroupHosts(*cluster->FindHostGroup("loop_a"));
  EXPECT_TRUE(loop[*cluster->FindHost("h1")]);
  EXPECT_TRUE(loop[*cluster->FindHost("h2")]);
  // `most` = all but h4 and loop_b (h1, h2): h3 and h1.ib.example.org.
  HostSet most = resolver.HostGroupHosts(*cluster->FindHostGroup("most"));
  EXPECT_EQ(most, HostSet({false, false, true, false, true}));
  EXPECT_EQ(resolver.HostGroupMembersDisplay(*cluster->FindHostGroup("most"), false),
            Names({"h3", "h1.ib.example.org"}));
  // q adds h4 back through a plain host token.
  EXPECT_EQ(resolver.QueueHosts(0), HostSet({false, false, true, true, true}));
  EXPECT_EQ(resolver.QueueHostsDisplay(0), Names({"most/", "h4+1"}));
  EXPECT_TRUE(resolver.UserCanUseQueue(0, "alice"));
  EXPECT_FALSE(resolver.UserCanUseQueue(0, "mallory"));
  // eve is excluded from USERS but administers the queue.
  EXPECT_TRUE(resolver.UserCanUseQueue(0, "eve"));
  EXPECT_EQ(resolver.HostsOfName("h1.ib"), std::nullopt);
}

TEST(LsfsimClusterDefTest, ReportsUnknownKeysWithLine) {
  auto cluster = ParseClusterDef(
      "[cluster]\nname = \"c\"\nmaster = \"h\"\n[[host]]\nname = \"h\"\nmax_slot = 4\n", "x.toml");
  ASSERT_FALSE(cluster);
  EXPECT_EQ(cluster.error(), "x.toml:6: [[host]]: unknown key 'max_slot'");
}

TEST(LsfsimClusterDefTest, RejectsBadValues) {
  const std::string head = "[cluster]\nname = \"c\"\nmaster = \"h\"\n[[host]]\nname = \"h\"\n";
  EXPECT_FALSE(ParseClusterDef(head + "status = \"closed\"\n", "x"));
  EXPECT_FALSE(ParseClusterDef(head + "[[queue]]\nname = \"q\"\nstatus = \"shut\"\n", "x"));
  EXPECT_FALSE(ParseClusterDef(head + "[[queue]]\nname = \"q\"\nrewrite_to = \"nope\"\n", "x"));
  EXPECT_FALSE(ParseClusterDef(head + "[[queue]]\nname = \"q\"\n[[queue]]\nname = \"q\"\n", "x"));
  EXPECT_FALSE(ParseClusterDef(head + "[[host_group]]\nname = \"h\"\nmembers = \"h\"\n", "x"));
  EXPECT_TRUE(ParseClusterDef(head + "[[queue]]\nname = \"q\"\n", "x"));
}

}  // namespace
}  // namespace bplace::lsfsim
