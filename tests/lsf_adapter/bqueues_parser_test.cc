#include "lsf_adapter/bqueues_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lsf_adapter/table.h"
#include "tests/lsf_adapter/testdata.h"

namespace bplace::lsf {
namespace {

using testing::ReadTestdata;
using testing::WithCrlf;

std::vector<std::string> Names(const std::vector<QueueLoad>& queues) {
  std::vector<std::string> names;
  for (const QueueLoad& queue : queues) names.push_back(queue.name);
  return names;
}

TEST(ParseBqueuesTest, ParsesLsf10SampleWithFiveDigitCountersFillingTheColumn) {
  auto queues = ParseBqueues(ReadTestdata("lsf/lsf10/bqueues.txt"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ(Names(*queues), (std::vector<std::string>{"admin", "priority", "night",
                                                      "general-interac", "workshop"}));
  const QueueLoad& priority = (*queues)[1];
  EXPECT_EQ(priority.prio, 43);
  EXPECT_EQ(priority.njobs, 75835);
  EXPECT_EQ(priority.pend, 75803);
  EXPECT_EQ(priority.run, 32);
  EXPECT_EQ(priority.susp, 0);
  EXPECT_TRUE(priority.status.open);
  EXPECT_TRUE(priority.status.active);
  EXPECT_EQ(priority.status.text, "Open:Active");
  EXPECT_FALSE(priority.max.has_value());
  const QueueLoad& night = (*queues)[2];
  EXPECT_TRUE(night.status.open);
  EXPECT_FALSE(night.status.active);
  const QueueLoad& workshop = (*queues)[4];
  EXPECT_EQ(workshop.jl_u, 2);
  EXPECT_FALSE(workshop.jl_p.has_value());
  EXPECT_FALSE(workshop.jl_h.has_value());
}

struct BqueuesCapture {
  const char* file;
  std::vector<std::string> names;
};

class OpenLavaBqueuesTest : public ::testing::TestWithParam<BqueuesCapture> {};

TEST_P(OpenLavaBqueuesTest, ParsesEveryQueueOfTheCapture) {
  auto queues = ParseBqueues(ReadTestdata(GetParam().file));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ(Names(*queues), GetParam().names);
}

const std::vector<std::string> kAllOpenLavaQueues = {
    "adminq", "short", "devq", "aliceq", "normal", "bigmem", "outer", "closedq", "inactq"};

INSTANTIATE_TEST_SUITE_P(
    Captures, OpenLavaBqueuesTest,
    ::testing::Values(BqueuesCapture{"lsf/openlava/bqueues.txt", kAllOpenLavaQueues},
                      BqueuesCapture{"lsf/openlava/bqueues_w.txt", kAllOpenLavaQueues},
                      BqueuesCapture{"lsf/openlava/bqueues_after_restart.txt", kAllOpenLavaQueues},
                      BqueuesCapture{"lsf/openlava/bqueues_w_u_lsfadmin.txt", kAllOpenLavaQueues},
                      BqueuesCapture{"lsf/openlava/bqueues_u_alice.txt",
                                     {"short", "devq", "aliceq", "normal", "bigmem", "outer",
                                      "closedq", "inactq"}},
                      BqueuesCapture{"lsf/openlava/bqueues_w_u_carol.txt",
                                     {"short", "normal", "bigmem", "outer", "closedq", "inactq"}}));

TEST(ParseBqueuesTest, ReadsOpenLavaCentredStatusLikeLeftAlignedOne) {
  auto centred = ParseBqueues(ReadTestdata("lsf/openlava/bqueues.txt"));
  auto left = ParseBqueues(ReadTestdata("lsf/openlava/bqueues_w.txt"));
  ASSERT_TRUE(centred.has_value()) << centred.error().message;
  ASSERT_TRUE(left.has_value()) << left.error().message;
  ASSERT_EQ(centred->size(), left->size());
  for (std::size_t i = 0; i < centred->size(); ++i) {
    EXPECT_EQ((*centred)[i].status.text, (*left)[i].status.text);
    EXPECT_EQ((*centred)[i].status.open, (*left)[i].status.open);
    EXPECT_EQ((*centred)[i].status.active, (*left)[i].status.active);
    EXPECT_EQ((*centred)[i].prio, (*left)[i].prio);
  }
  const QueueLoad& closedq = (*centred)[7];
  EXPECT_EQ(closedq.status.text, "Closed:Active");
  EXPECT_FALSE(closedq.status.open);
  EXPECT_TRUE(closedq.status.active);
  const QueueLoad& inactq = (*centred)[8];
  EXPECT_TRUE(inactq.status.open);
  EXPECT_FALSE(inactq.status.active);
  EXPECT_EQ((*centred)[5].max, 2);   // bigmem
  EXPECT_EQ((*centred)[1].jl_u, 4);  // short
}

TEST(ParseBqueuesTest, ReadsCountersAfterRestart) {
  auto queues = ParseBqueues(ReadTestdata("lsf/openlava/bqueues_after_restart.txt"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  const QueueLoad& devq = (*queues)[2];
  EXPECT_EQ(devq.njobs, 4);
  EXPECT_EQ(devq.pend, 2);
  EXPECT_EQ(devq.run, 2);
}

TEST(ParseBqueuesTest, FindsColumnsByHeaderNameWhenASiteAddsOne) {
  const std::string text =
      "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP  RSV \n"
      "normal           30  Open:Active       -    -    -    -     7     3     4     0    9\n";
  auto queues = ParseBqueues(text);
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  ASSERT_EQ(queues->size(), 1u);
  EXPECT_EQ((*queues)[0].njobs, 7);
  EXPECT_EQ((*queues)[0].susp, 0);
}

TEST(ParseBqueuesTest, FindsColumnsInAnUnusualOrder) {
  const std::string text =
      "PRIO QUEUE_NAME STATUS SITE_COL NJOBS PEND RUN SUSP MAX JL/U JL/P JL/H\n"
      "  30 normal Closed:Inact x 12 5 6 1 100 - 3 -\n";
  auto queues = ParseBqueues(text);
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  ASSERT_EQ(queues->size(), 1u);
  const QueueLoad& q = (*queues)[0];
  EXPECT_EQ(q.name, "normal");
  EXPECT_EQ(q.prio, 30);
  EXPECT_FALSE(q.status.open);
  EXPECT_FALSE(q.status.active);
  EXPECT_EQ(q.njobs, 12);
  EXPECT_EQ(q.pend, 5);
  EXPECT_EQ(q.run, 6);
  EXPECT_EQ(q.susp, 1);
  EXPECT_EQ(q.max, 100);
  EXPECT_FALSE(q.jl_u.has_value());
  EXPECT_EQ(q.jl_p, 3);
}

TEST(ParseBqueuesTest, ToleratesCrlfAndTrailingSpaces) {
  const std::string plain = ReadTestdata("lsf/openlava/bqueues_w.txt");
  auto crlf = ParseBqueues(WithCrlf(plain));
  ASSERT_TRUE(crlf.has_value()) << crlf.error().message;
  EXPECT_EQ(Names(*crlf), kAllOpenLavaQueues);
  std::string padded;
  for (char c : plain) padded += c == '\n' ? std::string("   \t\n") : std::string(1, c);
  auto with_spaces = ParseBqueues(padded);
  ASSERT_TRUE(with_spaces.has_value()) << with_spaces.error().message;
  EXPECT_EQ(Names(*with_spaces), kAllOpenLavaQueues);
}

TEST(ParseBqueuesTest, SkipsRetryChatterBeforeTheHeader) {
  const std::string text =
      "LSF is down. Please wait...\n"
      "LSF is processing your request. Please wait...\n"
      "batch system daemon not responding ... still trying\n" +
      ReadTestdata("lsf/openlava/bqueues_w.txt");
  auto queues = ParseBqueues(text);
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ(Names(*queues), kAllOpenLavaQueues);
}

TEST(ParseBqueuesTest, ReadsStatusCutAtFourteenCharacters) {
  const std::string text =
      "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
      "night            40  Closed:Inact_A    -    -    -    -     0     0     0     0\n"
      "day              40  Open:Inact_Win    -    -    -    -     0     0     0     0\n";
  auto queues = ParseBqueues(text);
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  ASSERT_EQ(queues->size(), 2u);
  EXPECT_FALSE((*queues)[0].status.open);
  EXPECT_FALSE((*queues)[0].status.active);
  EXPECT_EQ((*queues)[0].status.text, "Closed:Inact_A");
  EXPECT_TRUE((*queues)[1].status.open);
  EXPECT_FALSE((*queues)[1].status.active);
}

TEST(ParseBqueuesTest, ReturnsNoQueuesForAHeaderWithoutRows) {
  auto queues = ParseBqueues(
      "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n\n");
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_TRUE(queues->empty());
}

TEST(ParseBqueuesTest, FailsWithNoHeaderOnEmptyOrErrorOutput) {
  for (const std::string& text :
       {std::string(), std::string("\n\n"), ReadTestdata("lsf/openlava/bqueues_mbatchd_down.err"),
        ReadTestdata("lsf/openlava/bqueues_lim_down.err"),
        ReadTestdata("lsf/openlava/bqueues_no_envdir.err")}) {
    auto queues = ParseBqueues(text);
    ASSERT_FALSE(queues.has_value()) << text;
    EXPECT_EQ(queues.error().code, ErrorCode::kParseError);
    EXPECT_NE(queues.error().message.find("no header"), std::string::npos)
        << queues.error().message;
  }
}

TEST(ParseBqueuesTest, NamesTheMissingColumn) {
  auto queues = ParseBqueues("QUEUE_NAME PRIO STATUS MAX JL/U JL/P JL/H NJOBS PEND RUN\n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_EQ(queues.error().code, ErrorCode::kParseError);
  EXPECT_EQ(queues.error().message, "bqueues -w line 1: header has no SUSP column");
}

TEST(ParseBqueuesTest, NamesLineAndColumnCountOfAShortRow) {
  auto queues = ParseBqueues(
      "LSF is down. Please wait...\n"
      "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
      "short 40 Open:Active -\n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_EQ(queues.error().code, ErrorCode::kParseError);
  EXPECT_EQ(queues.error().message, "bqueues -w line 3: expected 11 columns, got 4");
}

TEST(ParseBqueuesTest, NamesTheColumnOfABadNumber) {
  auto queues = ParseBqueues(
      "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
      "short            40  Open:Active       -    -    -    -     0    12k    0     0\n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_EQ(queues.error().message, "bqueues -w line 2: PEND is \"12k\", not a whole number");
}

TEST(QuoteForMessageTest, QuotesAndCutsAfterMaxShown) {
  EXPECT_EQ(QuoteForMessage("12k"), "\"12k\"");
  EXPECT_EQ(QuoteForMessage(""), "\"\"");
  EXPECT_EQ(QuoteForMessage(std::string(40, 'x')), "\"" + std::string(40, 'x') + "\"");
  EXPECT_EQ(QuoteForMessage(std::string(41, 'x')), "\"" + std::string(40, 'x') + "...\"");
  EXPECT_EQ(QuoteForMessage("abcdef", 3), "\"abc...\"");
}

TEST(ParseBqueuesTest, RejectsAnUnknownStatus) {
  auto queues = ParseBqueues(
      "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
      "short            40  Busy:Active       -    -    -    -     0     0     0     0\n");
  ASSERT_FALSE(queues.has_value());
  EXPECT_NE(queues.error().message.find("line 2"), std::string::npos);
  EXPECT_NE(queues.error().message.find("Busy:Active"), std::string::npos);
}

struct StatusCase {
  const char* text;
  bool ok;
  bool open;
  bool active;
};

class ParseQueueStatusTest : public ::testing::TestWithParam<StatusCase> {};

TEST_P(ParseQueueStatusTest, MatchesOpenClosedAndActiveInactByPrefix) {
  const StatusCase& c = GetParam();
  auto status = ParseQueueStatus(c.text);
  ASSERT_EQ(status.has_value(), c.ok) << c.text;
  if (!c.ok) {
    EXPECT_EQ(status.error().code, ErrorCode::kParseError);
    return;
  }
  EXPECT_EQ(status->open, c.open) << c.text;
  EXPECT_EQ(status->active, c.active) << c.text;
  EXPECT_EQ(status->text, c.text);
}

INSTANTIATE_TEST_SUITE_P(Statuses, ParseQueueStatusTest,
                         ::testing::Values(StatusCase{"Open:Active", true, true, true},
                                           StatusCase{"Open:Inact", true, true, false},
                                           StatusCase{"Closed:Active", true, false, true},
                                           StatusCase{"Closed:Inact", true, false, false},
                                           StatusCase{"Open:Inact_Adm", true, true, false},
                                           StatusCase{"Open:Inact_Win", true, true, false},
                                           StatusCase{"Closed:Inact_Adm", true, false, false},
                                           StatusCase{"Closed:Inact_A", true, false, false},
                                           StatusCase{"Closed:Inact_Wi", true, false, false},
                                           StatusCase{"", false, false, false},
                                           StatusCase{"Open", false, false, false},
                                           StatusCase{"Open:", false, false, false},
                                           StatusCase{"Opened:Active", false, false, false},
                                           StatusCase{"open:active", false, false, false},
                                           StatusCase{"Open:Busy", false, false, false}));

TEST(ParseBqueuesJsonTest, ParsesLsf10JsonSample) {
  auto queues = ParseBqueuesJson(ReadTestdata("lsf/lsf10/bqueues_json.txt"));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  ASSERT_EQ(queues->size(), 2u);
  const QueueLoad& batch = (*queues)[0];
  EXPECT_EQ(batch.name, "batch");
  EXPECT_TRUE(batch.status.open);
  EXPECT_TRUE(batch.status.active);
  EXPECT_EQ(batch.max, 200);
  EXPECT_EQ(batch.njobs, 0);
  const QueueLoad& test = (*queues)[1];
  EXPECT_EQ(test.name, "test");
  EXPECT_FALSE(test.max.has_value());
  EXPECT_EQ(test.njobs, 12);
  EXPECT_EQ(test.pend, 4);
  EXPECT_EQ(test.run, 8);
  // The sample leaves out PRIO and SUSP although -o asked for them.
  EXPECT_EQ(test.prio, 0);
  EXPECT_EQ(test.susp, 0);
}

TEST(ParseBqueuesJsonTest, AcceptsIntegersWhereLsfPrintsStrings) {
  auto queues = ParseBqueuesJson(
      R"({"COMMAND":"bqueues","QUEUES":1,"RECORDS":[{"QUEUE_NAME":"q","STATUS":"Closed:Inact_Adm",)"
      R"("PRIO":40,"MAX":"-","NJOBS":3,"PEND":"1","RUN":2,"SUSP":"0"}]})");
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  ASSERT_EQ(queues->size(), 1u);
  EXPECT_EQ((*queues)[0].prio, 40);
  EXPECT_EQ((*queues)[0].njobs, 3);
  EXPECT_EQ((*queues)[0].pend, 1);
  EXPECT_FALSE((*queues)[0].status.open);
}

TEST(ParseBqueuesJsonTest, SkipsChatterBeforeTheDocumentAndToleratesCrlf) {
  auto queues = ParseBqueuesJson("LSF is processing your request. Please wait...\n" +
                                 WithCrlf(ReadTestdata("lsf/lsf10/bqueues_json.txt")));
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_EQ(queues->size(), 2u);
}

TEST(ParseBqueuesJsonTest, ReturnsNoQueuesForEmptyRecords) {
  auto queues = ParseBqueuesJson(R"({"COMMAND":"bqueues","QUEUES":0,"RECORDS":[]})");
  ASSERT_TRUE(queues.has_value()) << queues.error().message;
  EXPECT_TRUE(queues->empty());
}

struct BadJsonCase {
  const char* text;
  const char* message_part;
};

class ParseBqueuesJsonErrorTest : public ::testing::TestWithParam<BadJsonCase> {};

TEST_P(ParseBqueuesJsonErrorTest, FailsWithAParseErrorSayingWhy) {
  auto queues = ParseBqueuesJson(GetParam().text);
  ASSERT_FALSE(queues.has_value()) << GetParam().text;
  EXPECT_EQ(queues.error().code, ErrorCode::kParseError);
  EXPECT_NE(queues.error().message.find(GetParam().message_part), std::string::npos)
      << queues.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    BadDocuments, ParseBqueuesJsonErrorTest,
    ::testing::Values(
        BadJsonCase{"", "no JSON object"},
        BadJsonCase{"bqueues: -json requires -o", "no JSON object"},
        BadJsonCase{"{\"RECORDS\":[", "not valid JSON"},
        BadJsonCase{"{\"COMMAND\":\"bqueues\"}", "no RECORDS"},
        BadJsonCase{"{\"RECORDS\":{}}", "no RECORDS"},
        BadJsonCase{"{\"RECORDS\":[1]}", "record 0: not an object"},
        BadJsonCase{"{\"RECORDS\":[{\"STATUS\":\"Open:Active\"}]}", "record 0: no QUEUE_NAME"},
        BadJsonCase{"{\"RECORDS\":[{\"QUEUE_NAME\":\"q\"}]}", "record 0: no STATUS"},
        BadJsonCase{
            "{\"RECORDS\":[{\"QUEUE_NAME\":\"q\",\"STATUS\":\"Open:Active\",\"RUN\":\"x\"}]}",
            "RUN is \"x\""},
        BadJsonCase{"{\"RECORDS\":[{\"QUEUE_NAME\":\"q\",\"STATUS\":\"Open:Active\",\"RUN\":[]}]}",
                    "RUN is neither a string nor an integer"},
        BadJsonCase{"{\"RECORDS\":[{\"QUEUE_NAME\":\"q\",\"STATUS\":\"Open:Active\",\"PRIO\":"
                    "\"99999999999\"}]}",
                    "PRIO is out of range"}));

}  // namespace
}  // namespace bplace::lsf
