#include "lsf_adapter/group_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::ReadTestdata;
using testing::WithCrlf;
using Members = std::vector<std::string>;

struct GroupExpectation {
  std::string name;
  bool all;
  Members members;
};

void ExpectGroups(const Result<std::vector<Group>>& groups,
                  const std::vector<GroupExpectation>& expected) {
  ASSERT_TRUE(groups.has_value()) << groups.error().message;
  ASSERT_EQ(groups->size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*groups)[i].name, expected[i].name);
    EXPECT_EQ((*groups)[i].all, expected[i].all) << expected[i].name;
    EXPECT_EQ((*groups)[i].members, expected[i].members) << expected[i].name;
  }
}

struct GroupCapture {
  const char* file;
  bool users;
  std::vector<GroupExpectation> groups;
};

class GroupCaptureTest : public ::testing::TestWithParam<GroupCapture> {};

TEST_P(GroupCaptureTest, ParsesEveryGroupInOrder) {
  const GroupCapture& c = GetParam();
  const std::string text = ReadTestdata(c.file);
  ExpectGroups(c.users ? ParseBugroup(text) : ParseBmgroup(text), c.groups);
  ExpectGroups(c.users ? ParseBugroup(WithCrlf(text)) : ParseBmgroup(WithCrlf(text)), c.groups);
}

INSTANTIATE_TEST_SUITE_P(
    Captures, GroupCaptureTest,
    ::testing::Values(
        // hg_all names hg_gpu/ before hg_gpu's own row: order is kept.
        GroupCapture{"lsf/lsf10/bmgroup_w.txt",
                     false,
                     {{"hg_small", false, {"node001", "node002", "node003", "node004"}},
                      {"hg_all", false, {"hg_small/", "hg_gpu/", "login01"}},
                      {"hg_gpu", false, {"gpu01", "gpu02"}}}},
        GroupCapture{"lsf/lsf10/bugroup_w.txt",
                     true,
                     {{"grp_chem", false, {"alice", "bob", "carol"}},
                      {"grp_all", false, {"grp_chem/", "dave"}}}},
        GroupCapture{"lsf/openlava/bmgroup.txt",
                     false,
                     {{"hg_compute", false, {"vm"}},
                      {"hg_bigmem", false, {"vm"}},
                      {"hg_nested", false, {"hg_compute/", "hg_bigmem/"}},
                      {"hg_outer", false, {"hg_nested/"}}}},
        GroupCapture{"lsf/openlava/bmgroup_w.txt",
                     false,
                     {{"hg_compute", false, {"vm"}},
                      {"hg_bigmem", false, {"vm"}},
                      {"hg_nested", false, {"hg_compute/", "hg_bigmem/"}},
                      {"hg_outer", false, {"hg_nested/"}}}},
        GroupCapture{"lsf/openlava/bmgroup_r.txt",
                     false,
                     {{"hg_compute", false, {"vm"}},
                      {"hg_bigmem", false, {"vm"}},
                      {"hg_nested", false, {"vm"}},
                      {"hg_outer", false, {"vm"}}}},
        GroupCapture{
            "lsf/openlava/bugroup.txt",
            true,
            {{"ug_dev", false, {"alice", "bob"}}, {"ug_all", false, {"carol", "ug_dev/"}}}},
        GroupCapture{
            "lsf/openlava/bugroup_w.txt",
            true,
            {{"ug_dev", false, {"alice", "bob"}}, {"ug_all", false, {"carol", "ug_dev/"}}}},
        GroupCapture{
            "lsf/openlava/bugroup_r.txt",
            true,
            {{"ug_dev", false, {"alice", "bob"}}, {"ug_all", false, {"carol", "alice", "bob"}}}}));

TEST(ParseBmgroupTest, DropsTheGroupAdminColumn) {
  ExpectGroups(ParseBmgroup("GROUP_NAME    HOSTS                GROUP_ADMIN\n"
                            "hg_a         node1 node2 ( admins ) \n"
                            "hg_b         node3 ( - ) \n"
                            "hg_c         node4 (alice bob) \n"
                            "hg_d         node5 (carol)\n"
                            "hg_e         ( - ) \n"),
               {{"hg_a", false, {"node1", "node2"}},
                {"hg_b", false, {"node3"}},
                {"hg_c", false, {"node4"}},
                {"hg_d", false, {"node5"}},
                {"hg_e", false, {}}});
}

