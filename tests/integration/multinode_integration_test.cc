// Several login nodes, one LSF (docs/operations.md "Several login
// nodes"): three bplaced daemons, each with its own state directory, socket
// and port, against one simulator, in its LSF 10.1 and OpenLava (volclava)
// dialects. LSF's job list is all they share: a client that retries a
// keyed submission on another node gets the one job, never a second.

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The demo cluster, in `dialect` ("lsf" or "openlava"), with `params` added
// to its [cluster] table.
std::string ClusterIn(const std::string& dialect, const fs::path& dir,
                      const std::string& params = "") {
  std::ifstream in(DEMO_CLUSTER);
  std::string toml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string anchor = "[cluster]\n";
  toml.insert(toml.find(anchor) + anchor.size(), "dialect = \"" + dialect + "\"\n" + params);
  const fs::path path = dir / ("cluster-" + dialect + ".toml");
  std::ofstream(path) << toml;
  return path.string();
}

// A temp directory for the cluster definition, removed at the end.
struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/bplace-mn-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

std::string Body(const std::string& name) {
  return json{{"command", "sleep 600"}, {"job_name", name}}.dump();
}

// One cluster and three login nodes, a, b and c. `cluster_params` go to
// the cluster's [cluster] table, `submit_config` to every node's [submit].
class MultiNodeTest : public ::testing::TestWithParam<std::string> {
 protected:
  explicit MultiNodeTest(const std::string& cluster_params = "",
                         const std::string& submit_config = "")
      : sim_(ClusterIn(GetParam(), definition_.path, cluster_params)),
        submit_config_(submit_config) {
    fs::permissions(sim_.dir(), fs::perms::all, fs::perm_options::add);
    for (int i = 0; i < 3; ++i) nodes_.push_back(Start(i));
  }

  std::unique_ptr<DaemonProcess> Start(int node) {
    DaemonSettings settings;
    settings.node_dir = (sim_.dir() / ("node-" + std::string(1, char('a' + node)))).string();
    settings.unix_socket = settings.node_dir + "/bplace.sock";
    settings.jobs_refresh_s = 1;
    settings.submit_config = submit_config_;
    return std::make_unique<DaemonProcess>(sim_, settings);
  }

  // The simulator's jobs (its own table, whatever the dialect) named
  // `name`, with or without the tag [submit] tag_in_job_name adds.
  std::vector<std::string> JobsNamed(const std::string& name) const {
    const ProcessOutput out = sim_.Lsf({"lsfsim", "jobs"});
    std::vector<std::string> ids;
    const json table = json::parse(out.out);
    for (const json& job : table["jobs"]) {
      const std::string job_name = job.value("name", "");
      if (job_name == name || job_name.starts_with(name + ".bplace-")) {
        ids.push_back(std::to_string(job["id"].get<long long>()));
      }
    }
    return ids;
  }

