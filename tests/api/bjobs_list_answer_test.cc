#include "api/bjobs_list_answer.h"

#include <gtest/gtest.h>

namespace bplace::api {
namespace {

lsf::JobRecord Record(std::string id, std::string user, std::string status, std::string queue,
                      std::string name = "job") {
  lsf::JobRecord job;
  job.job_id = std::move(id);
  job.user = std::move(user);
  job.status = std::move(status);
  job.queue = std::move(queue);
  job.job_name = std::move(name);
  job.from_host = "login01";
  job.submit_time = "Dec  1 10:00";
  if (job.status == "RUN") job.exec_hosts = {{"node001", 1}};
  return job;
}

std::shared_ptr<const Topology> Queues() {
  lsf::QueueDefinition high;
  high.name = "high";
  high.prio = 50;
  lsf::QueueDefinition normal;
  normal.name = "normal";
  normal.prio = 30;
  return Topology::Build({high, normal}, {}, {});
}

// mbatchd's order: RUN, then PEND by queue priority and id, then finished.
std::shared_ptr<const JobList> Cluster(bool with_finished = false) {
  std::vector<lsf::JobRecord> records = {
      Record("10", "alice", "RUN", "normal"), Record("11", "bob", "RUN", "high"),
      Record("14", "alice", "PEND", "high", "snk_a"), Record("12", "alice", "PEND", "normal"),
      Record("13", "bob", "PEND", "normal")};
  if (with_finished) records.push_back(Record("9", "alice", "DONE", "normal"));
  return MakeJobList(std::move(records), SystemTime{}, with_finished, false);
}

struct Form {
  lsf::BjobsCommandLine line;
  std::optional<lsf::BjobsFormat> format;
};

Form Parse(const std::vector<std::string>& args) {
  Form form;
  auto line = lsf::ParseBjobsCommandLine(args);
  EXPECT_TRUE(line) << line.error().message;
  form.line = *line;
  if (line->format) form.format = *lsf::ParseBjobsFormat(*line->format);
  return form;
}

tl::expected<lsf::BjobsOutput, std::string> Ask(const std::vector<std::string>& args,
                                                const ListOwner& owner,
                                                const JobList& list = *Cluster(),
                                                const JobTable* table = nullptr) {
  const Form form = Parse(args);
  return AnswerBjobsListFrom(list, table, *Queues(), form.line,
                             form.format ? &*form.format : nullptr, owner);
}

const ListOwner kAlice{"alice"};
const ListOwner kEveryone{std::nullopt};

TEST(BjobsListAnswerTest, PlainBjobsIsTheCallersUnfinishedJobsInMbatchdsOrder) {
  const auto out = Ask({"-o", "jobid stat queue", "-noheader"}, kAlice, *Cluster(true));
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out, "10 RUN normal\n14 PEND high\n12 PEND normal\n");
  EXPECT_EQ(out->err, "");
  EXPECT_EQ(out->exit_code, 0);
}

TEST(BjobsListAnswerTest, EveryUserQueueNameAndStateFilters) {
  auto out = Ask({"-noheader", "-o", "id user"}, kEveryone);
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out, "10 alice\n11 bob\n14 alice\n12 alice\n13 bob\n");
  out = Ask({"-w", "-noheader", "-q", "high"}, kEveryone);
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out,
            "11      bob     RUN   high       login01     node001     job        Dec  1 10:00\n"
            "14      alice   PEND  high       login01        -        snk_a      Dec  1 10:00\n");
  out = Ask({"-noheader", "-o", "jobid stat", "-aJ", "snk*"}, kAlice, *Cluster(true));
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out, "14 PEND\n");
  out = Ask({"-a", "-o", "id stat", "-noheader"}, kAlice, *Cluster(true));
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out, "10 RUN\n14 PEND\n12 PEND\n9 DONE\n");
  out = Ask({"-r", "-o", "id", "-noheader"}, kEveryone);
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out, "10\n11\n");
}

TEST(BjobsListAnswerTest, NothingToListIsLsfsSentenceOnStderr) {
  auto out = Ask({}, ListOwner{"carol"});
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out, "");
  EXPECT_EQ(out->err, "No unfinished job found\n");
  EXPECT_EQ(out->exit_code, 254);
  out = Ask({"-a", "-J", "none*"}, kAlice, *Cluster(true));
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->err, "No job found\n");
  out = Ask({"-json", "-o", "jobid stat start_time"}, ListOwner{"carol"});
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out, "{\n  \"COMMAND\":\"bjobs\",\n  \"JOBS\":0,\n  \"RECORDS\":[\n  ]\n}\n");
  EXPECT_EQ(out->exit_code, 0);
}

TEST(BjobsListAnswerTest, AJobJustSubmittedIsListedWhereMbatchdListsIt) {
  JobTable table;
  JobView fresh;
  fresh.lsf = Record("15", "alice", kSubmittedStatus, "high", "snk_b");
  fresh.lsf.from_host.clear();
  fresh.lsf.submit_time.clear();
  table.jobs[{15, 0}] = std::make_shared<const JobView>(fresh);
  JobView listed;  // SUBMITTED in the table, but already in the list: once
  listed.lsf = Record("12", "alice", kSubmittedStatus, "normal");
  table.jobs[{12, 0}] = std::make_shared<const JobView>(listed);
  auto out = Ask({"-o", "jobid stat", "-noheader"}, kAlice, *Cluster(), &table);
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->out, "10 RUN\n14 PEND\n15 PEND\n12 PEND\n");
  // The table needs FROM_HOST and SUBMIT_TIME, which only LSF has yet.
  EXPECT_FALSE(Ask({}, kAlice, *Cluster(), &table));
  // Not listed by the form: no reason to ask LSF.
  out = Ask({"-q", "normal"}, kAlice, *Cluster(), &table);
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(Ask({"-o", "id stat", "-noheader"}, ListOwner{"bob"}, *Cluster(), &table)->out,
            "11 RUN\n13 PEND\n");
}

TEST(BjobsListAnswerTest, FormsWhoseAnswerCouldDifferGoToLsf) {
  EXPECT_FALSE(Ask({"-q", "nosuch"}, kAlice)) << "LSF says No such queue";
  EXPECT_FALSE(Ask({"-p"}, kAlice)) << "the -p table has pending reasons";
  EXPECT_TRUE(Ask({"-p", "-o", "id"}, kAlice));
  EXPECT_FALSE(Ask({"-J", "arr[1]"}, kAlice));
  const auto table_form =
      MakeJobList({Record("10", "alice", "RUN", "normal")}, SystemTime{}, false, true);
  EXPECT_FALSE(Ask({"-o", "id stat"}, kAlice, *table_form));
  EXPECT_TRUE(Ask({"-w"}, kAlice, *table_form));
}

}  // namespace
}  // namespace bplace::api