TEST(ParseBmgroupTest, RejectsAnUnclosedAdminColumn) {
  auto groups = ParseBmgroup("GROUP_NAME    HOSTS\nhg_a         node1 ( admin \n");
  ASSERT_FALSE(groups.has_value());
  EXPECT_EQ(groups.error().code, ErrorCode::kParseError);
  EXPECT_EQ(groups.error().message, "bmgroup -w line 2: '(' of the admin column is not closed");
  auto stray = ParseBmgroup("GROUP_NAME    HOSTS\nhg_a         node1 admin) \n");
  ASSERT_FALSE(stray.has_value());
  EXPECT_NE(stray.error().message.find("line 2"), std::string::npos);
}

TEST(ParseBmgroupTest, TreatsAListStartingWithAllAsAll) {
  ExpectGroups(ParseBmgroup("GROUP_NAME    HOSTS\n"
                            "hg_every     all hosts used by the batch system \n"
                            "hg_lsf       all hosts used by the LSF Batch system \n"
                            "hg_plain     all \n"
                            "hg_but       all ~node3 ~hg_bad/ \n"
                            "hg_admin     all ( - ) \n"),
               {{"hg_every", true, {}},
                {"hg_lsf", true, {}},
                {"hg_plain", true, {}},
                {"hg_but", true, {"~node3", "~hg_bad/"}},
                {"hg_admin", true, {}}});
  ExpectGroups(ParseBugroup("GROUP_NAME    USERS\nug_everyone  all users \n"),
               {{"ug_everyone", true, {}}});
}

TEST(ParseBmgroupTest, ExpandsCondensedRangesKeepingPaddingAndExclusions) {
  ExpectGroups(ParseBmgroup("GROUP_NAME    HOSTS\n"
                            "hg_r         node[001-003,007] gpu[8-10] ~node[1-2] login01 \n"),
               {{"hg_r",
                 false,
                 {"node001", "node002", "node003", "node007", "gpu8", "gpu9", "gpu10", "~node1",
                  "~node2", "login01"}}});
}

TEST(ParseBmgroupTest, NamesTheLineOfABadRange) {
  auto groups = ParseBmgroup("GROUP_NAME    HOSTS\nhg_ok  a \nhg_r  node[9-3] \n");
  ASSERT_FALSE(groups.has_value());
  EXPECT_EQ(groups.error().code, ErrorCode::kParseError);
  EXPECT_EQ(groups.error().message,
            "bmgroup -w line 3: host range \"node[9-3]\": range 9-3 is reversed");
}

TEST(ParseBugroupTest, KeepsBracketsInUserNamesAsPrinted) {
  ExpectGroups(ParseBugroup("GROUP_NAME    USERS\nug  odd[1-2] \n"), {{"ug", false, {"odd[1-2]"}}});
}

