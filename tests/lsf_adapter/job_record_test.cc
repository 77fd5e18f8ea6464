#include "lsf_adapter/job_record.h"

#include <gtest/gtest.h>

namespace bplace::lsf {
namespace {

TEST(JobStatusTest, NamesEveryStateLsfDocuments) {
  for (const char* word :
       {"PEND", "PSUSP", "RUN", "USUSP", "SSUSP", "DONE", "EXIT", "UNKWN", "WAIT", "ZOMBI"}) {
    const JobStatus status = JobStatusOf(word);
    EXPECT_NE(status, JobStatus::kUnrecognized) << word;
    EXPECT_STREQ(JobStatusWord(status), word);
  }
}

TEST(JobStatusTest, FlagsWordsItDoesNotKnow) {
  EXPECT_EQ(JobStatusOf("PROV"), JobStatus::kUnrecognized);
  EXPECT_EQ(JobStatusOf("run"), JobStatus::kUnrecognized);
  EXPECT_EQ(JobStatusOf(""), JobStatus::kUnrecognized);
  EXPECT_EQ(JobStatusOf("RUN "), JobStatus::kUnrecognized);
  EXPECT_STREQ(JobStatusWord(JobStatus::kUnrecognized), "");
}

TEST(JobStatusTest, OnlyDoneAndExitAreTerminal) {
  EXPECT_TRUE(IsTerminalJobStatus("DONE"));
  EXPECT_TRUE(IsTerminalJobStatus("EXIT"));
  for (const char* word : {"PEND", "PSUSP", "RUN", "USUSP", "SSUSP", "UNKWN", "WAIT", "ZOMBI",
                           "done", "", "PROV"}) {
    EXPECT_FALSE(IsTerminalJobStatus(word)) << word;
  }
}

TEST(JobStatusTest, RecordKeepsAnUnknownStatusAndFlagsIt) {
  JobRecord record;
  record.status = "PROV";
  EXPECT_EQ(record.status_kind(), JobStatus::kUnrecognized);
  record.status = "SSUSP";
  EXPECT_EQ(record.status_kind(), JobStatus::kSsusp);
}

TEST(ParseJobIdTest, ReadsPlainIdsAndArrayElements) {
  auto plain = ParseJobId("1234");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->job_id, "1234");
  EXPECT_EQ(plain->array_index, 0);
  auto element = ParseJobId("1234[7]");
  ASSERT_TRUE(element);
  EXPECT_EQ(element->job_id, "1234");
  EXPECT_EQ(element->array_index, 7);
  auto largest = ParseJobId("2147483646[2147483646]");
  ASSERT_TRUE(largest);
  EXPECT_EQ(largest->array_index, 2147483646);
}

TEST(ParseJobIdTest, RefusesEverythingElse) {
  for (const char* text :
       {"", "0", "01", "1234[0]", "1234[07]", "1234[]", "1234[", "1234]", "[7]", "1234[1-3]",
        "1234[7]x", "12 34", " 1234", "1234 ", "-1", "+1", "12345678901", "1[12345678901]",
        "1234[7][8]", "abc", "1234;rm", "1e3"}) {
    EXPECT_FALSE(ParseJobId(text)) << '"' << text << '"';
  }
}

TEST(JobRecordTest, IdTextAddsTheIndexOfAnArrayElement) {
  JobRecord record;
  record.job_id = "1234";
  EXPECT_EQ(record.IdText(), "1234");
  record.array_index = 7;
  EXPECT_EQ(record.IdText(), "1234[7]");
}

}  // namespace
}  // namespace bplace::lsf
