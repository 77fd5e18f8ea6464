#include "lsf_adapter/bqueues_long_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::ReadTestdata;
using testing::WithCrlf;
using Tokens = std::vector<std::string>;

// A minimal queue block around `lines`, which go after the statistics rows.
std::string Block(const std::string& name, const std::string& lines) {
  return "\nQUEUE: " + name +
         "\n  -- A test queue.\n\n"
         "PARAMETERS/STATISTICS\n"
         "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV \n"
         " 30   20  Open:Active       -    -    -    -     0     0     0     0     0    0\n"
         "Interval for a host to accept two jobs is 0 seconds\n\n" +
         lines;
}

TEST(ParseBqueuesLongTest, ParsesLsf10SampleWithBothQueues) {
  auto queues = ParseBqueuesLong(ReadTestdata("lsf/lsf10/bqueues_l.txt"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  ASSERT_EQ(queues->size(), 2u);

  const QueueDefinition& normal = (*queues)[0];
  EXPECT_EQ(normal.name, "normal");
  EXPECT_TRUE(normal.is_default);
  EXPECT_EQ(normal.description,
            "For normal low priority jobs, running only if hosts are lightly loaded.  This is the "
            "default queue.");
  EXPECT_EQ(normal.prio, 30);
  EXPECT_EQ(normal.nice, 20);
  EXPECT_EQ(normal.status.text, "Open:Active");
  EXPECT_FALSE(normal.max.has_value());
  EXPECT_EQ(normal.users, Tokens{"all"});
  EXPECT_EQ(normal.hosts, Tokens{"all"});
  EXPECT_TRUE(normal.administrators.empty());
  EXPECT_EQ(normal.res_req, "");

  const QueueDefinition& small = (*queues)[1];
  EXPECT_EQ(small.name, "small");
  EXPECT_FALSE(small.is_default);
  // The " on nodes:" line is not part of the description.
  EXPECT_EQ(small.description,
            "Maximum number of job slots that each user can use in this queue is 720.");
  EXPECT_EQ(small.prio, 57);
  EXPECT_EQ(small.max, 720);
  EXPECT_EQ(small.jl_u, 120);
  EXPECT_FALSE(small.jl_p.has_value());
  EXPECT_EQ(small.njobs, 1964);
  EXPECT_EQ(small.pend, 1464);
  EXPECT_EQ(small.run, 500);
  EXPECT_EQ(small.ssusp, 0);
  EXPECT_EQ(small.ususp, 0);
  EXPECT_EQ(small.rsv, 0);
  EXPECT_EQ(small.administrators, Tokens{"hpcadm"});
  EXPECT_EQ(small.users, (Tokens{"grp_chem/", "grp_phys/", "alice"}));
  EXPECT_EQ(small.hosts, (Tokens{"hg_small/", "node68+2", "others+1"}));
  EXPECT_EQ(small.res_req, "span[ptile=24]");
}

struct QueueExpectation {
  std::string name;
  int prio;
  int nice;
  std::string status;
  bool open;
  bool active;
  Tokens users;
  Tokens hosts;
  Tokens administrators;
  std::string res_req;
  bool is_default;
};

TEST(ParseBqueuesLongTest, ParsesEveryQueueOfTheOpenLavaCapture) {
  const std::vector<QueueExpectation> expected = {
      {"adminq",
       50,
       0,
       "Open:Active",
       true,
       true,
       {"root", "lsfadmin"},
       {"all"},
       {"lsfadmin"},
       "",
       false},
      {"short", 40, 10, "Open:Active", true, true, {"all"}, {"hg_nested/"}, {}, "", false},
      {"devq", 35, 0, "Open:Active", true, true, {"ug_dev/"}, {"hg_compute/"}, {}, "", false},
      {"aliceq", 35, 0, "Open:Active", true, true, {"alice"}, {"vm"}, {}, "", false},
      {"normal", 30, 20, "Open:Active", true, true, {"all"}, {"hg_compute/"}, {}, "", true},
      {"bigmem",
       25,
       0,
       "Open:Active",
       true,
       true,
       {"all"},
       {"hg_bigmem/"},
       {},
       "select[bigmem]",
       false},
      {"outer", 20, 0, "Open:Active", true, true, {"all"}, {"hg_outer/"}, {}, "", false},
      {"closedq", 10, 0, "Closed:Active", false, true, {"all"}, {"hg_compute/"}, {}, "", false},
      {"inactq", 10, 0, "Open:Inact_Adm", true, false, {"all"}, {"hg_compute/"}, {}, "", false},
  };
  for (const std::string& text : {ReadTestdata("lsf/openlava/bqueues_l.txt"),
                                  WithCrlf(ReadTestdata("lsf/openlava/bqueues_l.txt"))}) {
    auto queues = ParseBqueuesLong(text);
    ASSERT_TRUE(queues.has_value()) << queues.error().message;
    ASSERT_EQ(queues->size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const QueueDefinition& q = (*queues)[i];
      const QueueExpectation& e = expected[i];
      SCOPED_TRACE(e.name);
      EXPECT_EQ(q.name, e.name);
      EXPECT_EQ(q.prio, e.prio);
      EXPECT_EQ(q.nice, e.nice);
      EXPECT_EQ(q.status.text, e.status);
      EXPECT_EQ(q.status.open, e.open);
      EXPECT_EQ(q.status.active, e.active);
      EXPECT_EQ(q.users, e.users);
      EXPECT_EQ(q.hosts, e.hosts);
      EXPECT_EQ(q.administrators, e.administrators);
      EXPECT_EQ(q.res_req, e.res_req);
      EXPECT_EQ(q.is_default, e.is_default);
      EXPECT_FALSE(q.description.empty());
      EXPECT_EQ(q.njobs, 0);
    }
    EXPECT_EQ((*queues)[5].max, 2);
    EXPECT_EQ((*queues)[1].jl_u, 4);
  }
}

TEST(ParseBqueuesLongTest, ParsesASingleQueueCapture) {
  auto queues = ParseBqueuesLong(ReadTestdata("lsf/openlava/bqueues_l_normal.txt"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  ASSERT_EQ(queues->size(), 1u);
  EXPECT_EQ((*queues)[0].name, "normal");
  EXPECT_TRUE((*queues)[0].is_default);
  EXPECT_EQ((*queues)[0].description,
            "Default queue, hosts from host group hg_compute.  This is the default queue.");
}

TEST(ParseBqueuesLongTest, TurnsOpenLavaAllSentencesIntoAll) {
  auto queues = ParseBqueuesLong(
      Block("q1", "USERS:  all users\nHOSTS:  all hosts used by the LSF Batch system\n") +
      Block("q2", "USERS:  all \nHOSTS:  all hosts used by the batch system \n"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  ASSERT_EQ(queues->size(), 2u);
  for (const QueueDefinition& q : *queues) {
    EXPECT_EQ(q.users, Tokens{"all"}) << q.name;
    EXPECT_EQ(q.hosts, Tokens{"all"}) << q.name;
  }
}

TEST(ParseBqueuesLongTest, KeepsExclusionsAfterAll) {
  auto queues = ParseBqueuesLong(Block("q", "USERS: all ~bob\nHOSTS:  all ~hostA ~hg_bad/\n"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ((*queues)[0].users, (Tokens{"all", "~bob"}));
  EXPECT_EQ((*queues)[0].hosts, (Tokens{"all", "~hostA", "~hg_bad/"}));
}

TEST(ParseBqueuesLongTest, MeansAllWhenUsersAndHostsLinesAreAbsent) {
  auto queues = ParseBqueuesLong(Block("q", "RES_REQ:  select[mem>100]\n"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ((*queues)[0].users, Tokens{"all"});
  EXPECT_EQ((*queues)[0].hosts, Tokens{"all"});
  EXPECT_EQ((*queues)[0].res_req, "select[mem>100]");
}

TEST(ParseBqueuesLongTest, JoinsContinuationLinesUpToABlankOrKeyLine) {
  auto queues = ParseBqueuesLong(Block("q",
                                       "USERS: alice bob\n"
                                       "        carol\n"
                                       "            grp_x/\n"
                                       "HOSTS:  node1 node2\n"
                                       "        node3 hg_a/\n"
                                       "ADMINISTRATORS:  admin1\n"
                                       "   admin2\n"
                                       "RES_REQ:  select[mem>100]\n"
                                       "          rusage[mem=10]\n"
                                       "\n"
                                       "   not a continuation\n"
                                       "SCHEDULING POLICIES:  FAIRSHARE\n"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  const QueueDefinition& q = (*queues)[0];
  EXPECT_EQ(q.users, (Tokens{"alice", "bob", "carol", "grp_x/"}));
  EXPECT_EQ(q.hosts, (Tokens{"node1", "node2", "node3", "hg_a/"}));
  EXPECT_EQ(q.administrators, (Tokens{"admin1", "admin2"}));
  EXPECT_EQ(q.res_req, "select[mem>100] rusage[mem=10]");
}

TEST(ParseBqueuesLongTest, StopsAContinuationAtAnIndentedKeyLine) {
  auto queues = ParseBqueuesLong(Block("q", "HOSTS:  node1\n  USERS: alice\n"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ((*queues)[0].hosts, Tokens{"node1"});
  EXPECT_EQ((*queues)[0].users, Tokens{"alice"});
}

TEST(ParseBqueuesLongTest, AcceptsAnyNumberOfSpacesAfterTheColon) {
  auto queues = ParseBqueuesLong(Block("q", "USERS:alice\nHOSTS:        node1\n"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ((*queues)[0].users, Tokens{"alice"});
  EXPECT_EQ((*queues)[0].hosts, Tokens{"node1"});
}

TEST(ParseBqueuesLongTest, JoinsSeveralDescriptionLines) {
  auto queues = ParseBqueuesLong(
      "QUEUE: multi\n"
      "  -- First line of the description.\n"
      "  -- Second line.  This is the default queue.\n"
      "\n"
      "PARAMETERS/STATISTICS\n"
      "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV\n"
      " 30   20  Open:Active       -    -    -    -     0     0     0     0     0    0\n");
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ((*queues)[0].description,
            "First line of the description. Second line.  This is the default queue.");
  EXPECT_TRUE((*queues)[0].is_default);
}

TEST(ParseBqueuesLongTest, FindsStatisticsByHeaderNameWhenColumnsAreAddedOrMoved) {
  auto queues = ParseBqueuesLong(
      "QUEUE: q\n"
      "PARAMETERS/STATISTICS\n"
      "PRIO STATUS NICE MAX JL/U JL/P JL/H NJOBS PEND RUN SSUSP USUSP RSV PJOBS\n"
      " 12 Closed:Inact_Wi -5 64 8 - 2 10 4 5 1 0 3 77\n");
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  const QueueDefinition& q = (*queues)[0];
  EXPECT_EQ(q.prio, 12);
  EXPECT_EQ(q.nice, -5);
  EXPECT_FALSE(q.status.open);
  EXPECT_FALSE(q.status.active);
  EXPECT_EQ(q.max, 64);
  EXPECT_EQ(q.jl_u, 8);
  EXPECT_EQ(q.jl_h, 2);
  EXPECT_EQ(q.njobs, 10);
  EXPECT_EQ(q.pend, 4);
  EXPECT_EQ(q.run, 5);
  EXPECT_EQ(q.ssusp, 1);
  EXPECT_EQ(q.ususp, 0);
  EXPECT_EQ(q.rsv, 3);
}

TEST(ParseBqueuesLongTest, SkipsChatterBeforeTheFirstQueue) {
  auto queues = ParseBqueuesLong("LSF is down. Please wait...\nLSF is down. Please wait...\n" +
                                 ReadTestdata("lsf/openlava/bqueues_l_normal.txt"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ(queues->size(), 1u);
}

TEST(ParseBqueuesLongTest, FailsWithNoHeaderWithoutAQueueLine) {
  for (const std::string& text :
       {std::string(), std::string("\n"), ReadTestdata("lsf/openlava/bqueues_l_nosuchq.err"),
        ReadTestdata("lsf/openlava/bqueues_w.txt")}) {
    auto queues = ParseBqueuesLong(text);
    ASSERT_FALSE(queues.has_value());
    EXPECT_EQ(queues.error().code, ErrorCode::kParseError);
    EXPECT_NE(queues.error().message.find("no header"), std::string::npos);
  }
}

TEST(ParseBqueuesLongTest, NamesTheQueueWhoseBlockHasNoParameters) {
  auto queues = ParseBqueuesLong(Block("good", "USERS: all\n") +
                                 "\nQUEUE: broken\n  -- No statistics here.\n\nUSERS: all\n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_EQ(queues.error().code, ErrorCode::kParseError);
  EXPECT_NE(queues.error().message.find("queue broken has no PARAMETERS/STATISTICS"),
            std::string::npos)
      << queues.error().message;
}

TEST(ParseBqueuesLongTest, NamesLineAndQueueOfAShortValueRow) {
  auto queues = ParseBqueuesLong(
      "QUEUE: q\n"
      "PARAMETERS/STATISTICS\n"
      "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV\n"
      " 30   20  Open:Active\n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_EQ(queues.error().message, "bqueues -l line 4: queue q: expected 13 columns, got 3");
}

TEST(ParseBqueuesLongTest, NamesAMissingStatisticsColumn) {
  auto queues = ParseBqueuesLong(
      "QUEUE: q\n"
      "PARAMETERS/STATISTICS\n"
      "PRIO NICE STATUS MAX JL/U JL/P JL/H NJOBS PEND RUN SSUSP USUSP\n"
      " 30 20 Open:Active - - - - 0 0 0 0 0\n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_NE(queues.error().message.find("has no RSV column"), std::string::npos)
      << queues.error().message;
}

TEST(ParseBqueuesLongTest, FailsWhenTheStatisticsRowsAreCutOff) {
  auto queues = ParseBqueuesLong("QUEUE: q\nPARAMETERS/STATISTICS\nPRIO NICE STATUS\n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_NE(queues.error().message.find("queue q"), std::string::npos);
}

TEST(ParseBqueuesLongTest, RejectsAQueueLineWithoutAName) {
  auto queues = ParseBqueuesLong("QUEUE:   \n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_EQ(queues.error().message, "bqueues -l line 1: QUEUE: line without a name");
}

}  // namespace
}  // namespace bplace::lsf
