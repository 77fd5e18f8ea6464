#include "daemon/cluster/topology.h"

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Via = HostAdmission::Via;

lsf::QueueDefinition Queue(std::string name, std::vector<std::string> hosts,
                           std::vector<std::string> users = {"all"},
                           std::vector<std::string> administrators = {}) {
  lsf::QueueDefinition queue;
  queue.name = std::move(name);
  queue.status = {true, true, "Open:Active"};
  queue.hosts = std::move(hosts);
  queue.users = std::move(users);
  queue.administrators = std::move(administrators);
  return queue;
}

lsf::Group G(std::string name, std::vector<std::string> members, bool all = false) {
  return lsf::Group{std::move(name), all, std::move(members)};
}

// Host groups of the LSF 10.1 sample (tests/testdata/lsf/lsf10/bmgroup_w.txt)
// plus a few edge cases.
std::vector<lsf::Group> HostGroups() {
  return {
      G("hg_all", {"hg_small/", "hg_gpu/", "login01"}),
      G("hg_small", {"node001", "node002", "node003", "node004"}),
      G("hg_gpu", {"gpu01", "gpu02"}),
      G("hg_bad", {"node003", "node004"}),
      G("node1x", {"node1"}),
      G("hg_every", {}, /*all=*/true),
  };
}

std::vector<lsf::Group> UserGroups() {
  return {
      G("grp_all", {"grp_chem/", "dave"}),
      G("grp_chem", {"alice", "bob", "carol"}),
      G("grp_phys", {"erin", "~bob"}),
      G("grp_admins", {"root2"}),
  };
}

// One topology holding a single queue with `hosts`, for AdmitHost cases.
struct OneQueue {
  std::shared_ptr<const Topology> topology;
  const QueueTopology& queue() const { return topology->queues().front(); }
};

OneQueue WithHosts(std::vector<std::string> hosts) {
  return {Topology::Build({Queue("q", std::move(hosts))}, HostGroups(), UserGroups())};
}

struct AdmitCase {
  std::string label;
  std::vector<std::string> hosts;  // the queue's HOSTS tokens
  std::string host;
  Via via;
  std::string token;               // deciding token; empty when none
  std::vector<std::string> chain;  // expected for kGroup
  int preference = 0;
};

std::ostream& operator<<(std::ostream& os, const AdmitCase& c) { return os << c.label; }

class AdmitHostTest : public ::testing::TestWithParam<AdmitCase> {};

TEST_P(AdmitHostTest, DecidesByTheRightToken) {
  const AdmitCase& c = GetParam();
  const OneQueue q = WithHosts(c.hosts);
  const HostAdmission admission = q.topology->AdmitHost(q.queue(), c.host);
  EXPECT_EQ(ViaName(admission.via), std::string(ViaName(c.via)));
  EXPECT_EQ(admission.token, c.token);
  if (c.via == Via::kGroup) {
    EXPECT_EQ(admission.chain, c.chain);
  }
  EXPECT_EQ(admission.preference, c.preference);
  EXPECT_EQ(admission.admitted(), c.via != Via::kNotListed && c.via != Via::kExcluded);
}

