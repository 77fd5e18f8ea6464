// bsub, bjobs, bkill and `lsfsim schedule` against the real binary.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <thread>

#include "tests/lsfsim/sim_fixture.h"
#include "tests/lsfsim/test_cluster.h"

namespace bplace::lsfsim::testing {
namespace {

class JobsTest : public SimFixture {
 protected:
  void SetUp() override {
    SimFixture::SetUp();
    Init(kTestCluster);
  }

  nlohmann::json Jobs() {
    ProcessResult r = Sim({"jobs"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  // Expects a rejection: exit 255, nothing on stdout, `message` on stderr.
  void ExpectRejected(const std::vector<std::string>& args, const std::string& message) {
    ProcessResult r = Lsf("bsub", args);
    EXPECT_EQ(r.exit_code, 255) << message;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, message + "\n");
  }

  // The USER column of bjobs without -w.
  std::string UserColumn() const {
    std::string user = user_.substr(0, 7);
    return user + std::string(8 - user.size(), ' ');
  }
};

TEST_F(JobsTest, SubmitsToNamedAndDefaultQueues) {
  ProcessResult r = Lsf("bsub", {"-q", "short", "-m", "node01", "-J", "named", "sleep", "30"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is submitted to queue <short>.\n");
  r = Lsf("bsub", {"sleep", "30"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <2> is submitted to default queue <normal>.\n");

  nlohmann::json jobs = Jobs()["jobs"];
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0]["user"], user_);
  EXPECT_EQ(jobs[0]["queue"], "short");
  EXPECT_EQ(jobs[0]["asked_hosts"], nlohmann::json::array({"node01"}));
  EXPECT_EQ(jobs[0]["name"], "named");
  EXPECT_EQ(jobs[0]["command"], "sleep 30");
  EXPECT_EQ(jobs[0]["status"], "PEND");
  EXPECT_EQ(jobs[1]["queue"], "normal");
}

TEST_F(JobsTest, RejectsWithLsfMessages) {
  ExpectRejected({"-q", "nosuchq", "true"}, "nosuchq: No such queue. Job not submitted.");
  ExpectRejected({"-q", "closedq", "true"}, "closedq: Queue has been closed. Job not submitted.");
  ExpectRejected({"-q", "chem", "true"}, "chem: User cannot use the queue. Job not submitted.");
  ExpectRejected({"-q", "short", "-m", "node0", "true"},
                 "node0: Bad host name, host group name or cluster name. Job not submitted.");
  ExpectRejected({"-q", "short", "-m", "node01 gpu01", "true"},
                 "gpu01: Host or host group is not used by the queue. Job not submitted.");
  ExpectRejected({"-q", "short", "-m", "hg_gpu", "true"},
                 "hg_gpu: Host or host group is not used by the queue. Job not submitted.");
  ExpectRejected({"-q", "short", "-R", "select[[mem>1]", "true"},
                 "Bad resource requirement syntax. Job not submitted.");
  ExpectRejected({"-q", "short", "-R", " ", "true"},
                 "Bad resource requirement syntax. Job not submitted.");
  ExpectRejected({"-q", "normal", "-n", "9", "true"},
                 "Too many processors requested. Job not submitted.");
  ExpectRejected({"-q", "short", "-n", "11", "true"},
                 "Too many processors requested. Job not submitted.");
  ExpectRejected({"-q", "short", "-n", "5", "true"},
                 "Queue does not have enough per-user job slots. Job not submitted.");
  // Every rejection above reached mbatchd and used up a job id.
  nlohmann::json table = Jobs();
  EXPECT_EQ(table["next_id"], 12);
  EXPECT_EQ(table["jobs"].size(), 0u);
}

TEST_F(JobsTest, AcceptsClosedHostAndPreferenceTokens) {
  // node03 is closed_Adm: LSF accepts the job and leaves it pending.
  ProcessResult r = Lsf("bsub", {"-q", "short", "-m", "node03", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Lsf("bsub", {"-q", "chem", "-m", "hg_gpu/+2 others", "true"});
  EXPECT_EQ(r.exit_code, 255);  // the user is not in ug_all
  r = Lsf("bsub", {"-q", "gpu", "-m", "gpu010+1", "-n", "2", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Sim({"schedule"}).exit_code, 0);
  nlohmann::json jobs = Jobs()["jobs"];
  EXPECT_EQ(jobs[0]["status"], "PEND");
  EXPECT_EQ(jobs[1]["status"], "RUN");
  EXPECT_EQ(jobs[1]["exec_host"], "gpu010");
}

TEST_F(JobsTest, JobLimitRejectsOnceQueueIsFull) {
  EXPECT_EQ(Lsf("bsub", {"-q", "gpu", "true"}).exit_code, 0);
  ExpectRejected({"-q", "gpu", "true"},
                 "The destination queue has reached its job limit. Job not submitted.");
}

TEST_F(JobsTest, EsubRewritesOrRejects) {
  ProcessResult r = Lsf("bsub", {"-q", "rewrite", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is submitted to queue <normal>.\n");
  r = Lsf("bsub", {"-q", "esubq", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "esub: project required\nRequest aborted by esub. Job not submitted.\n");
  // The esub runs before mbatchd: no job id was used.
  EXPECT_EQ(Lsf("bsub", {"true"}).out, "Job <2> is submitted to default queue <normal>.\n");
}

TEST_F(JobsTest, QueueListTakesFirstThatAccepts) {
  ProcessResult r = Lsf("bsub", {"-q", "closedq chem short", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is submitted to queue <short>.\n");
}

TEST_F(JobsTest, ReadsScriptFromStdinWithoutCommand) {
  ProcessResult r =
      Lsf("bsub", {"-q", "short", "-Jd", "bplace:req-1"}, "#!/bin/sh\n#BSUB -n 1\nhostname\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json job = Jobs()["jobs"][0];
  EXPECT_EQ(job["command"], "#!/bin/sh\n#BSUB -n 1\nhostname\n");
  EXPECT_EQ(job["name"], "hostname");
  EXPECT_EQ(job["description"], "bplace:req-1");
  r = Lsf("bsub", {"-q", "short"}, "");
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Empty job. Job not submitted.\n");
}

TEST_F(JobsTest, ConcurrentSubmissionsGetDistinctIds) {
  constexpr int kCount = 30;
  std::vector<ProcessResult> results(kCount);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCount; ++i) {
    threads.emplace_back([this, i, &results] {
      // A generous limit: 30 bsubs queue on one lock, and under a sanitizer
      // on a loaded machine the last ones wait for seconds.
      results[i] = Lsf("bsub", {"-q", "short", "-J", "job" + std::to_string(i), "true"}, "",
                       std::chrono::seconds(60));
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<std::string> outputs;
  for (const ProcessResult& r : results) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    outputs.insert(r.out);
  }
  EXPECT_EQ(outputs.size(), static_cast<size_t>(kCount));
  for (int id = 1; id <= kCount; ++id) {
    EXPECT_TRUE(
        outputs.contains("Job <" + std::to_string(id) + "> is submitted to queue <short>.\n"))
        << id;
  }
  nlohmann::json table = Jobs();
  EXPECT_EQ(table["jobs"].size(), static_cast<size_t>(kCount));
  EXPECT_EQ(table["next_id"], kCount + 1);
}

TEST_F(JobsTest, BjobsListsRunningThenPending) {
  ASSERT_EQ(Lsf("bsub", {"-q", "normal", "-n", "5", "sleep", "30"}).exit_code, 0);
  ASSERT_EQ(
      Lsf("bsub", {"-q", "normal", "-n", "5", "-J", "averyveryverylongjobname", "x"}).exit_code, 0);
  ASSERT_EQ(Lsf("bsub", {"-q", "normal", "-n", "5", "sleep", "30"}).exit_code, 0);
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "-m", "node03", "sleep", "1"}).exit_code, 0);
  ProcessResult s = Sim({"schedule"});
  EXPECT_EQ(s.out, "dispatched 2 job(s), finished 0 job(s)\n");
  std::string u = UserColumn();
  EXPECT_EQ(Lsf("bjobs", {}).out,
            "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
            "1       " +
                u +
                "RUN   normal     submit01    5*node01    sleep 30   Nov 30 11:40\n"
                "2       " +
                u +
                "RUN   normal     submit01    5*node02    *ngjobname Nov 30 11:40\n"
                "4       " +
                u +
                "PEND  short      submit01                sleep 1    Nov 30 11:40\n"
                "3       " +
                u + "PEND  normal     submit01                sleep 30   Nov 30 11:40\n");
  std::string wide = Lsf("bjobs", {"-w", "2", "3"}).out;
  EXPECT_NE(wide.find("submit01    5*node02    averyveryverylongjobname Nov 30 11:40\n"),
            std::string::npos)
      << wide;
  EXPECT_NE(wide.find("submit01       -        sleep 30   Nov 30 11:40\n"), std::string::npos)
      << wide;

  ProcessResult bhosts = Lsf("bhosts", {"-w", "node01", "node03"});
  EXPECT_EQ(bhosts.out,
            "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"
            "node01             ok              -      8      5      5      0      0      0\n"
            "node03             closed_Adm      -      8      0      0      0      0      0\n");
  std::string queues = Lsf("bqueues", {"normal"}).out;
  EXPECT_NE(
      queues.find("normal           30  Open:Active       -    -    -    -    19     8    11"),
      std::string::npos)
      << queues;

  // --finish frees node01 and node02, so job 3 starts; job 4 stays on the
  // closed host.
  s = Sim({"schedule", "--finish"});
  EXPECT_EQ(s.out, "dispatched 1 job(s), finished 2 job(s)\n");
  nlohmann::json jobs = Jobs()["jobs"];
  EXPECT_EQ(jobs[0]["status"], "DONE");
  EXPECT_EQ(jobs[2]["status"], "RUN");
  EXPECT_EQ(jobs[3]["status"], "PEND");
}

TEST_F(JobsTest, InactiveQueueAndUnavailableHostKeepJobsPending) {
  ASSERT_EQ(Lsf("bsub", {"-q", "inactq", "-m", "node01", "true"}).exit_code, 0);
  ASSERT_EQ(Sim({"set-host", "node01", "unavail"}).exit_code, 0);
  ASSERT_EQ(Lsf("bsub", {"-q", "normal", "-m", "node01", "true"}).exit_code, 0);
  EXPECT_EQ(Sim({"schedule"}).out, "dispatched 0 job(s), finished 0 job(s)\n");
  ASSERT_EQ(Sim({"set-queue", "inactq", "active"}).exit_code, 0);
  ASSERT_EQ(Sim({"set-host", "node01", "ok"}).exit_code, 0);
  EXPECT_EQ(Sim({"schedule"}).out, "dispatched 2 job(s), finished 0 job(s)\n");
  ASSERT_EQ(Sim({"set-queue", "normal", "closed"}).exit_code, 0);
  ProcessResult r = Lsf("bsub", {"-q", "normal", "true"});
  EXPECT_EQ(r.err, "normal: Queue has been closed. Job not submitted.\n");
}

TEST_F(JobsTest, BjobsReportsMissingAndEmpty) {
  ProcessResult r = Lsf("bjobs", {});
  EXPECT_EQ(r.exit_code, 254);
  EXPECT_EQ(r.err, "No unfinished job found\n");
  r = Lsf("bjobs", {"999"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Job <999> is not found\n");
}

TEST_F(JobsTest, BjobsJsonHasStringValues) {
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "-Jd", "bplace:r1", "true"}).exit_code, 0);
  ProcessResult r =
      Lsf("bjobs", {"-o", "jobid stat queue exec_host job_description user", "-json", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\n"
            "  \"COMMAND\":\"bjobs\",\n"
            "  \"JOBS\":1,\n"
            "  \"RECORDS\":[\n"
            "    {\n"
            "      \"JOBID\":\"1\",\n"
            "      \"STAT\":\"PEND\",\n"
            "      \"QUEUE\":\"short\",\n"
            "      \"EXEC_HOST\":\"\",\n"
            "      \"JOB_DESCRIPTION\":\"bplace:r1\",\n"
            "      \"USER\":\"" +
                user_ +
                "\"\n"
                "    }\n"
                "  ]\n"
                "}\n");
}

TEST_F(JobsTest, BkillTerminatesOnce) {
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "true"}).exit_code, 0);
  ProcessResult r = Lsf("bkill", {"1"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "Job <1> is being terminated\n");
  r = Lsf("bkill", {"1"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Job <1>: Job has already finished\n");
  r = Lsf("bkill", {"42"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Job <42>: No matching job found\n");
  EXPECT_NE(Lsf("bjobs", {"-a"}).out.find(" EXIT  short      submit01       -        true"),
            std::string::npos);
}

TEST_F(JobsTest, BkillByNameAllOfMineAndAsDone) {
  for (const char* name : {"align_1", "align_2", "sort"}) {
    ASSERT_EQ(Lsf("bsub", {"-q", "short", "-J", name, "true"}).exit_code, 0);
  }
  ProcessResult r = Lsf("bkill", {"-J", "align_*"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Job <1> is being terminated\nJob <2> is being terminated\n");
  r = Lsf("bkill", {"-d", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lsf("bjobs", {"-o", "stat", "-noheader", "3"}).out, "DONE\n");
  r = Lsf("bkill", {"0"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "No unfinished job found\n");
}

TEST_F(JobsTest, BjobsReadsBundledFlagsAsGetoptDoes) {
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "-J", "wf_abc_1", "true"}).exit_code, 0);
  ASSERT_EQ(Lsf("bsub", {"-q", "short", "-J", "other", "true"}).exit_code, 0);
  // Snakemake 8's status query.
  ProcessResult r = Lsf("bjobs", {"-noheader", "-o", "jobid stat", "-aJ", "*abc*"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1 PEND\n");
  EXPECT_EQ(Lsf("bjobs", {"-noheader", "-o", "jobid", "-aJ*abc*"}).out, "1\n");
  EXPECT_EQ(Lsf("bjobs", {"-aw"}).out, Lsf("bjobs", {"-a", "-w"}).out);
  EXPECT_EQ(Lsf("bjobs", {"-az"}).exit_code, 255) << "a letter bjobs lacks";
}

TEST_F(JobsTest, CountsEveryInvocation) {
  ASSERT_EQ(Lsf("bqueues", {}).exit_code, 0);
  ASSERT_EQ(Lsf("bqueues", {"-l"}).exit_code, 0);
  ASSERT_EQ(Lsf("bsub", {"-q", "nosuchq", "true"}).exit_code, 255);
  ProcessResult r = Sim({"counts"});
  EXPECT_EQ(r.out,
            "{\"bacct\":0,\"bhosts\":0,\"bjobs\":0,\"bkill\":0,\"bmgroup\":0,\"bparams\":0,"
            "\"bqueues\":2,\"bsub\":1,\"bugroup\":0,\"lsadmin\":0,\"lsclusters\":0,\"lsid\":0,"
            "\"lsload\":0}\n");
  ASSERT_EQ(Sim({"counts", "--reset"}).exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(Sim({"counts"}).out)["bqueues"], 0);
}

// The demo cluster promises (tests/lsfsim/README.md) what admits node007.
class DemoClusterTest : public SimFixture {};

TEST_F(DemoClusterTest, Node007IsAdmittedByOpenQueuesForAnyUser) {
  InitFromFile(LSFSIM_DEMO_CLUSTER);
  ProcessResult r = Lsf("bqueues", {"-w", "-m", "node007", "-u", "nobody_in_particular"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"express          65  Open:Active       -    -    -    -    34    30     4     0\n",
        "short            50  Open:Active       -   64    -    -    43     3    40     0\n",
        "medium           35  Open:Active       -    -    -    -   206     6   200     0\n",
        "normal           30  Open:Active       -    -    -    -   312    12   300     0\n",
        "long             20  Open:Active       -    -    -    -   175    25   150     0\n",
        "batch            35  Open:Active     500    -    -    -   127     7   120     0\n",
        "night            25  Open:Inact        -    -    -    -    40    40     0     0\n",
        "maint            80  Closed:Active     -    -    -    -     0     0     0     0\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line;
  }
  for (const char* queue : {"\nio ", "\nchem ", "\npriority ", "\ngpu "}) {
    EXPECT_EQ(r.out.find(queue), std::string::npos) << queue;
  }
  // chem and priority admit node007 but not this user.
  std::string all_users = Lsf("bqueues", {"-w", "-m", "node007"}).out;
  EXPECT_NE(all_users.find("\nchem "), std::string::npos);
  EXPECT_NE(all_users.find("\npriority "), std::string::npos);
  EXPECT_EQ(all_users.find("\nio "), std::string::npos);
  EXPECT_EQ(Lsf("bqueues", {"-w", "-m", "gpu01"}).out.find("\ngpu "),
            Lsf("bqueues", {"-w", "-m", "gpu010"}).out.find("\ngpu "));

  ProcessResult sub = Lsf("bsub", {"-q", "express", "-m", "node007", "true"});
  EXPECT_EQ(sub.out,
            "esub: queue express is retired, job moved to queue short\n"
            "Job <1> is submitted to queue <short>.\n");
}

TEST_F(DemoClusterTest, GeneratedClusterLoadsAndMixesTokenKinds) {
  ProcessResult gen = Sim({"generate"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  std::string path = dir_ + ".gen.toml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fwrite(gen.out.data(), 1, gen.out.size(), f);
    std::fclose(f);
  }
  InitFromFile(path);
  ProcessResult r = Lsf("bqueues", {"-l"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t blocks = 0;
  for (size_t at = r.out.find("\nQUEUE: "); at != std::string::npos;
       at = r.out.find("\nQUEUE: ", at + 1)) {
    ++blocks;
  }
  EXPECT_EQ(blocks, 300u);
  for (const char* token : {"HOSTS:  all ", " others ", " others+1 ", " ~cn", "/+2 ", "+3 ",
                            "HOSTS:  none ", "@cluster2 ", " allremote ", "HOSTS:  all ~"}) {
    EXPECT_NE(r.out.find(token), std::string::npos) << token;
  }
  ProcessResult hosts = Lsf("bhosts", {"-w"});
  EXPECT_EQ(std::count(hosts.out.begin(), hosts.out.end(), '\n'), 5000 + 3 + 1);
  ProcessResult groups = Lsf("bmgroup", {"-w"});
  EXPECT_NE(groups.out.find("hg_l2_"), std::string::npos);
  EXPECT_NE(groups.out.find("cn["), std::string::npos);
}

}  // namespace
}  // namespace bplace::lsfsim::testing
