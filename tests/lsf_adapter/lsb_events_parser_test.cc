#include "lsf_adapter/lsb_events_parser.h"

#include <string>
#include <variant>

#include <gtest/gtest.h>

namespace bplace::lsf {
namespace {

// Records written field by field after lsb.events(5) (LSF 10.1 configuration
// reference) and OpenLava 2's lsbatch/lib/lsb.events.c, not captured from a
// cluster: the fields the parser reads are the documented ones, and the tail
// of each 10.1 record carries a few of the later fields it must ignore.
constexpr const char* kJobNew101 =
    R"("JOB_NEW" "10.1" 1700000100 1234 1001 33554434 0 4 1700000100 0 0 0 0 0 "alice" )"
    R"(-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 "" 1.00 18 "normal" "span[hosts=1]" "login1" )"
    R"("/home/alice" "" "" "/home/alice/out.%J" "" "" "" "" "/home/alice" "1700000100.1234" 0 )"
    R"("" "" "sim ""quoted"" job" "sleep 60" 0 "" "" 0 4 "" "/bin/sh" "" "" 0 0 "" "" "" 0 "")";
constexpr const char* kJobNewOpenLava =
    R"("JOB_NEW" "20" 1700000100 1234 1001 2 4 1700000100 0 0 0 0 0 "alice" )"
    R"(-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 "" 1.00 18 "normal" "" "login1" "/home/alice" "" "" )"
    R"("" "" "/home/alice" "1700000100.1234" 0 "" "" "job" "sleep 60" 0 "" "" 4 "" "/bin/sh" )"
    R"(0 0 "" "" "" -1)";

template <typename T>
T Body(const Result<LsbEvent>& event) {
  EXPECT_TRUE(event.has_value()) << (event ? "" : event.error().message);
  if (!event || !std::holds_alternative<T>(event->body)) {
    ADD_FAILURE() << "unexpected record kind";
    return T{};
  }
  return std::get<T>(event->body);
}

TEST(LsbEventsParserTest, ReadsJobNewOfLsf101) {
  const auto event = ParseLsbEventsLine(kJobNew101);
  const auto job = Body<JobNewRecord>(event);
  EXPECT_EQ(event->type, "JOB_NEW");
  EXPECT_EQ(event->version, "10.1");
  EXPECT_EQ(event->event_time, 1700000100);
  EXPECT_EQ(job.job_id, 1234);
  EXPECT_EQ(job.user_id, 1001);
  EXPECT_EQ(job.user, "alice");
  EXPECT_EQ(job.queue, "normal");
  EXPECT_EQ(job.num_processors, 4);
  EXPECT_EQ(job.submit_time, 1700000100);
  EXPECT_EQ(job.begin_time, 0);
}

TEST(LsbEventsParserTest, ReadsJobNewOfOpenLavaWithoutOptions2) {
  const auto job = Body<JobNewRecord>(ParseLsbEventsLine(kJobNewOpenLava));
  EXPECT_EQ(job.job_id, 1234);
  EXPECT_EQ(job.queue, "normal");
  EXPECT_EQ(job.num_processors, 4);
  EXPECT_EQ(job.submit_time, 1700000100);
}

TEST(LsbEventsParserTest, ReadsJobStartWithAndWithoutUserGroup) {
  const auto lsf = Body<JobStartRecord>(ParseLsbEventsLine(
      R"("JOB_START" "10.1" 1700000160 1234 4 0 0 1.00 2 "node01" "node02" "" "" 0 "" 7 "" 0)"));
  EXPECT_EQ(lsf.job_id, 1234);
  EXPECT_EQ(lsf.status, job_stat::kRun);
  EXPECT_EQ(lsf.exec_hosts, (std::vector<std::string>{"node01", "node02"}));
  EXPECT_EQ(lsf.array_index, 7);
  const auto openlava = Body<JobStartRecord>(
      ParseLsbEventsLine(R"("JOB_START" "20" 1700000160 1234 4 0 0 1.00 1 "node01" "" "" 0 7)"));
  EXPECT_EQ(openlava.array_index, 7);
  EXPECT_EQ(openlava.exec_hosts, (std::vector<std::string>{"node01"}));
}

TEST(LsbEventsParserTest, ReadsJobStatusAfterTheRusage) {
  const auto done =
      ParseLsbEventsLine(R"("JOB_STATUS" "10.1" 1700000300 1234 64 0 0 12.5 1700000300 1 )"
                         R"(10.1 2.4 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 3 0 "")");
  const auto job = Body<JobStatusRecord>(done);
  EXPECT_EQ(job.status, job_stat::kDone);
  EXPECT_EQ(job.end_time, 1700000300);
  EXPECT_EQ(job.array_index, 3);
  // LSF 7 and later: jFlags before exitStatus; OpenLava: none.
  const auto exited = Body<JobStatusRecord>(
      ParseLsbEventsLine(R"("JOB_STATUS" "10.1" 1700000300 1234 32 0 0 0 1700000300 0 0 256 5)"));
  EXPECT_EQ(exited.status, job_stat::kExit);
  EXPECT_EQ(exited.array_index, 5);
  const auto openlava = Body<JobStatusRecord>(
      ParseLsbEventsLine(R"("JOB_STATUS" "2.0" 1700000300 1234 32 0 0 0 1700000300 0 256 5)"));
  EXPECT_EQ(openlava.array_index, 5);
}

TEST(LsbEventsParserTest, ReadsSwitchMoveForceAndClean) {
  const auto sw = Body<JobSwitchRecord>(
      ParseLsbEventsLine(R"("JOB_SWITCH" "10.1" 1700000200 0 1234 "short" 0 "lsfadmin" -1 "")"));
  EXPECT_EQ(sw.job_id, 1234);
  EXPECT_EQ(sw.queue, "short");
  EXPECT_EQ(sw.user, "lsfadmin");
  const auto move = Body<JobMoveRecord>(
      ParseLsbEventsLine(R"("JOB_MOVE" "10.1" 1700000200 0 1234 1 1 0 "root")"));
  EXPECT_EQ(move.position, 1);
  EXPECT_EQ(move.base, 1);
  const auto force = Body<JobForceRecord>(
      ParseLsbEventsLine(R"("JOB_FORCE" "10.1" 1700000200 1234 0 2 0 1 "node03" "root")"));
  EXPECT_EQ(force.array_index, 2);
  EXPECT_EQ(force.exec_hosts, (std::vector<std::string>{"node03"}));
  EXPECT_EQ(force.user, "root");
  const auto clean =
      Body<JobCleanRecord>(ParseLsbEventsLine(R"("JOB_CLEAN" "10.1" 1700009999 1234 0)"));
  EXPECT_EQ(clean.job_id, 1234);
}

TEST(LsbEventsParserTest, SkipsOtherRecordsAndTheHeaderLine) {
  const auto header = ParseLsbEventsLine("#   4213");
  ASSERT_TRUE(header.has_value());
  EXPECT_TRUE(std::holds_alternative<SkippedRecord>(header->body));
  const auto mbd = ParseLsbEventsLine(R"("MBD_START" "10.1" 1700000000 "master1" "cluster1" 4 8)");
  ASSERT_TRUE(mbd.has_value());
  EXPECT_EQ(mbd->type, "MBD_START");
  EXPECT_TRUE(std::holds_alternative<SkippedRecord>(mbd->body));
}

TEST(LsbEventsParserTest, UndoublesQuotesInStrings) {
  const auto sw = Body<JobSwitchRecord>(
      ParseLsbEventsLine(R"("JOB_SWITCH" "10.1" 1 0 1234 "q""x" 0 "a ""b""")"));
  EXPECT_EQ(sw.queue, "q\"x");
  EXPECT_EQ(sw.user, "a \"b\"");
}

TEST(LsbEventsParserTest, NamesTheRecordAndFieldOfACorruptLine) {
  const auto truncated =
      ParseLsbEventsLine(R"("JOB_START" "10.1" 1700000160 1234 4 0 0 1.00 2 "n1")");
  ASSERT_FALSE(truncated.has_value());
  EXPECT_EQ(truncated.error().code, ErrorCode::kParseError);
  EXPECT_EQ(truncated.error().message, "JOB_START: execHosts: missing (record truncated?)");
  const auto bad = ParseLsbEventsLine(R"("JOB_START" "10.1" 1700000160 1234 4 0 0 1.00 "n1")");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "JOB_START: numExHosts: expected a number, got '\"n1\"'");
  const auto unterminated = ParseLsbEventsLine(R"("JOB_SWITCH" "10.1" 17 0 1234 "sho)");
  ASSERT_FALSE(unterminated.has_value());
  EXPECT_EQ(unterminated.error().message, "JOB_SWITCH: queue: unterminated string");
  const auto bad_type = ParseLsbEventsLine(R"("JOB_NEW)");
  ASSERT_FALSE(bad_type.has_value());
  EXPECT_EQ(bad_type.error().message, "lsb.events record: record type: unterminated string");
  EXPECT_FALSE(ParseLsbEventsLine("").has_value());
  EXPECT_FALSE(ParseLsbEventsLine("JOB_NEW 10.1 17").has_value());
  const auto short_new = ParseLsbEventsLine(R"("JOB_NEW" "10.1" 17 1 2 3 "alice")");
  ASSERT_FALSE(short_new.has_value());
  EXPECT_EQ(short_new.error().message,
            "JOB_NEW: userName: found after 3 numbers, expected 10 or more");
  const auto no_time = ParseLsbEventsLine(R"("JOB_CLEAN" "10.1" soon 1 0)");
  ASSERT_FALSE(no_time.has_value());
  EXPECT_EQ(no_time.error().message, "JOB_CLEAN: event time: expected a number, got 'soon'");
}

// A record cut anywhere (a log being written, a torn copy) is an error or a
// record, never a crash; cut before the fields the parser reads, an error.
TEST(LsbEventsParserTest, EveryPrefixOfARecordIsAnErrorOrARecord) {
  for (const std::string_view line : {kJobNew101, kJobNewOpenLava}) {
    const std::size_t queue_end = line.find("\"normal\"") + 8;
    for (std::size_t n = 0; n < line.size(); ++n) {
      const auto event = ParseLsbEventsLine(line.substr(0, n));
      if (n < queue_end) {
        EXPECT_FALSE(event.has_value()) << n;
      }
    }
  }
}

}  // namespace
}  // namespace bplace::lsf