INSTANTIATE_TEST_SUITE_P(
    EveryTokenKind, AdmitHostTest,
    ::testing::Values(
        AdmitCase{"direct", {"node001", "node002"}, "node002", Via::kDirect, "node002", {}},
        AdmitCase{"direct_with_preference",
                  {"hg_gpu/", "node068+2"},
                  "node068",
                  Via::kDirect,
                  "node068+2",
                  {},
                  2},
        AdmitCase{"group", {"hg_small/"}, "node003", Via::kGroup, "hg_small/", {"hg_small"}},
        AdmitCase{"nested_group_chain",
                  {"hg_all/+2"},
                  "node001",
                  Via::kGroup,
                  "hg_all/+2",
                  {"hg_all", "hg_small"},
                  2},
        AdmitCase{"bare_group_name", {"hg_gpu"}, "gpu02", Via::kGroup, "hg_gpu", {"hg_gpu"}},
        AdmitCase{"all", {"all"}, "anyhost", Via::kAll, "all", {}},
        AdmitCase{
            "all_but_excluded_host", {"all", "~node3"}, "node3", Via::kExcluded, "~node3", {}},
        AdmitCase{"all_other_host_of_exclusion", {"all", "~node3"}, "node4", Via::kAll, "all", {}},
        AdmitCase{"all_but_excluded_group",
                  {"all", "~hg_bad/"},
                  "node004",
                  Via::kExcluded,
                  "~hg_bad/",
                  {}},
        AdmitCase{"exclusion_wins_over_direct",
                  {"node003", "~hg_bad/"},
                  "node003",
                  Via::kExcluded,
                  "~hg_bad/",
                  {}},
        AdmitCase{"exclusion_written_first",
                  {"~node001", "hg_small/"},
                  "node001",
                  Via::kExcluded,
                  "~node001",
                  {}},
        AdmitCase{"direct_beats_group",
                  {"hg_small/", "node001+1"},
                  "node001",
                  Via::kDirect,
                  "node001+1",
                  {},
                  1},
        AdmitCase{"group_beats_all",
                  {"all", "hg_gpu/+3"},
                  "gpu01",
                  Via::kGroup,
                  "hg_gpu/+3",
                  {"hg_gpu"},
                  3},
        AdmitCase{"others_for_unnamed_host",
                  {"hg_small/", "others"},
                  "gpu01",
                  Via::kOthers,
                  "others",
                  {}},
        AdmitCase{"others_not_for_named_host",
                  {"hg_small/", "others"},
                  "node002",
                  Via::kGroup,
                  "hg_small/",
                  {"hg_small"}},
        AdmitCase{"others_with_preference",
                  {"node068+2", "others+1"},
                  "node070",
                  Via::kOthers,
                  "others+1",
                  {},
                  1},
        AdmitCase{"named_host_beside_others_preference",
                  {"node068+2", "others+1"},
                  "node068",
                  Via::kDirect,
                  "node068+2",
                  {},
                  2},
        AdmitCase{"others_does_not_undo_exclusion",
                  {"~node3", "others"},
                  "node3",
                  Via::kExcluded,
                  "~node3",
                  {}},
        AdmitCase{"none", {"none"}, "node001", Via::kNotListed, "", {}},
        AdmitCase{"remote_host", {"node001@cluster2"}, "node001", Via::kNotListed, "", {}},
        AdmitCase{"all_at_cluster", {"all@cluster2"}, "node001", Via::kNotListed, "", {}},
        AdmitCase{"allremote", {"allremote"}, "node001", Via::kNotListed, "", {}},
        AdmitCase{"not_listed", {"hg_gpu/", "login01"}, "node001", Via::kNotListed, "", {}},
        AdmitCase{"unknown_group_is_empty", {"hg_missing/"}, "node001", Via::kNotListed, "", {}},
        AdmitCase{"range_in_hosts", {"node[001-003]"}, "node002", Via::kDirect, "node002", {}},
        AdmitCase{"range_keeps_padding", {"node[001-003]"}, "node2", Via::kNotListed, "", {}},
        AdmitCase{"excluded_range",
                  {"all", "~node[001-002]"},
                  "node001",
                  Via::kExcluded,
                  "~node001",
                  {}}));

// A group defined as all hosts admits any host; whether that reads as "group"
// or "all", the explanation ends the chain in "all".
TEST(TopologyTest, GroupDefinedAsAllAdmitsAnyHost) {
  const OneQueue q = WithHosts({"hg_every/"});
  const HostAdmission admission = q.topology->AdmitHost(q.queue(), "whatever");
  EXPECT_TRUE(admission.admitted());
  EXPECT_EQ(admission.token, "hg_every/");
  if (admission.via == Via::kGroup) {
    EXPECT_THAT(admission.chain, ElementsAre("hg_every", "all"));
  }
}

struct ExactCase {
  std::string host;
};
std::ostream& operator<<(std::ostream& os, const ExactCase& c) { return os << c.host; }

