#include "lsf_adapter/bjobs_list.h"

#include <gtest/gtest.h>

#include "lsf_adapter/bjobs_parser.h"
#include "tests/lsf_adapter/command_line_parse.h"

namespace bplace::lsf {
namespace {

JobRecord Job(std::string status, std::string name = "job", std::int64_t index = 0) {
  JobRecord job;
  job.job_id = "7";
  job.array_index = index;
  job.status = std::move(status);
  job.job_name = std::move(name);
  job.queue = "normal";
  return job;
}

using testing::ParsedBjobsLine;

TEST(BjobsListArgvTest, EveryJobOfTheClusterAsTheTierReadsIt) {
  EXPECT_EQ(
      BjobsListArgv("/lsf/bjobs", false, true),
      (std::vector<std::string>{"/lsf/bjobs", "-u", "all", "-o", BjobsOutputFields(), "-json"}));
  EXPECT_EQ(BjobsListArgv("/lsf/bjobs", true, true),
            (std::vector<std::string>{"/lsf/bjobs", "-u", "all", "-a", "-o", BjobsOutputFields(),
                                      "-json"}));
  EXPECT_EQ(BjobsListArgv("/lsf/bjobs", true, false),
            (std::vector<std::string>{"/lsf/bjobs", "-u", "all", "-w", "-a"}));
}

TEST(BjobsListFilterTest, StateFiltersAsBjobs) {
  for (const char* status : {"PEND", "PSUSP", "RUN", "USUSP", "SSUSP", "UNKWN", "ZOMBI"}) {
    EXPECT_TRUE(PassesStateFilter('\0', Job(status))) << status;
    EXPECT_FALSE(PassesStateFilter('d', Job(status))) << status;
    EXPECT_TRUE(PassesStateFilter('a', Job(status))) << status;
  }
  for (const char* status : {"DONE", "EXIT"}) {
    EXPECT_FALSE(PassesStateFilter('\0', Job(status))) << status;
    EXPECT_TRUE(PassesStateFilter('d', Job(status))) << status;
    EXPECT_TRUE(PassesStateFilter('a', Job(status))) << status;
  }
  EXPECT_TRUE(PassesStateFilter('p', Job("PEND")));
  EXPECT_FALSE(PassesStateFilter('p', Job("PSUSP")));
  EXPECT_TRUE(PassesStateFilter('r', Job("RUN")));
  EXPECT_FALSE(PassesStateFilter('r', Job("USUSP")));
  EXPECT_TRUE(PassesStateFilter('s', Job("PSUSP")));
  EXPECT_TRUE(PassesStateFilter('s', Job("SSUSP")));
  EXPECT_FALSE(PassesStateFilter('s', Job("RUN")));
}

TEST(BjobsListFilterTest, JobNamePatternsMatchTheNameOrTheArrayName) {
  EXPECT_TRUE(JobNameMatches("*uuid-1*", Job("RUN", "snakejob.a.uuid-1.sh")));
  EXPECT_FALSE(JobNameMatches("*uuid-2*", Job("RUN", "snakejob.a.uuid-1.sh")));
  EXPECT_TRUE(JobNameMatches("job", Job("RUN", "job")));
  EXPECT_FALSE(JobNameMatches("jo", Job("RUN", "job")));
  // An array element: "arr[3]" as bjobs prints it, and the array's name.
  EXPECT_TRUE(JobNameMatches("arr", Job("RUN", "arr[3]", 3)));
  EXPECT_TRUE(JobNameMatches("a*", Job("RUN", "arr[3]", 3)));
  EXPECT_FALSE(JobNameMatches("arr", Job("RUN", "arr[3]", 0)));
}

TEST(BjobsListFilterTest, ListedByCombinesQueueNameAndState) {
  const JobRecord job = Job("PEND", "snk_1");
  EXPECT_TRUE(ListedBy(ParsedBjobsLine({}), job));
  EXPECT_TRUE(ListedBy(ParsedBjobsLine({"-q", "normal"}), job));
  EXPECT_FALSE(ListedBy(ParsedBjobsLine({"-q", "short"}), job));
  EXPECT_TRUE(ListedBy(ParsedBjobsLine({"-aJ", "snk*"}), job));
  EXPECT_FALSE(ListedBy(ParsedBjobsLine({"-J", "other*"}), job));
  EXPECT_FALSE(ListedBy(ParsedBjobsLine({"-d"}), job));
  EXPECT_FALSE(ListedBy(ParsedBjobsLine({}), Job("DONE")));
  EXPECT_TRUE(ListedBy(ParsedBjobsLine({"-a"}), Job("DONE")));
  EXPECT_TRUE(ListShowsFinished(ParsedBjobsLine({"-a", "-o", "id stat"})));
  EXPECT_TRUE(ListShowsFinished(ParsedBjobsLine({"-d"})));
  EXPECT_FALSE(ListShowsFinished(ParsedBjobsLine({"-r"})));
}

}  // namespace
}  // namespace bplace::lsf
