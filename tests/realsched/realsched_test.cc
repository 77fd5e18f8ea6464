// The `realsched` tier: what a real LSF-compatible scheduler (volclava 2.2,
// one host, or a cluster set up the same way) does with the commands bplace
// runs, checked against the real thing. One cluster serves every test of this
// binary: an existing one the environment names, or a volclava started for
// the run (a few seconds; tests/realsched/lsf_cluster.h). The facts these
// tests pin down are written up in tests/realsched/README.md.

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/realsched/lsf_cluster.h"

namespace bplace::realsched {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr int kSkipExitCode = 77;  // SKIP_RETURN_CODE in CMakeLists.txt
// Finished jobs stay in `bjobs -a` this long; short, so that the test of
// their disappearance is quick, and still far longer than any poll here.
constexpr int kCleanPeriodSeconds = 15;
const std::string kFields =
    "jobid stat queue exec_host job_name submit_time start_time finish_time";

// The cluster the environment names, with the CLEAN_PERIOD these tests
// assume when volclava is started for the run.
LsfClusterOptions TierOptions() {
  LsfClusterOptions options =
      LsfClusterOptions::FromEnvironment(VOLCLAVA_SCRIPT, REALSCHED_STATE_DIR);
  options.script_env["VOLCLAVA_CLEAN_PERIOD"] = std::to_string(kCleanPeriodSeconds);
  return options;
}

// Polls `probe` every 300 ms until it returns true or `timeout` passes.
template <typename Probe>
bool WaitFor(Probe probe, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (probe()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(300ms);
  }
}

class RealSchedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!SkipReason().empty()) return;
    cluster_ = std::make_unique<LsfCluster>(TierOptions());
    start_error_ = cluster_->Start();
    std::cerr << "realsched: " << cluster_->Description() << ", start " << cluster_->start_seconds()
              << " s\n";
  }

  static void TearDownTestSuite() {
    if (cluster_ == nullptr) return;
    if (::testing::UnitTest::GetInstance()->failed_test_count() > 0) {
      if (!cluster_->StateDir().empty()) {
        std::cerr << "realsched: a test failed; the cluster's logs are left in "
                  << cluster_->StateDir() << "/log\n";
      }
      // The daemons are stopped all the same; the next run removes the dir.
      cluster_->set_keep_state_dir(true);
    }
    cluster_.reset();
  }

  void SetUp() override {
    if (std::string why = SkipReason(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_NE(cluster_, nullptr);
    ASSERT_EQ(start_error_, "") << "the cluster did not start";
  }

  static std::string SkipReason() {
    static const std::string reason = LsfCluster::SkipReason(TierOptions());
    return reason;
  }

  static const LsfCluster& cluster() { return *cluster_; }

  // `bsub ARGS`; the job id from "Job <N> is submitted to [default ]queue <Q>.",
  // or a test failure.
  static int Submit(const std::vector<std::string>& args, std::string* queue = nullptr) {
    CommandResult reply = cluster().Run("bsub", args);
    static const std::regex kSubmitted(
        R"(^Job <(\d+)> is submitted to (default )?queue <([^>]+)>\.\n$)");
    std::smatch match;
    if (reply.exit_code != 0 || !std::regex_match(reply.out, match, kSubmitted)) {
      ADD_FAILURE() << "bsub did not submit: " << reply.Describe();
      return -1;
    }
    if (queue != nullptr) *queue = match[3];
    return std::stoi(match[1]);
  }

  // The JSON record of one job from `bjobs -a -o FIELDS -json ID` (the
  // record with ERROR for an unknown id), or null when the output is no
  // such document.
  static json Record(int job_id, const std::string& fields = kFields) {
    CommandResult reply =
        cluster().Run("bjobs", {"-a", "-o", fields, "-json", std::to_string(job_id)});
    json doc = json::parse(reply.out, nullptr, false);
    if (doc.is_discarded() || !doc.contains("RECORDS") || doc["RECORDS"].size() != 1)
      return nullptr;
    return doc["RECORDS"][0];
  }

  static std::string Stat(int job_id) {
    json record = Record(job_id);
    return record.is_object() && record.contains("STAT") ? record["STAT"].get<std::string>() : "";
  }

  // Polls until the job's STAT is in `wanted`; returns the STATs seen, in order.
  static std::vector<std::string> WaitForStat(int job_id, const std::set<std::string>& wanted,
                                              std::chrono::milliseconds timeout = 60s) {
    std::vector<std::string> seen;
    WaitFor(
        [&] {
          std::string stat = Stat(job_id);
          if (seen.empty() || seen.back() != stat) seen.push_back(stat);
          return wanted.count(stat) > 0;
        },
        timeout);
    return seen;
  }

  // `bjobs -l ID`: the long form, the only one of volclava's that tells the
  // exit code and the job description.
  static std::string Long(int job_id) {
    return cluster().Run("bjobs", {"-l", std::to_string(job_id)}).out;
  }

  static std::unique_ptr<LsfCluster> cluster_;
  static std::string start_error_;
};

std::unique_ptr<LsfCluster> RealSchedTest::cluster_;
std::string RealSchedTest::start_error_;

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : " -> ") + item;
  return text;
}

