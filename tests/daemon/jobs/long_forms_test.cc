#include "daemon/jobs/long_forms.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace bplace {
namespace {

using namespace std::chrono_literals;

const SystemTime kLongFormsNow = std::chrono::sys_days(std::chrono::year(2027) / 1 / 1);

// A table of jobs in the given states (id 1, 2, ...); "" for a job the tier
// has not seen in LSF yet.
JobTable TableOf(const std::vector<std::string>& statuses) {
  JobTable table;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    JobView view;
    view.lsf.job_id = std::to_string(i + 1);
    view.lsf.status = statuses[i];
    table.jobs[{static_cast<std::int64_t>(i + 1), 0}] = std::make_shared<const JobView>(view);
  }
  return table;
}

// The block bjobs -l would print for job `id` in `status`.
lsf::BjobsLongBlock Block(std::int64_t id, const std::string& status) {
  lsf::BjobsLongBlock block;
  block.job.job_id = std::to_string(id);
  block.job.status = status;
  block.text = "Job <" + block.job.job_id + ">, User <alice>, Status <" + status + ">\n";
  return block;
}

TEST(LongFormsTest, AJobAskedForIsFetchedOnceAndThenServedFromTheCopy) {
  LongForms forms;
  const JobTable table = TableOf({"RUN", "PEND"});
  EXPECT_EQ(forms.Find({1, 0}, "RUN", kLongFormsNow), std::nullopt);
  EXPECT_TRUE(forms.ToFetch(table, kLongFormsNow).empty()) << "nobody asked yet";
  forms.Ask({{1, 0}}, kLongFormsNow);
  ASSERT_EQ(forms.ToFetch(table, kLongFormsNow), std::vector<std::string>{"1"});
  forms.Store({Block(1, "RUN"), Block(2, "PEND")}, kLongFormsNow);
  EXPECT_EQ(forms.Find({1, 0}, "RUN", kLongFormsNow + 10s), Block(1, "RUN").text);
  EXPECT_EQ(forms.Find({2, 0}, "PEND", kLongFormsNow + 10s), std::nullopt)
      << "job 2 was not asked for";
  EXPECT_TRUE(forms.ToFetch(table, kLongFormsNow + 10s).empty());
}

TEST(LongFormsTest, AChangeOfStateMakesTheCopyStaleAndFetchesItAgain) {
  LongForms forms;
  forms.Ask({{1, 0}}, kLongFormsNow);
  forms.Store({Block(1, "PEND")}, kLongFormsNow);
  EXPECT_EQ(forms.Find({1, 0}, "RUN", kLongFormsNow + 10s), std::nullopt);
  EXPECT_EQ(forms.ToFetch(TableOf({"RUN"}), kLongFormsNow + 10s), std::vector<std::string>{"1"});
  // bplace's SUBMITTED is PEND as bjobs prints it.
  JobView submitted;
  submitted.lsf.status = kSubmittedStatus;
  EXPECT_EQ(PrintedStatus(submitted), "PEND");
}

TEST(LongFormsTest, AnUnfinishedJobsCopyAgesAndAFinishedOnesDoesNot) {
  LongFormLimits limits;
  limits.max_age_unfinished = 300s;
  limits.interest = 24h;
  LongForms forms(limits);
  forms.Ask({{1, 0}, {2, 0}}, kLongFormsNow);
  forms.Store({Block(1, "RUN"), Block(2, "DONE")}, kLongFormsNow);
  EXPECT_TRUE(forms.Find({1, 0}, "RUN", kLongFormsNow + 300s).has_value());
  EXPECT_FALSE(forms.Find({1, 0}, "RUN", kLongFormsNow + 301s).has_value())
      << "MAX MEM would be old";
  EXPECT_TRUE(forms.Find({2, 0}, "DONE", kLongFormsNow + 10h).has_value());
  EXPECT_EQ(forms.ToFetch(TableOf({"RUN", "DONE"}), kLongFormsNow + 301s),
            std::vector<std::string>{"1"});
}

TEST(LongFormsTest, OnlyRecentInterestFetchesAndJobsTheTierDroppedAreForgotten) {
  LongFormLimits limits;
  limits.interest = 600s;
  LongForms forms(limits);
  forms.Ask({{1, 0}, {2, 0}}, kLongFormsNow);
  EXPECT_EQ(forms.ToFetch(TableOf({"RUN", ""}), kLongFormsNow).size(), 1u)
      << "job 2 is not in LSF's answers yet";
  EXPECT_TRUE(forms.ToFetch(TableOf({"RUN", "RUN"}), kLongFormsNow + 601s).empty());
  EXPECT_TRUE(forms.ToFetch(TableOf({}), kLongFormsNow).empty());
  EXPECT_EQ(forms.size(), 0u);
}

TEST(LongFormsTest, FetchesAreCappedLongestWaitingFirstAndCopiesAreBounded) {
  LongFormLimits limits;
  limits.max_ids_per_fetch = 2;
  limits.max_copies = 3;
  LongForms forms(limits);
  forms.Ask({{3, 0}}, kLongFormsNow);
  forms.Ask({{1, 0}}, kLongFormsNow + 1s);
  forms.Ask({{2, 0}}, kLongFormsNow + 2s);
  const JobTable table = TableOf({"RUN", "RUN", "RUN", "RUN"});
  EXPECT_EQ(forms.ToFetch(table, kLongFormsNow + 3s), (std::vector<std::string>{"3", "1"}));
  forms.Ask({{4, 0}}, kLongFormsNow + 4s);
  EXPECT_EQ(forms.size(), 3u);
  EXPECT_EQ(forms.ToFetch(table, kLongFormsNow + 5s), (std::vector<std::string>{"1", "2"}))
      << "job 3, asked about longest ago, was dropped";
}

}  // namespace
}  // namespace bplace