class AdmitHostExactNameTest : public ::testing::TestWithParam<ExactCase> {};

// "node1" in HOSTS names that host only: never a substring, a word, another
// case, nor a group whose name starts the same (docs/lsf-formats.md "Tokens in
// HOSTS and USERS").
TEST_P(AdmitHostExactNameTest, NeverMatchesSimilarNames) {
  const OneQueue q = WithHosts({"node1"});
  EXPECT_EQ(q.topology->AdmitHost(q.queue(), GetParam().host).via, Via::kNotListed);
}

INSTANTIATE_TEST_SUITE_P(SimilarNames, AdmitHostExactNameTest,
                         ::testing::Values(ExactCase{"node1.ib.example.org"}, ExactCase{"Node1"},
                                           ExactCase{"node10"}, ExactCase{"node"},
                                           ExactCase{"node1x"}, ExactCase{"xnode1"},
                                           ExactCase{" node1"}));

TEST(TopologyTest, ExactHostStillMatches) {
  const OneQueue q = WithHosts({"node1"});
  EXPECT_EQ(q.topology->AdmitHost(q.queue(), "node1").via, Via::kDirect);
}

TEST(TopologyTest, FullyQualifiedNameMatchesOnlyItself) {
  const OneQueue q = WithHosts({"node1.ib.example.org"});
  EXPECT_EQ(q.topology->AdmitHost(q.queue(), "node1").via, Via::kNotListed);
  EXPECT_EQ(q.topology->AdmitHost(q.queue(), "node1.ib.example.org").via, Via::kDirect);
}

TEST(TopologyTest, GroupWhoseNameExtendsHostNameIsNotTheHost) {
  // hg "node1x" holds node1; HOSTS names the group, so node1x itself is not a host.
  const OneQueue q = WithHosts({"node1x/"});
  EXPECT_EQ(q.topology->AdmitHost(q.queue(), "node1").via, Via::kGroup);
  EXPECT_EQ(q.topology->AdmitHost(q.queue(), "node1x").via, Via::kNotListed);
}

TEST(TopologyTest, DescribesAdmissionForPeople) {
  const OneQueue q = WithHosts({"hg_all/+2", "~node004", "login02", "others"});
  const Topology& t = *q.topology;
  EXPECT_EQ(DescribeAdmission(t.AdmitHost(q.queue(), "node001")),
            "via host group hg_all/ -> hg_small/ (hg_all/+2)");
  EXPECT_EQ(DescribeAdmission(t.AdmitHost(q.queue(), "node004")), "excluded by ~node004 in HOSTS");
  EXPECT_EQ(DescribeAdmission(t.AdmitHost(q.queue(), "login02")), "named in HOSTS (login02)");
  EXPECT_EQ(DescribeAdmission(t.AdmitHost(q.queue(), "zz")), "via others (others)");
  EXPECT_EQ(DescribeAdmission(HostAdmission{}), "not in HOSTS");
  EXPECT_STREQ(ViaName(Via::kNotListed), "not_listed");
  EXPECT_STREQ(ViaName(Via::kExcluded), "excluded");
  EXPECT_STREQ(ViaName(Via::kDirect), "direct");
  EXPECT_STREQ(ViaName(Via::kGroup), "group");
  EXPECT_STREQ(ViaName(Via::kAll), "all");
  EXPECT_STREQ(ViaName(Via::kOthers), "others");
}

TEST(TopologyTest, MarksQueuesWithRemoteHosts) {
  const auto topology =
      Topology::Build({Queue("mc", {"all@cluster2"}), Queue("mixed", {"node001", "h9@c2"}),
                       Queue("remote_all", {"allremote"}), Queue("local", {"hg_small/"})},
                      HostGroups(), {});
  EXPECT_TRUE(topology->FindQueue("mc")->has_remote_hosts);
  EXPECT_TRUE(topology->FindQueue("mixed")->has_remote_hosts);
  EXPECT_TRUE(topology->FindQueue("remote_all")->has_remote_hosts);
  EXPECT_FALSE(topology->FindQueue("local")->has_remote_hosts);
}