TEST_F(RealSchedTest, HostIsOkAndQueuesAnswer) {
  CommandResult hosts = cluster().Run("bhosts", {"-w"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.Describe();
  EXPECT_TRUE(std::regex_search(hosts.out, std::regex("\n" + cluster().HostName() + " +ok ")))
      << hosts.out;

  CommandResult queues = cluster().Run("bqueues", {"-w"});
  ASSERT_EQ(queues.exit_code, 0) << queues.Describe();
  for (const char* row : {"\nnormal +30 +Open:Active ", "\nshort +40 +Open:Active ",
                          "\ntiny +35 +Open:Active +1 +1 ", "\nuserq +35 +Open:Active ",
                          "\nclosedq +10 +Closed:Active ", "\ninactq +10 +Open:Inact "}) {
    EXPECT_TRUE(std::regex_search(queues.out, std::regex(row))) << row << " not in\n" << queues.out;
  }
}

TEST_F(RealSchedTest, BsubNamesTheJobAndItsQueue) {
  std::string queue;
  EXPECT_GT(Submit({"-q", "short", "true"}, &queue), 0);
  EXPECT_EQ(queue, "short");
  CommandResult to_default = cluster().Run("bsub", {"true"});
  EXPECT_TRUE(std::regex_match(
      to_default.out, std::regex(R"(Job <\d+> is submitted to default queue <normal>\.\n)")))
      << to_default.Describe();
}

TEST_F(RealSchedTest, BsubRejectionsSayWhyOnStderr) {
  CommandResult closed = cluster().Run("bsub", {"-q", "closedq", "true"});
  EXPECT_EQ(closed.exit_code, 255);
  EXPECT_EQ(closed.out, "");
  EXPECT_EQ(closed.err, "closedq: Queue has been closed. Job not submitted.\n");
  CommandResult unknown = cluster().Run("bsub", {"-q", "nosuchq", "true"});
  EXPECT_EQ(unknown.exit_code, 255);
  EXPECT_EQ(unknown.err, "nosuchq: No such queue. Job not submitted.\n");
}

TEST_F(RealSchedTest, QueueUsersKeepOthersOut) {
  if (!UserByName("bob")) GTEST_SKIP() << "no user bob (tools/test-users.sh makes him)";
  if (geteuid() != 0) GTEST_SKIP() << "running bsub as bob needs root";
  CommandResult refused = cluster().RunAs("bob", "bsub", {"-q", "userq", "true"});
  EXPECT_EQ(refused.exit_code, 255) << refused.Describe();
  EXPECT_EQ(refused.err, "userq: User cannot use the queue. Job not submitted.\n");
}

TEST_F(RealSchedTest, JobGoesFromPendOrRunToDone) {
  int job = Submit({"-q", "normal", "sleep", "2"});
  ASSERT_GT(job, 0);
  json first = Record(job);
  ASSERT_TRUE(first.is_object());
  EXPECT_TRUE(first["STAT"] == "PEND" || first["STAT"] == "RUN") << first.dump();
  EXPECT_EQ(first["JOBID"], std::to_string(job));  // a string, not a number
  EXPECT_EQ(first["QUEUE"], "normal");
  EXPECT_EQ(first["JOB_NAME"], "sleep 2");  // the command when there is no -J
  // SUBMIT_TIME is "Mon DD HH:MM" (day padded with a blank), no year.
  EXPECT_TRUE(std::regex_match(first["SUBMIT_TIME"].get<std::string>(),
                               std::regex(R"([A-Z][a-z]{2} [ \d]\d \d\d:\d\d)")))
      << first.dump();

  std::vector<std::string> seen = WaitForStat(job, {"DONE", "EXIT"});
  ASSERT_EQ(seen.back(), "DONE") << Joined(seen);
  json done = Record(job);
  EXPECT_EQ(done["EXEC_HOST"], cluster().HostName());
  // START_TIME and FINISH_TIME are "MM/DD-HH:MM:SS", local time, no year.
  std::regex stamp(R"(\d\d/\d\d-\d\d:\d\d:\d\d)");
  EXPECT_TRUE(std::regex_match(done["START_TIME"].get<std::string>(), stamp)) << done.dump();
  EXPECT_TRUE(std::regex_match(done["FINISH_TIME"].get<std::string>(), stamp)) << done.dump();
  EXPECT_NE(Long(job).find("Done successfully."), std::string::npos) << Long(job);
}

TEST_F(RealSchedTest, FailingJobEndsExitWithItsExitCode) {
  int job = Submit({"-q", "short", "sh", "-c", "exit 3"});
  ASSERT_GT(job, 0);
  std::vector<std::string> seen = WaitForStat(job, {"DONE", "EXIT"});
  ASSERT_EQ(seen.back(), "EXIT") << Joined(seen);
  // -o has no exit code field; the long form has it (when the job used any
  // CPU time at all, see README.md).
  EXPECT_NE(Long(job).find("Exited with exit code 3."), std::string::npos) << Long(job);
}

TEST_F(RealSchedTest, BkillEndsARunningJob) {
  int job = Submit({"-q", "normal", "sleep", "300"});
  ASSERT_GT(job, 0);
  ASSERT_EQ(WaitForStat(job, {"RUN"}).back(), "RUN");
  std::string id = std::to_string(job);
  CommandResult kill = cluster().Run("bkill", {id});
  EXPECT_EQ(kill.exit_code, 0) << kill.Describe();
  EXPECT_EQ(kill.out, "Job <" + id + "> is being terminated\n");
  std::vector<std::string> seen = WaitForStat(job, {"DONE", "EXIT"});
  EXPECT_EQ(seen.back(), "EXIT") << Joined(seen);

  CommandResult again = cluster().Run("bkill", {id});
  EXPECT_EQ(again.exit_code, 255);
  EXPECT_EQ(again.err, "Job <" + id + ">: Job has already finished\n");
}

TEST_F(RealSchedTest, SecondJobPendsInAFullQueueAndBkillEndsIt) {
  int running = Submit({"-q", "tiny", "sleep", "300"});
  ASSERT_GT(running, 0);
  std::vector<std::string> seen = WaitForStat(running, {"RUN"});
  ASSERT_EQ(seen.back(), "RUN") << Joined(seen);
  // Submitted only now: two jobs submitted in the same second may be
  // dispatched in either order.
  int waiting = Submit({"-q", "tiny", "sleep", "300"});
  ASSERT_GT(waiting, 0);
  std::this_thread::sleep_for(3s);  // past a dispatch turn (MBD_SLEEP_TIME 2)
  EXPECT_EQ(Stat(waiting), "PEND");
  json pending = Record(waiting);
  EXPECT_EQ(pending["EXEC_HOST"], "");  // "" while pending, in JSON
  EXPECT_EQ(pending["START_TIME"], "-");
  EXPECT_EQ(pending["FINISH_TIME"], "-");
  EXPECT_NE(Long(waiting).find("The queue has reached its job slot limit"), std::string::npos)
      << Long(waiting);

  CommandResult kill = cluster().Run("bkill", {std::to_string(waiting), std::to_string(running)});
  EXPECT_EQ(kill.exit_code, 0) << kill.Describe();
  EXPECT_EQ(WaitForStat(waiting, {"EXIT"}).back(), "EXIT");
  EXPECT_EQ(WaitForStat(running, {"EXIT"}).back(), "EXIT");
}

TEST_F(RealSchedTest, JobIsFoundByItsDescription) {
  int job = Submit({"-q", "short", "-Jd", "bplace:abc", "sleep", "1"});
  ASSERT_GT(job, 0);
  // No -o field holds the description; the first line of each job in the
  // long form ends with ", Job Description <...>".
  CommandResult all = cluster().Run("bjobs", {"-a", "-l", "-u", "all"});
  ASSERT_EQ(all.exit_code, 0) << all.Describe();
  std::regex tagged(R"(^Job <(\d+)>, .*, Job Description <bplace:abc>$)", std::regex::multiline);
  std::vector<int> found;
  for (std::sregex_iterator it(all.out.begin(), all.out.end(), tagged), end; it != end; ++it) {
    found.push_back(std::stoi((*it)[1]));
  }
  EXPECT_EQ(found, std::vector<int>{job}) << all.out;
}

TEST_F(RealSchedTest, UnknownJobIdIsAnErrorRecord) {
  json record = Record(999999, "jobid stat");
  ASSERT_TRUE(record.is_object());
  EXPECT_EQ(record["JOBID"], "999999");
  EXPECT_EQ(record["ERROR"], "Job <999999> is not found");
  EXPECT_FALSE(record.contains("STAT"));
  CommandResult reply = cluster().Run("bjobs", {"-a", "-o", "jobid stat", "-json", "999999"});
  EXPECT_EQ(reply.exit_code, 255);

  CommandResult kill = cluster().Run("bkill", {"999999"});
  EXPECT_EQ(kill.exit_code, 255);
  EXPECT_EQ(kill.err, "Job <999999>: No matching job found\n");
}

TEST_F(RealSchedTest, FieldsVolclavaLacksAreRejected) {
  int job = Submit({"-q", "short", "true"});
  ASSERT_GT(job, 0);
  // Checked per job: with a job to show, an unknown field ends bjobs.
  CommandResult reply =
      cluster().Run("bjobs", {"-a", "-o", "jobid exit_code", "-json", std::to_string(job)});
  EXPECT_EQ(reply.exit_code, 99) << reply.Describe();
  EXPECT_EQ(reply.err, "<EXIT_CODE> in the format string is not a valid field name.\n");
  // -w and -o exclude each other: the usage message (naming argv[0] as
  // given, here a full path) and exit 255.
  CommandResult wide =
      cluster().Run("bjobs", {"-a", "-w", "-o", "jobid stat", "-json", std::to_string(job)});
  EXPECT_EQ(wide.exit_code, 255);
  EXPECT_TRUE(std::regex_search(wide.err, std::regex(R"(^Usage: \S*bjobs \[-h\])")))
      << wide.Describe();
}

TEST_F(RealSchedTest, ArrayElementsShareTheJobIdAndNameTheirIndex) {
  int job = Submit({"-q", "normal", "-J", "a[1-3]", "true"});
  ASSERT_GT(job, 0);
  CommandResult reply =
      cluster().Run("bjobs", {"-a", "-o", "jobid stat job_name", "-json", std::to_string(job)});
  json doc = json::parse(reply.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << reply.Describe();
  EXPECT_EQ(doc["JOBS"], 3);
  ASSERT_EQ(doc["RECORDS"].size(), 3u);
  for (int index = 1; index <= 3; ++index) {
    EXPECT_EQ(doc["RECORDS"][index - 1]["JOBID"], std::to_string(job));
    EXPECT_EQ(doc["RECORDS"][index - 1]["JOB_NAME"], "a[" + std::to_string(index) + "]");
  }
}

// Last: it waits out CLEAN_PERIOD.
TEST_F(RealSchedTest, FinishedJobIsForgottenAfterCleanPeriod) {
  int job = Submit({"-q", "short", "true"});
  ASSERT_GT(job, 0);
  ASSERT_EQ(WaitForStat(job, {"DONE"}).back(), "DONE");
  std::string error = "Job <" + std::to_string(job) + "> is not found";
  bool forgotten = WaitFor(
      [&] {
        json record = Record(job, "jobid stat");
        return record.is_object() && record.value("ERROR", "") == error;
      },
      std::chrono::seconds(kCleanPeriodSeconds * 3));
  EXPECT_TRUE(forgotten) << Record(job, "jobid stat").dump();
}

}  // namespace
}  // namespace bplace::realsched

// Skips the whole binary (exit 77, SKIP_RETURN_CODE) where the tier cannot
// run: no cluster named, or a volclava to start without root.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (std::string why = bplace::realsched::LsfCluster::SkipReason(bplace::realsched::TierOptions());
      !why.empty()) {
    std::cout << "realsched skipped: " << why << "\n";
    return bplace::realsched::kSkipExitCode;
  }
  return RUN_ALL_TESTS();
}
