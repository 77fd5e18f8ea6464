#include "lsf_adapter/bjobs_writer.h"

#include <gtest/gtest.h>

#include "tests/lsf_adapter/command_line_parse.h"

namespace bplace::lsf {
namespace {

JobRecord Running() {
  JobRecord job;
  job.job_id = "5183028";
  job.user = "alice";
  job.status = "RUN";
  job.queue = "normal";
  job.from_host = "login01";
  job.exec_hosts = {{"node001", 1}};
  job.slots = 1;
  job.job_name = "align.sh";
  job.submit_time = "Nov 19 13:22";
  return job;
}

JobRecord Pending() {
  JobRecord job;
  job.job_id = "5183029";
  job.user = "alice";
  job.status = "PEND";
  job.queue = "short";
  job.from_host = "login01";
  job.job_name = "a_very_long_name_";
  job.submit_time = "Nov 19 13:23";
  job.pend_reason = "New job is waiting for scheduling";
  return job;
}

using testing::ParsedBjobsLine;

TEST(WriteBjobsTest, DefaultTableAsFormatsMdShowsIt) {
  const JobRecord run = Running();
  const JobRecord pend = Pending();
  const BjobsOutput out = WriteBjobs(ParsedBjobsLine({}), nullptr, {{&run, &pend}, {}, {}});
  EXPECT_EQ(out.out,
            "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
            "5183028 alice   RUN   normal     login01     node001     align.sh   Nov 19 13:22\n"
            "5183029 alice   PEND  short      login01                 *ong_name_ Nov 19 13:23\n");
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.err, "");
}

TEST(WriteBjobsTest, WideTableCutsNothing) {
  const JobRecord pend = Pending();
  const BjobsOutput out =
      WriteBjobs(ParsedBjobsLine({"-w", "-noheader"}), nullptr, {{&pend}, {}, {}});
  EXPECT_EQ(out.out,
            "5183029 alice   PEND  short      login01        -        a_very_long_name_ Nov 19 "
            "13:23\n");
}

TEST(WriteBjobsTest, FurtherExecutionHostsGoUnderExecHost) {
  JobRecord run = Running();
  run.exec_hosts = {{"node001", 4}, {"node002", 2}};
  const BjobsOutput narrow = WriteBjobs(ParsedBjobsLine({"-noheader"}), nullptr, {{&run}, {}, {}});
  EXPECT_EQ(narrow.out,
            "5183028 alice   RUN   normal     login01     4*node001   align.sh   Nov 19 13:22\n" +
                std::string(45, ' ') + "2*node002\n");
  const BjobsOutput wide =
      WriteBjobs(ParsedBjobsLine({"-noheader", "-w"}), nullptr, {{&run}, {}, {}});
  EXPECT_NE(wide.out.find(" 4*node001:2*node002 "), std::string::npos);
}

TEST(WriteBjobsTest, ColumnsWithDelimiterAndDashForEmpty) {
  const JobRecord pend = Pending();
  const BjobsCommandLine line =
      ParsedBjobsLine({"-noheader", "-o", "jobid stat exec_host delimiter='^'"});
  const auto format = ParseBjobsFormat(*line.format);
  ASSERT_TRUE(format);
  EXPECT_EQ(WriteBjobs(line, &*format, {{&pend}, {}, {}}).out, "5183029^PEND^-\n");
}

TEST(WriteBjobsTest, PartialAnswerPrintsFoundJobsAndNotFoundLines) {
  const JobRecord run = Running();
  const BjobsCommandLine line = ParsedBjobsLine({"-o", "stat", "-noheader", "5183028", "77"});
  const auto format = ParseBjobsFormat(*line.format);
  const BjobsOutput out = WriteBjobs(line, &*format, {{&run}, {"77"}, {}});
  EXPECT_EQ(out.out, "RUN\n");
  EXPECT_EQ(out.err, "Job <77> is not found\n");
  EXPECT_EQ(out.exit_code, 255);
}

TEST(WriteBjobsTest, JsonHasStringValuesAndErrorRecords) {
  JobRecord done = Running();
  done.status = "EXIT";
  done.exit_code = 3;
  done.exit_reason = "TERM_MEMLIMIT: \"x\"";
  const BjobsCommandLine line =
      ParsedBjobsLine({"-json", "-o", "jobid stat exit_code exit_reason", "1"});
  const auto format = ParseBjobsFormat(*line.format);
  const BjobsOutput out = WriteBjobs(line, &*format, {{&done}, {"9[2]"}, {}});
  EXPECT_EQ(out.out,
            "{\n"
            "  \"COMMAND\":\"bjobs\",\n"
            "  \"JOBS\":2,\n"
            "  \"RECORDS\":[\n"
            "    {\n"
            "      \"JOBID\":\"5183028\",\n"
            "      \"STAT\":\"EXIT\",\n"
            "      \"EXIT_CODE\":\"3\",\n"
            "      \"EXIT_REASON\":\"TERM_MEMLIMIT: \\\"x\\\"\"\n"
            "    },\n"
            "    {\n"
            "      \"JOBID\":\"9\",\n"
            "      \"ERROR\":\"Job <9[2]> is not found\"\n"
            "    }\n"
            "  ]\n"
            "}\n");
  EXPECT_EQ(out.exit_code, 255);
  EXPECT_EQ(out.err, "");
}

TEST(WriteBjobsTest, EmptyAnswerSaysSoLikeLsf) {
  BjobsOutput out = WriteBjobs(ParsedBjobsLine({}), nullptr, {});
  EXPECT_EQ(out.err, "No unfinished job found\n");
  EXPECT_EQ(out.exit_code, 254);
  out = WriteBjobs(ParsedBjobsLine({"-a"}), nullptr, {});
  EXPECT_EQ(out.err, "No job found\n");
}

TEST(WriteBjobsTest, WidthCutsJobNameAtTheFront) {
  const JobRecord pend = Pending();
  const BjobsCommandLine line = ParsedBjobsLine({"-noheader", "-o", "job_name:8 stat:-6"});
  const auto format = ParseBjobsFormat(*line.format);
  EXPECT_EQ(WriteBjobs(line, &*format, {{&pend}, {}, {}}).out, "*g_name_   PEND\n");
}

}  // namespace
}  // namespace bplace::lsf