TEST(TopologyTest, FindsQueuesByExactName) {
  const auto topology =
      Topology::Build({Queue("normal", {"all"}), Queue("general-interactive", {"all"})}, {}, {});
  EXPECT_NE(topology->FindQueue("general-interactive"), nullptr);
  EXPECT_EQ(topology->FindQueue("general-interac"), nullptr);
  EXPECT_EQ(topology->FindQueue("Normal"), nullptr);
  EXPECT_EQ(topology->queues().size(), 2u);
  EXPECT_EQ(topology->queues()[0].definition.name, "normal");
}

TEST(TopologyTest, NamesHostsFromGroupsAndHostsLinesOnly) {
  const auto topology = Topology::Build(
      {Queue("q", {"node068+2", "~node099", "node[201-202]", "all@c2"})}, HostGroups(), {});
  EXPECT_TRUE(topology->NamesHost("node001")) << "member of a host group";
  EXPECT_TRUE(topology->NamesHost("login01"));
  EXPECT_TRUE(topology->NamesHost("node068")) << "named in HOSTS with a preference";
  EXPECT_TRUE(topology->NamesHost("node202")) << "from a range in HOSTS";
  EXPECT_FALSE(topology->NamesHost("node099")) << "only excluded";
  EXPECT_FALSE(topology->NamesHost("hg_small")) << "a group is not a host";
  EXPECT_FALSE(topology->NamesHost("node0"));
  EXPECT_FALSE(topology->NamesHost("all"));
}

TEST(TopologyTest, WarnsAboutUnknownGroupsCyclesAndBadRanges) {
  const auto topology = Topology::Build({Queue("q", {"hg_missing/", "node[5-3]", "node001"})},
                                        {G("a", {"b/"}), G("b", {"a/"})}, {G("u", {"u/"})});
  const auto& warnings = topology->warnings();
  auto has = [&](const std::string& part) {
    return std::any_of(warnings.begin(), warnings.end(),
                       [&](const std::string& w) { return w.find(part) != std::string::npos; });
  };
  EXPECT_TRUE(has("hg_missing/"));
  EXPECT_TRUE(has("node[5-3]"));
  EXPECT_TRUE(has("host group cycle"));
  EXPECT_TRUE(has("user group cycle"));
  // The bad range is dropped; the rest of the line still works.
  const QueueTopology& q = *topology->FindQueue("q");
  EXPECT_EQ(topology->AdmitHost(q, "node001").via, Via::kDirect);
  EXPECT_EQ(topology->AdmitHost(q, "node4").via, Via::kNotListed);
}

TEST(TopologyTest, ParsesUsersTokens) {
  const auto topology =
      Topology::Build({Queue("q", {"all"}, {"grp_chem/", "~bob", "dave"})}, {}, UserGroups());
  const QueueTopology& q = topology->queues().front();
  ASSERT_EQ(q.users.size(), 3u);
  EXPECT_EQ(q.users[0].kind, MemberToken::Kind::kGroup);
  EXPECT_TRUE(q.users[1].exclude);
  EXPECT_EQ(q.users[2].name, "dave");
}

struct UserCase {
  std::string label;
  std::vector<std::string> users;
  std::vector<std::string> administrators;
  std::string user;
  bool admitted;
  std::string explanation_part;
};
std::ostream& operator<<(std::ostream& os, const UserCase& c) { return os << c.label; }

class AdmitUserTest : public ::testing::TestWithParam<UserCase> {};

TEST_P(AdmitUserTest, ExplainsDecision) {
  const UserCase& c = GetParam();
  const auto topology =
      Topology::Build({Queue("q", {"all"}, c.users, c.administrators)}, {}, UserGroups());
  const UserAdmission admission = topology->AdmitUser(topology->queues().front(), c.user);
  EXPECT_EQ(admission.admitted, c.admitted);
  EXPECT_THAT(admission.explanation, HasSubstr(c.explanation_part));
}