TEST(ParseBmgroupTest, ReturnsNotFoundForAnUnknownGroup) {
  auto groups = ParseBmgroup(ReadTestdata("lsf/openlava/bmgroup_nosuchgroup.err"));
  ASSERT_FALSE(groups.has_value());
  EXPECT_EQ(groups.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(groups.error().message, "nosuchgroup: No such user/host group");
  auto users = ParseBugroup("nosuch: No such user/host group\n");
  ASSERT_FALSE(users.has_value());
  EXPECT_EQ(users.error().code, ErrorCode::kNotFound);
}

TEST(ParseBmgroupTest, FailsWithNoHeaderOnEmptyInput) {
  for (const char* text : {"", "\r\n", "Connection refused by server\n"}) {
    auto groups = ParseBmgroup(text);
    ASSERT_FALSE(groups.has_value());
    EXPECT_EQ(groups.error().code, ErrorCode::kParseError);
    EXPECT_NE(groups.error().message.find("no header"), std::string::npos);
  }
}

TEST(ParseBmgroupTest, NamesTheMissingMemberColumn) {
  auto groups = ParseBmgroup(ReadTestdata("lsf/openlava/bugroup.txt"));
  ASSERT_FALSE(groups.has_value());
  EXPECT_EQ(groups.error().message, "bmgroup -w line 1: header has no HOSTS column");
  auto users = ParseBugroup(ReadTestdata("lsf/openlava/bmgroup.txt"));
  ASSERT_FALSE(users.has_value());
  EXPECT_EQ(users.error().message, "bugroup -w line 1: header has no USERS column");
}

TEST(ParseBmgroupTest, ReturnsNoGroupsForAHeaderWithoutRows) {
  auto groups = ParseBmgroup("GROUP_NAME    HOSTS\n");
  ASSERT_TRUE(groups.has_value()) << groups.error().message;
  EXPECT_TRUE(groups->empty());
}

TEST(ParseBmgroupTest, SkipsChatterBeforeTheHeader) {
  ExpectGroups(
      ParseBmgroup(
          "LSF is processing your request. Please wait...\nGROUP_NAME    HOSTS\nhg  a b \n"),
      {{"hg", false, {"a", "b"}}});
}

TEST(ParseBmgroupTest, JoinsAnIndentedLineToThePreviousGroup) {
  ExpectGroups(ParseBmgroup("GROUP_NAME    HOSTS\nhg  a b \n             c d \nhg2 e \n"),
               {{"hg", false, {"a", "b", "c", "d"}}, {"hg2", false, {"e"}}});
  auto orphan = ParseBmgroup("GROUP_NAME    HOSTS\n   a b \n");
  ASSERT_FALSE(orphan.has_value());
  EXPECT_EQ(orphan.error().message, "bmgroup -w line 2: row has no group name");
}

struct RangeCase {
  const char* name;
  Members expanded;
};

class ExpandHostRangeTest : public ::testing::TestWithParam<RangeCase> {};

TEST_P(ExpandHostRangeTest, ExpandsKeepingZeroPadding) {
  auto names = ExpandHostRange(GetParam().name);
  ASSERT_TRUE(names.has_value()) << names.error().message;
  EXPECT_EQ(*names, GetParam().expanded);
}

INSTANTIATE_TEST_SUITE_P(
    Ranges, ExpandHostRangeTest,
    ::testing::Values(RangeCase{"node01", {"node01"}},
                      RangeCase{"node[1-3]", {"node1", "node2", "node3"}},
                      RangeCase{"node[001-003,007]", {"node001", "node002", "node003", "node007"}},
                      RangeCase{"node[08-11]", {"node08", "node09", "node10", "node11"}},
                      RangeCase{"node[9-11]", {"node9", "node10", "node11"}},
                      RangeCase{"node[0-1]", {"node0", "node1"}}, RangeCase{"node[5]", {"node5"}},
                      RangeCase{"node[007]", {"node007"}},
                      RangeCase{"node[1-2].ib.example.org",
                                {"node1.ib.example.org", "node2.ib.example.org"}},
                      RangeCase{"~node[1-2]", {"~node1", "~node2"}},
                      RangeCase{"r[1-2]n[01-02]", {"r1n01", "r1n02", "r2n01", "r2n02"}},
                      RangeCase{"[3-4]", {"3", "4"}}));

TEST(ExpandHostRangeTest, ExpandsOneHundredTwentyNineHostsOfTheFormatsSample) {
  auto names = ExpandHostRange("node[001-128,130]");
  ASSERT_TRUE(names.has_value()) << names.error().message;
  ASSERT_EQ(names->size(), 129u);
  EXPECT_EQ(names->front(), "node001");
  EXPECT_EQ((*names)[127], "node128");
  EXPECT_EQ(names->back(), "node130");
}

TEST(ExpandHostRangeTest, AcceptsExactlyTheLimit) {
  auto names = ExpandHostRange("n[1-100000]");
  ASSERT_TRUE(names.has_value()) << names.error().message;
  EXPECT_EQ(names->size(), kMaxExpandedHosts);
}

class ExpandHostRangeErrorTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ExpandHostRangeErrorTest, RejectsWithInvalidArgument) {
  auto names = ExpandHostRange(GetParam());
  ASSERT_FALSE(names.has_value()) << GetParam();
  EXPECT_EQ(names.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(names.error().message.empty());
}

INSTANTIATE_TEST_SUITE_P(Malformed, ExpandHostRangeErrorTest,
                         ::testing::Values("", "node[", "node]", "node[]", "node[1-", "node[1-]",
                                           "node[-3]", "node[3-1]", "node[1,,2]", "node[1,]",
                                           "node[a-b]", "node[1-2-3]", "node[[1-2]]", "node[1-2]]",
                                           "node[+1]", "node[1 -2]", "node[1234567890]",
                                           "n[1-100001]", "n[1-1000]m[1-1000]", "n[0-999999999]"));

}  // namespace
}  // namespace bplace::lsf