  // Waits (bounded, polling the simulator) until LSF holds a job named `name`:
  // the orphaned bsub of a killed node has ended.
  void WaitForJob(const std::string& name) const {
    for (int i = 0; i < 600 && JobsNamed(name).empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  void WaitForBsubs(long long count) const {
    for (int i = 0; i < 600 && sim_.Counts().value("bsub", 0LL) < count; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // POST /v1/jobs with `key` on `node`; a node that died under the request
  // gives status 0.
  HttpReply Submit(int node, const std::string& key, const std::string& name) {
    try {
      return nodes_[node]->Call("POST", "/v1/jobs", Body(name), {{"Idempotency-Key", key}});
    } catch (const std::exception&) {
      return HttpReply{};
    }
  }

  // Submits through `node` with bsub held (slow), kills the node -9 while
  // its bsub runs, waits for the orphaned bsub's job, and restarts the node.
  void SubmitAndKill(int node, const std::string& key, const std::string& name) {
    const long long bsubs = sim_.Counts().value("bsub", 0LL);
    ASSERT_EQ(sim_.Lsf({"lsfsim", "fault", "--command", "bsub", "--slow-ms", "1500"}).exit_code, 0);
    std::thread client([&] { (void)Submit(node, key, name); });
    WaitForBsubs(bsubs + 1);
    ASSERT_GT(sim_.Counts().value("bsub", 0LL), bsubs) << "bsub never started";
    nodes_[node]->Kill9();
    client.join();
    ASSERT_EQ(sim_.Lsf({"lsfsim", "fault", "--clear"}).exit_code, 0);
    WaitForJob(name);
    nodes_[node] = Start(node);
  }

  TempDir definition_;
  SimCluster sim_;
  std::string submit_config_;
  std::vector<std::unique_ptr<DaemonProcess>> nodes_;
};

// A site esub sets every job's description: -Jd cannot carry the tag.
constexpr char kEsubSetsDescriptions[] = "esub_description = \"site: project chem\"\n";

// On such a site, with [submit] tag_in_job_name on every node.
class TagInJobNameTest : public MultiNodeTest {
 protected:
  TagInJobNameTest() : MultiNodeTest(kEsubSetsDescriptions, "tag_in_job_name = true\n") {}
};

// On such a site, without it.
class DescriptionOnlyTest : public MultiNodeTest {
 protected:
  DescriptionOnlyTest() : MultiNodeTest(kEsubSetsDescriptions) {}
};

// Node A is killed -9 during bsub; the client retries the same key on node
// B, which finds A's job in LSF by its tag and answers with it.
TEST_P(MultiNodeTest, ARetryOnAnotherNodeAfterAKillDuringBsubGetsTheOneJob) {
  SubmitAndKill(0, "mn-key-1", "mn_one");
  const std::vector<std::string> in_lsf = JobsNamed("mn_one");
  ASSERT_EQ(in_lsf.size(), 1u) << "A's orphaned bsub submitted it";
  const HttpReply retry = Submit(1, "mn-key-1", "mn_one");
  ASSERT_EQ(retry.status, 201) << retry.body;
  EXPECT_EQ(retry.Json()["job_id"], in_lsf[0]) << retry.body;
  EXPECT_TRUE(retry.Json().value("reconciled", false)) << "found in LSF, not submitted again";
  EXPECT_EQ(JobsNamed("mn_one").size(), 1u);
  EXPECT_EQ(sim_.Counts().value("bsub", 0LL), 1);
  // B keeps the answer: a second retry there is a replay, and C finds it too.
  EXPECT_EQ(Submit(1, "mn-key-1", "mn_one").Json()["job_id"], in_lsf[0]);
  EXPECT_EQ(Submit(2, "mn-key-1", "mn_one").Json()["job_id"], in_lsf[0]);
  EXPECT_EQ(sim_.Counts().value("bsub", 0LL), 1);
}

// Keyed submissions, each retried on other nodes, some through a node
// killed -9 during its bsub: every key gets exactly one job.
TEST_P(MultiNodeTest, KeyedSubmissionsRetriedAcrossNodesWithRandomKillsMakeNoDuplicates) {
  constexpr int kSubmissions = 16;
  std::mt19937 random(22);
  std::map<std::string, std::string> answered;  // name -> job id
  int kills = 0;
  for (int i = 0; i < kSubmissions; ++i) {
    const std::string key = "mn-loop-" + std::to_string(i);
    const std::string name = "mn_loop_" + std::to_string(i);
    const int first = static_cast<int>(random() % 3);
    if (random() % 3 == 0) {
      SubmitAndKill(first, key, name);
      ++kills;
    } else {
      ASSERT_EQ(Submit(first, key, name).status, 201);
    }
    // The client did not get (or lost) the answer: it retries elsewhere.
    for (int retry = 1; retry <= 2; ++retry) {
      const HttpReply reply = Submit((first + retry) % 3, key, name);
      ASSERT_EQ(reply.status, 201) << name << ": " << reply.body;
      const std::string job_id = reply.Json()["job_id"];
      if (answered.contains(name)) {
        EXPECT_EQ(answered[name], job_id) << name;
      }
      answered[name] = job_id;
    }
  }
  for (const auto& [name, job_id] : answered) {
    const std::vector<std::string> in_lsf = JobsNamed(name);
    ASSERT_EQ(in_lsf.size(), 1u) << name << ": exactly one job";
    EXPECT_EQ(in_lsf[0], job_id) << name;
  }
  // Every job in LSF is one of the keys' (a bsub a queue refused, e.g. at
  // its job limit, made none and was tried elsewhere).
  EXPECT_EQ(json::parse(sim_.Lsf({"lsfsim", "jobs"}).out)["jobs"].size(),
            static_cast<std::size_t>(kSubmissions));
  EXPECT_GE(kills, 3) << "the seed must kill some nodes during bsub";
}

// A node that submits refreshes its load data soon after
// (lsf.load_refresh_after_submit_s, default 2 s), though its load interval
// here is an hour: its PEND counts then show the job another node submitted
// just before, which its in-flight ledger cannot know. This is what keeps
// bursts from several nodes from herding into one queue.
TEST_P(MultiNodeTest, ANodeThatSubmitsSoonCountsAnotherNodesNewJobs) {
  const auto njobs = [&](int node) {
    return nodes_[node]->Get("/v1/queues/short").Json()["njobs"].get<long long>();
  };
  const long long before = njobs(1);
  const auto into = [](const std::string& queue, const std::string& name) {
    return json{{"command", "sleep 600"}, {"job_name", name}, {"queues", {queue}}}.dump();
  };
  ASSERT_EQ(nodes_[0]->Call("POST", "/v1/jobs", into("short", "mn_a")).status, 201);
  EXPECT_EQ(njobs(1), before) << "B has neither submitted nor reached its load interval";
  ASSERT_EQ(nodes_[1]->Call("POST", "/v1/jobs", into("normal", "mn_b")).status, 201);
  for (int i = 0; i < 400 && njobs(1) == before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(njobs(1), before + 1) << "B's refresh after its own submission counts A's job";
  EXPECT_EQ(nodes_[1]->Get("/v1/queues/short").Json()["inflight"], 0) << "A's job, not B's";
}

// The job name carries the tag where the description cannot: node A is
// killed -9 during bsub, the retry on node B finds A's job by its name.
TEST_P(TagInJobNameTest, ARetryOnAnotherNodeFindsTheJobByItsName) {
  SubmitAndKill(0, "mn-esub-1", "mn_esub");
  const std::vector<std::string> in_lsf = JobsNamed("mn_esub");
  ASSERT_EQ(in_lsf.size(), 1u) << "A's orphaned bsub submitted it";
  const json job = json::parse(sim_.Lsf({"lsfsim", "jobs"}).out)["jobs"][0];
  EXPECT_EQ(job.value("description", ""), "site: project chem") << "the esub replaced -Jd";
  EXPECT_THAT(job.value("name", ""), ::testing::StartsWith("mn_esub.bplace-"));
  const HttpReply retry = Submit(1, "mn-esub-1", "mn_esub");
  ASSERT_EQ(retry.status, 201) << retry.body;
  EXPECT_EQ(retry.Json()["job_id"], in_lsf[0]) << retry.body;
  EXPECT_TRUE(retry.Json().value("reconciled", false)) << "found in LSF, not submitted again";
  EXPECT_EQ(JobsNamed("mn_esub").size(), 1u);
  EXPECT_EQ(Submit(2, "mn-esub-1", "mn_esub").Json()["job_id"], in_lsf[0]);
  // A job submitted without a name is tagged too, and followed by its id.
  const HttpReply unnamed =
      nodes_[0]->Call("POST", "/v1/jobs", json{{"command", "sleep 600"}}.dump());
  ASSERT_EQ(unnamed.status, 201) << unnamed.body;
  const HttpReply status =
      nodes_[0]->Call("GET", "/v1/jobs/" + unnamed.Json()["job_id"].get<std::string>());
  EXPECT_THAT(status.Json().value("job_name", ""), ::testing::StartsWith("bplace-")) << status.body;
  // A name given by the script's #BSUB -J is kept, with the tag.
  const HttpReply scripted = nodes_[0]->Call(
      "POST", "/v1/jobs", json{{"script", "#!/bin/sh\n#BSUB -J from_script\nsleep 600\n"}}.dump());
  ASSERT_EQ(scripted.status, 201) << scripted.body;
  EXPECT_EQ(JobsNamed("from_script").size(), 1u) << sim_.Lsf({"lsfsim", "jobs"}).out;
}

// Why the option exists: without it, on such a site, the retry on another
// node cannot find the job and submits a second one.
TEST_P(DescriptionOnlyTest, ARetryOnAnotherNodeCannotFindTheJobAndMakesASecond) {
  SubmitAndKill(0, "mn-esub-2", "mn_esub2");
  ASSERT_EQ(JobsNamed("mn_esub2").size(), 1u);
  ASSERT_EQ(Submit(1, "mn-esub-2", "mn_esub2").status, 201);
  EXPECT_EQ(JobsNamed("mn_esub2").size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Dialects, MultiNodeTest, ::testing::Values("lsf", "openlava"),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Dialects, TagInJobNameTest, ::testing::Values("lsf", "openlava"),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Dialects, DescriptionOnlyTest, ::testing::Values("lsf", "openlava"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bplace::testing