INSTANTIATE_TEST_SUITE_P(
    UsersLine, AdmitUserTest,
    ::testing::Values(
        UserCase{"all", {"all"}, {}, "zed", true, "all"},
        UserCase{"named", {"alice", "bob"}, {}, "bob", true, "named in USERS"},
        UserCase{"not_named", {"alice", "bob"}, {}, "bobby", false, "not in USERS: alice bob"},
        UserCase{"case_sensitive", {"alice"}, {}, "Alice", false, "not in USERS"},
        UserCase{"group", {"grp_chem/"}, {}, "carol", true, "user group grp_chem/"},
        UserCase{"nested_group", {"grp_all/"}, {}, "alice", true, "user group grp_all/"},
        UserCase{"not_in_group", {"grp_chem/"}, {}, "dave", false, "not in USERS: grp_chem/"},
        UserCase{"excluded_user", {"all", "~bob"}, {}, "bob", false, "excluded by ~bob"},
        UserCase{"other_user_of_exclusion", {"all", "~bob"}, {}, "alice", true, "all"},
        UserCase{
            "excluded_group", {"all", "~grp_chem/"}, {}, "carol", false, "excluded by ~grp_chem/"},
        UserCase{"exclusion_inside_group", {"grp_phys/"}, {}, "bob", false, "not in USERS"},
        UserCase{"administrator", {"alice"}, {"hpcadm"}, "hpcadm", true, "queue administrator"},
        UserCase{"administrator_despite_exclusion",
                 {"all", "~hpcadm"},
                 {"hpcadm"},
                 "hpcadm",
                 true,
                 "administrator"},
        UserCase{
            "administrators_group", {"alice"}, {"grp_admins"}, "root2", true, "administrator"}));

// LSF administrators (lsclusters -l) may use every queue; queue
// administrators only their own.
TEST(TopologyTest, LsfAdministratorsAreAdmittedToEveryQueueQueueAdministratorsToTheirs) {
  const auto topology =
      Topology::Build({Queue("chem", {"all"}, {"grp_chem/"}, {"hpcadm"}),
                       Queue("phys", {"all"}, {"~lsfadmin"}), Queue("gpu", {"all"}, {"alice"})},
                      {}, UserGroups(), LsfAdministrators{{"lsfadmin", "grp_admins"}, ""});
  EXPECT_TRUE(topology->warnings().empty());
  for (const QueueTopology& queue : topology->queues()) {
    const UserAdmission lsfadmin = topology->AdmitUser(queue, "lsfadmin");
    EXPECT_TRUE(lsfadmin.admitted) << queue.definition.name;
    EXPECT_EQ(lsfadmin.explanation, "lsfadmin is an LSF administrator (lsfadmin, lsclusters -l)");
    // A member of a user group named as an LSF administrator counts too.
    EXPECT_THAT(topology->AdmitUser(queue, "root2").explanation,
                HasSubstr("LSF administrator (grp_admins"));
  }
  const QueueTopology& chem = *topology->FindQueue("chem");
  const QueueTopology& gpu = *topology->FindQueue("gpu");
  EXPECT_THAT(topology->AdmitUser(chem, "hpcadm").explanation, HasSubstr("queue administrator"));
  EXPECT_FALSE(topology->AdmitUser(gpu, "hpcadm").admitted);
  EXPECT_THAT(topology->lsf_administrators(), ElementsAre("lsfadmin", "grp_admins"));
}

TEST(TopologyTest, UnknownLsfAdministratorsAreAWarningAndAdmitNobody) {
  const auto topology = Topology::Build({Queue("gpu", {"all"}, {"alice"})}, {}, UserGroups(),
                                        LsfAdministrators{{}, "lsclusters -l: LIM is down"});
  ASSERT_EQ(topology->warnings().size(), 1u);
  EXPECT_EQ(topology->warnings().front(),
            "LSF administrators unknown (lsclusters -l: LIM is down): USERS lines are read "
            "without them");
  EXPECT_FALSE(topology->AdmitUser(topology->queues().front(), "lsfadmin").admitted);
}

}  // namespace
}  // namespace bplace
