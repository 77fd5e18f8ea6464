// The real bplaced against the LSF simulator, over HTTP on 127.0.0.1.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;
using ::testing::Contains;
using ::testing::Key;

// Rows of an LSF table: the first word of every line after the header.
std::vector<std::string> FirstColumn(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream in(text);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      header = false;
      continue;
    }
    std::istringstream words(line);
    std::string first;
    if (words >> first) names.push_back(first);
  }
  return names;
}

std::string JobBody(const std::string& host, int slots) {
  return json{{"host", host}, {"command", "sleep 60"}, {"slots", slots}}.dump();
}

class DemoClusterTest : public ::testing::Test {
 protected:
  DemoClusterTest() : sim_(DEMO_CLUSTER), daemon_(sim_, DaemonSettings{}) {}
  SimCluster sim_;
  DaemonProcess daemon_;
};

TEST_F(DemoClusterTest, HostEndpointAgreesWithBqueuesMForEveryHost) {
  const auto hosts = FirstColumn(sim_.Lsf({"bhosts", "-w"}).out);
  ASSERT_GE(hosts.size(), 40u);
  for (const std::string& host : hosts) {
    const ProcessOutput lsf = sim_.Lsf({"bqueues", "-m", host, "-w"});
    std::set<std::string> expected;
    if (lsf.exit_code == 0) {
      for (const auto& name : FirstColumn(lsf.out)) expected.insert(name);
    }
    const HttpReply reply = daemon_.Get("/v1/hosts/" + host);
    ASSERT_EQ(reply.status, 200) << host << ": " << reply.body;
    const json body = reply.Json();
    std::set<std::string> actual;
    for (const json& queue : body["queues"]) actual.insert(queue["queue"]);
    EXPECT_EQ(actual, expected) << "host " << host;
  }
}

// GET /v1/hosts against the simulator's own answers: every bhosts host once,
// its status and free slots as bhosts -w prints them, and as many admitting
// queues as `bqueues -m HOST` lists.
TEST_F(DemoClusterTest, HostListAgreesWithBhostsAndBqueuesMAndFilters) {
  const ProcessOutput bhosts = sim_.Lsf({"bhosts", "-w"});
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream lines(bhosts.out);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    const std::vector<std::string> row(std::istream_iterator<std::string>(fields),
                                       std::istream_iterator<std::string>{});
    if (!row.empty()) rows[row[0]] = row;
  }
  const HttpReply reply = daemon_.Get("/v1/hosts");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const json body = reply.Json();
  ASSERT_EQ(body["hosts"].size(), rows.size());
  std::size_t ok = 0;
  for (const json& host : body["hosts"]) {
    const std::string name = host["host"];
    ASSERT_TRUE(rows.contains(name)) << name;
    const std::vector<std::string>& row = rows[name];  // HOST STATUS JL/U MAX NJOBS ...
    EXPECT_EQ(host["status"], row[1]) << name;
    if (row[1] == "ok") ++ok;
    if (row[3] == "-") {
      EXPECT_TRUE(host["free_slots"].is_null()) << name;
    } else {
      EXPECT_EQ(host["free_slots"], std::max(0, std::stoi(row[3]) - std::stoi(row[4]))) << name;
    }
    const ProcessOutput queues = sim_.Lsf({"bqueues", "-m", name, "-w"});
    const std::size_t expected = queues.exit_code == 0 ? FirstColumn(queues.out).size() : 0;
    EXPECT_EQ(host["queues_admitting"], expected) << name;
    EXPECT_EQ(host["ib"]["health"], "unknown") << name;
  }
  const json only_ok = daemon_.Get("/v1/hosts?status=ok").Json();
  EXPECT_EQ(only_ok["count"], ok);
  for (const json& host : only_ok["hosts"]) EXPECT_EQ(host["status"], "ok");
  const HttpReply bad = daemon_.Get("/v1/hosts?ib=sick");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, ::testing::HasSubstr("use healthy, unhealthy, unknown"));

  const json groups = daemon_.Get("/v1/hostgroups").Json();
  EXPECT_EQ(groups["count"], FirstColumn(sim_.Lsf({"bmgroup", "-w"}).out).size());
  const json users = daemon_.Get("/v1/usergroups").Json();
  EXPECT_EQ(users["count"], FirstColumn(sim_.Lsf({"bugroup", "-w"}).out).size());
}

// Without LSF's answer for a user (bqueues -u is only asked for the daemon's
// user), placement reads the USERS lines: the LSF administrators of
// `lsclusters -l` may use every queue, as the simulator's bsub lets them.
TEST_F(DemoClusterTest, LsfAdministratorIsPermittedInEveryQueueByTheUsersLines) {
  for (const char* name : {"lsfadmin", "hpcadm", "carol"}) {
    const std::string user = name;
    const HttpReply reply = daemon_.Call("GET", "/v1/placement?user=" + user);
    ASSERT_EQ(reply.status, 200) << reply.body;
    const json placement = reply.Json();
    EXPECT_EQ(placement["permission_source"], "users_line") << user;
    const ProcessOutput lsf = sim_.Lsf({"bqueues", "-u", user, "-w"});
    const auto permitted = FirstColumn(lsf.out);
    std::set<std::string> refused;
    for (const json& excluded : placement["excluded"]) {
      if (excluded["code"] == "user_not_permitted") refused.insert(excluded["queue"]);
    }
    for (const std::string& queue : permitted) {
      EXPECT_FALSE(refused.contains(queue)) << user << " may use " << queue << " (bqueues -u)";
    }
    if (user == "lsfadmin") {
      EXPECT_TRUE(refused.empty()) << placement.dump();
    }
    if (user == "carol") {
      EXPECT_TRUE(refused.contains("batch")) << placement.dump();
    }
  }
}

TEST_F(DemoClusterTest, ReadsNeverRunAnLsfCommand) {
  const json before = sim_.Counts();
  const std::vector<std::string> targets = {"/v1/placement?host=node007",
                                            "/v1/hosts/node007",
                                            "/v1/queues",
                                            "/v1/cluster",
                                            "/readyz",
                                            "/v1/placement",
                                            "/v1/queues/normal"};
  for (int i = 0; i < 1000; ++i) {
    const HttpReply reply = daemon_.Get(targets[static_cast<std::size_t>(i) % targets.size()]);
    ASSERT_EQ(reply.status, 200) << reply.body;
  }
  EXPECT_EQ(sim_.Counts(), before);
}

TEST_F(DemoClusterTest, PlacementRanksPermittedQueuesAndExplainsEveryOther) {
  const HttpReply reply = daemon_.Get("/v1/placement?host=node007");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const json body = reply.Json();
  EXPECT_EQ(body["permission_source"], "lsf");
  ASSERT_GE(body["candidates"].size(), 4u);
  EXPECT_TRUE(body.contains("as_of"));
  EXPECT_TRUE(body["age_s"].is_number());

  // Every queue appears exactly once, as a candidate or with a reason.
  std::set<std::string> seen;
  for (const json& candidate : body["candidates"]) seen.insert(candidate["queue"]);
  std::map<std::string, std::string> codes;
  for (const json& excluded : body["excluded"]) {
    EXPECT_FALSE(excluded["reason"].get<std::string>().empty());
    codes[excluded["queue"]] = excluded["code"];
    seen.insert(excluded["queue"]);
  }
  const json queues = daemon_.Get("/v1/queues").Json();
  std::set<std::string> all;
  for (const json& queue : queues["queues"]) all.insert(queue["name"]);
  EXPECT_EQ(seen, all);
  std::set<std::string> kinds;
  for (const auto& [queue, code] : codes) kinds.insert(code);
  for (const char* code :
       {"queue_closed", "user_not_permitted", "host_excluded", "host_not_in_queue"}) {
    EXPECT_TRUE(kinds.contains(code)) << "no queue excluded for " << code;
  }

  // Active queues come first, each group by PEND + in-flight ascending.
  std::vector<std::pair<bool, long>> order;
  for (const json& candidate : body["candidates"]) {
    const bool inactive = candidate["status"].get<std::string>().find("Inact") != std::string::npos;
    order.emplace_back(inactive, candidate["pend"].get<long>() + candidate["inflight"].get<long>());
  }
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
}

TEST_F(DemoClusterTest, SubmitsToTheBestQueueAndLsfHasTheJobThere) {
  const json placement = daemon_.Get("/v1/placement?host=node007").Json();
  const HttpReply reply = daemon_.Post("/v1/jobs", JobBody("node007", 2));
  ASSERT_EQ(reply.status, 201) << reply.body;
  const json body = reply.Json();
  EXPECT_EQ(body["requested_queue"], placement["chosen"]);
  const std::string job_id = body["job_id"];
  const std::string queue = body["queue"];
  const std::vector<std::string> argv = body["bsub_argv"];
  EXPECT_THAT(argv, ::testing::IsSupersetOf({"-m", "node007", "-n", "2", "sleep 60"}));

  ASSERT_EQ(sim_.Lsf({"lsfsim", "schedule"}).exit_code, 0);
  const ProcessOutput bjobs = sim_.Lsf({"bjobs", "-w", job_id});
  ASSERT_EQ(bjobs.exit_code, 0) << bjobs.err;
  std::istringstream rows(bjobs.out);
  std::string header, job, user, stat, job_queue, from_host, exec_host;
  std::getline(rows, header);
  rows >> job >> user >> stat >> job_queue >> from_host >> exec_host;
  EXPECT_EQ(job, job_id);
  EXPECT_EQ(job_queue, queue);
  EXPECT_EQ(stat, "RUN");
  // LSF writes "2*node007" for two slots on node007.
  EXPECT_THAT(exec_host, ::testing::EndsWith("node007"));
}

TEST_F(DemoClusterTest, ProblemsForBadRequests) {
  EXPECT_EQ(daemon_.Get("/v1/hosts/no-such-host").status, 404);
  EXPECT_EQ(daemon_.Get("/v1/queues/no-such-queue").status, 404);
  EXPECT_EQ(daemon_.Get("/v1/hostgroups/no-such-group").status, 404);
  EXPECT_EQ(daemon_.Get("/v1/nothing").status, 404);
  EXPECT_EQ(daemon_.Post("/v1/queues", "{}").status, 405);
  const HttpReply bad_json = daemon_.Post("/v1/jobs", "{\"host\": ");
  EXPECT_EQ(bad_json.status, 400);
  EXPECT_EQ(bad_json.headers.at("content-type"), "application/problem+json");
  const HttpReply bad_slots =
      daemon_.Post("/v1/jobs", R"({"host":"node007","command":"true","slots":"two"})");
  EXPECT_EQ(bad_slots.status, 400);
  EXPECT_THAT(bad_slots.Json()["detail"].get<std::string>(), ::testing::HasSubstr("slots"));
  const HttpReply blocking = daemon_.Post("/v1/jobs", R"({"command":"true","extra_args":["-K"]})");
  EXPECT_EQ(blocking.status, 400);
  const json before = sim_.Counts();
  EXPECT_EQ(before.value("bsub", 0), 0) << "nothing is submitted for an invalid request";
}

TEST_F(DemoClusterTest, ClosedHostGetsConflictWithEveryReason) {
  // A host that is down: every queue that admits it says so.
  ASSERT_EQ(sim_.Lsf({"lsfsim", "set-host", "node007", "unavail"}).exit_code, 0);
  ASSERT_EQ(daemon_.Post("/v1/cache/refresh", "").status, 202);
  for (int i = 0; i < 200; ++i) {
    const json host = daemon_.Get("/v1/hosts/node007").Json();
    if (host["status"] == "unavail") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const HttpReply reply = daemon_.Post("/v1/jobs", JobBody("node007", 1));
  ASSERT_EQ(reply.status, 409) << reply.body;
  bool names_host = false;
  const json body = reply.Json();
  for (const json& excluded : body["excluded"]) {
    if (excluded["code"] == "host_unavailable") names_host = true;
  }
  EXPECT_TRUE(names_host) << reply.body;
}

TEST_F(DemoClusterTest, LearnsAnEsubRewriteAndRanksTheQueueByWhereJobsLand) {
  const HttpReply reply =
      daemon_.Post("/v1/jobs", json{{"queues", {"express"}}, {"command", "sleep 60"}}.dump());
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.Json()["requested_queue"], "express");
  EXPECT_EQ(reply.Json()["queue"], "short");  // the demo's esub moves express jobs
  const json placement = daemon_.Get("/v1/placement?queue=express,short").Json();
  bool found = false;
  for (const json& candidate : placement["candidates"]) {
    if (candidate["queue"] != "express") continue;
    found = true;
    EXPECT_EQ(candidate.value("lands_in", ""), "short") << candidate.dump();
  }
  EXPECT_TRUE(found) << placement.dump();
}

TEST_F(DemoClusterTest, SigtermFinishesAndExitsZero) { EXPECT_EQ(daemon_.Terminate(), 0); }

// [ib] source = "lsload": the simulator's `lsload -w -I ib_ok` stands in for
// rdma_probe running as an elim on every host.
class IbHealthTest : public ::testing::Test {
 protected:
  static DaemonSettings Settings() {
    DaemonSettings settings;
    settings.load_refresh_s = 1;
    settings.extra_config = "[ib]\nsource = \"lsload\"\n";
    return settings;
  }
  IbHealthTest() : sim_(DEMO_CLUSTER), daemon_(sim_, Settings()) {}

  // Waits for a load refresh to show `host` with InfiniBand `health`.
  void WaitForHealth(const std::string& host, const std::string& health) {
    for (int i = 0; i < 250; ++i) {
      if (daemon_.Get("/v1/hosts/" + host).Json()["ib"]["health"] == health) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL() << host << " never became " << health;
  }

  SimCluster sim_;
  DaemonProcess daemon_;
};

TEST_F(IbHealthTest, HostWhoseIbGoesBadIsNeverChosenAndComesBackAfterRecovery) {
  WaitForHealth("node007", "healthy");
  ASSERT_EQ(sim_.Lsf({"lsfsim", "set-ib", "node007", "0"}).exit_code, 0);
  WaitForHealth("node007", "unhealthy");
  const std::size_t jobs_before = FirstColumn(sim_.Lsf({"bjobs", "-u", "all", "-a"}).out).size();

  // A dry run answers as for any host no queue can take: 200, no choice,
  // every queue's reason.
  const HttpReply placement = daemon_.Get("/v1/placement?host=node007");
  EXPECT_EQ(placement.status, 200) << placement.body;
  EXPECT_TRUE(placement.Json()["chosen"].is_null()) << placement.body;
  EXPECT_THAT(placement.body, ::testing::HasSubstr("host node007 has unhealthy InfiniBand"));
  EXPECT_THAT(placement.body, ::testing::HasSubstr("\"host_ib_unhealthy\""));
  const HttpReply refused = daemon_.Post("/v1/jobs", JobBody("node007", 1));
  EXPECT_EQ(refused.status, 409) << refused.body;
  EXPECT_THAT(refused.body, ::testing::HasSubstr("ib_ok is 0"));
  EXPECT_EQ(FirstColumn(sim_.Lsf({"bjobs", "-u", "all", "-a"}).out).size(), jobs_before)
      << "nothing may be submitted for an unhealthy host";

  const json ib = daemon_.Get("/v1/ib").Json();
  EXPECT_EQ(ib["source"], "lsload");
  bool listed = false;
  for (const json& host : ib["unhealthy"]) listed |= host["host"] == "node007";
  EXPECT_TRUE(listed) << ib.dump();

  // Asked explicitly, a caller may still place there.
  EXPECT_EQ(daemon_.Get("/v1/placement?host=node007&require_ib=false").status, 200);

  ASSERT_EQ(sim_.Lsf({"lsfsim", "set-ib", "node007", "1"}).exit_code, 0);
  WaitForHealth("node007", "healthy");
  const HttpReply accepted = daemon_.Post("/v1/jobs", JobBody("node007", 1));
  ASSERT_EQ(accepted.status, 201) << accepted.body;
  const json job = accepted.Json();
  EXPECT_THAT(job["bsub_argv"].get<std::vector<std::string>>(),
              ::testing::Contains("select[!defined(ib_ok) || ib_ok==1]"));
}

// A bug once: /v1/ib called unreach and closed_Adm hosts healthy. Their
// ib_ok reads 1 in the demo, yet they take no new work (snapshot.h HostIbOf).
TEST_F(IbHealthTest, HostsThatTakeNoNewWorkAreNeverListedHealthy) {
  WaitForHealth("node007", "healthy");
  const json ib = daemon_.Get("/v1/ib").Json();
  std::map<std::string, std::string> verdict;
  for (const char* group : {"healthy", "unhealthy", "unknown"}) {
    for (const json& host : ib[group]) verdict[host["host"]] = group;
  }
  for (const char* host : {"node021", "node033", "node029", "bigmem02"}) {
    EXPECT_EQ(verdict[host], "unknown") << host << ": " << ib.dump();
  }
  const json closed = daemon_.Get("/v1/hosts/node021").Json();
  EXPECT_EQ(closed["ib"]["health"], "unknown");
  EXPECT_THAT(closed["ib"]["reasons"][0].get<std::string>(),
              ::testing::HasSubstr("bhosts -w says closed_Adm"));
  const json listed = daemon_.Get("/v1/hosts?ib=healthy").Json();
  for (const json& host : listed["hosts"]) EXPECT_TRUE(host["takes_new_work"]) << host.dump();
  EXPECT_EQ(verdict["node017"], "unhealthy");  // ib_ok = 0 stays unhealthy
}

TEST_F(IbHealthTest, ReportsHostsWithoutIbAsUnhealthyWithTheReason) {
  WaitForHealth("node017", "unhealthy");  // ib_ok = 0 in the demo cluster
  const json host = daemon_.Get("/v1/hosts/node017").Json();
  EXPECT_EQ(host["ib"]["source"], "lsload");
  EXPECT_TRUE(host["ib"]["age_s"].is_number()) << host.dump();
  EXPECT_THAT(host["ib"]["reasons"][0].get<std::string>(), ::testing::HasSubstr("ib_ok is 0"));
}

// [ib] source = "local" with the real rdma_probe on this machine, which has no
// RDMA hardware: the daemon's own host is reported unhealthy, with the probe's
// reason, and the daemon keeps serving.
TEST(IbLocalProbeTest, PublishesTheRealProbesVerdictForThisHost) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.extra_config = "[ib]\nsource = \"local\"\nprobe_path = \"" +
                          std::string(RDMA_PROBE_PATH) + "\"\nstate_file = \"" +
                          (sim.dir() / "ib-counters.json").string() +
                          "\"\nprobe_timeout_s = 5\nlocal_interval_s = 3600\n";
  DaemonProcess daemon(sim, settings);
  json ib;
  for (int i = 0; i < 250; ++i) {
    ib = daemon.Get("/v1/ib").Json();
    if (!ib["unhealthy"].empty() || !ib["healthy"].empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ib["source"], "local");
  if (!ib["healthy"].empty()) GTEST_SKIP() << "this machine has a healthy HCA: " << ib.dump();
  ASSERT_EQ(ib["unhealthy"].size(), 1u) << ib.dump();
  const std::string reasons = ib["unhealthy"][0]["reasons"].dump();
  EXPECT_TRUE(reasons.find("no RDMA stack") != std::string::npos ||
              reasons.find("no HCA") != std::string::npos)
      << reasons;
  EXPECT_EQ(daemon.Get("/readyz").status, 200);
}

// --- Identity: real users on a real Unix socket --------------------------------

// curl as `user` (setpriv) over the daemon's Unix socket; returns status and body.
HttpReply CurlAs(const std::string& user, const std::string& socket, const std::string& method,
                 const std::string& target, const std::string& body = "") {
  std::vector<std::string> argv;
  if (user != "root") {
    argv = {"/usr/bin/setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "--"};
  }
  argv.insert(argv.end(), {"/usr/bin/curl", "-s", "-w", "\n%{http_code}", "--unix-socket", socket,
                           "-X", method, "http://localhost" + target});
  if (!body.empty()) argv.insert(argv.end(), {"-H", "Content-Type: application/json", "-d", body});
  const ProcessOutput out = RunProcess(argv);
  HttpReply reply;
  const std::size_t newline = out.out.rfind('\n');
  if (newline == std::string::npos) return reply;
  reply.body = out.out.substr(0, newline);
  reply.status = std::atoi(out.out.substr(newline + 1).c_str());
  return reply;
}

// The USER column of `bjobs -u all -w` for job `id`.
std::string OwnerOf(const SimCluster& sim, const std::string& id) {
  std::istringstream rows(sim.Lsf({"bjobs", "-u", "all", "-a", "-w"}).out);
  std::string line;
  while (std::getline(rows, line)) {
    std::istringstream words(line);
    std::string job, user;
    if (words >> job >> user && job == id) return user;
  }
  return "";
}

// A user name no passwd database here knows (a fresh-clone CI run once
// failed because user `carol` existed on that machine).
const std::string& NoSuchUser() {
  static const std::string name = [] {
    std::random_device random;
    for (;;) {
      const std::string candidate = "bplace-nouser-" + std::to_string(random() % 1000000);
      if (getpwnam(candidate.c_str()) == nullptr) return candidate;
    }
  }();
  return name;
}

bool HaveTestUsers() {
  return geteuid() == 0 && CanRunAs("alice") && CanRunAs("bob") &&
         RunProcess({"/bin/sh", "-c", "command -v curl"}).exit_code == 0;
}

class MultiUserTest : public ::testing::Test {
 protected:
  static DaemonSettings Settings(const SimCluster& sim) {
    DaemonSettings settings;
    settings.multi_user = true;
    settings.unix_socket = (sim.dir() / "bplace.sock").string();
    settings.token_lines = {TokenHash("bob-read-only-token") + " bob read",
                            TokenHash("nouser-token") + " " + NoSuchUser() + " read,submit"};
    return settings;
  }
  void SetUp() override {
    if (!HaveTestUsers()) {
      GTEST_SKIP() << "needs root, setpriv, curl and the users alice and bob "
                      "(tools/test-users.sh)";
    }
    sim_ = std::make_unique<SimCluster>(DEMO_CLUSTER);
    daemon_ = std::make_unique<DaemonProcess>(*sim_, Settings(*sim_));
    socket_ = (sim_->dir() / "bplace.sock").string();
  }
  std::unique_ptr<SimCluster> sim_;
  std::unique_ptr<DaemonProcess> daemon_;
  std::string socket_;
};

TEST_F(MultiUserTest, JobsOverTheUnixSocketBelongToTheCallingUser) {
  const HttpReply alice =
      CurlAs("alice", socket_, "POST", "/v1/jobs", json{{"command", "sleep 60"}}.dump());
  ASSERT_EQ(alice.status, 201) << alice.body;
  const HttpReply bob =
      CurlAs("bob", socket_, "POST", "/v1/jobs", json{{"command", "sleep 60"}}.dump());
  ASSERT_EQ(bob.status, 201) << bob.body;
  EXPECT_EQ(json::parse(alice.body)["user"], "alice");
  EXPECT_EQ(OwnerOf(*sim_, json::parse(alice.body)["job_id"]), "alice");
  EXPECT_EQ(OwnerOf(*sim_, json::parse(bob.body)["job_id"]), "bob");
  // One audit record per decision, naming the caller and the job: a JSON
  // line each in the audit file, owner-only, none in the main log.
  std::ifstream audit(daemon_->audit_path());
  std::vector<json> records;
  int intents = 0;
  for (std::string line; std::getline(audit, line);) {
    json record = json::parse(line);
    if (record["event"] == "intent") ++intents;
    if (record["event"] == "submit") records.push_back(std::move(record));
  }
  EXPECT_EQ(intents, 2);  // each written before its bsub ran
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["caller"], "alice");
  EXPECT_EQ(records[0]["auth"], "peer_credentials");
  EXPECT_EQ(records[0]["decision"], "submitted");
  EXPECT_EQ(records[1]["job_id"], json::parse(bob.body)["job_id"]);
  EXPECT_TRUE(records[1]["time"].is_string());
  EXPECT_EQ(
      std::filesystem::status(daemon_->audit_path()).permissions() & std::filesystem::perms::all,
      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::ifstream log(daemon_->log_path());
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr(" audit {")));
}

TEST_F(MultiUserTest, OnlyTheOwnerCancelsAJobAndBkillRunsAsTheCaller) {
  const HttpReply alice =
      CurlAs("alice", socket_, "POST", "/v1/jobs", json{{"command", "sleep 600"}}.dump());
  ASSERT_EQ(alice.status, 201) << alice.body;
  const std::string id = json::parse(alice.body)["job_id"];
  const HttpReply by_bob = CurlAs("bob", socket_, "DELETE", "/v1/jobs/" + id);
  EXPECT_EQ(by_bob.status, 403) << by_bob.body;
  EXPECT_THAT(by_bob.body, ::testing::HasSubstr("belongs to alice"));
  const HttpReply mine = CurlAs("alice", socket_, "DELETE", "/v1/jobs/" + id);
  EXPECT_EQ(mine.status, 202) << mine.body;
  // LSF recorded the kill as the owner's (lsfsim: TERM_OWNER).
  const std::string reason = sim_->Lsf({"bjobs", "-a", "-o", "exit_reason", "-json", id}).out;
  EXPECT_THAT(reason, ::testing::HasSubstr("TERM_OWNER"));
}

TEST_F(MultiUserTest, RootIsRefusedAndNothingIsSubmitted) {
  const std::size_t before = FirstColumn(sim_->Lsf({"bjobs", "-u", "all", "-a"}).out).size();
  const HttpReply root =
      CurlAs("root", socket_, "POST", "/v1/jobs", json{{"command", "sleep 60"}}.dump());
  EXPECT_EQ(root.status, 403) << root.body;
  EXPECT_THAT(root.body, ::testing::HasSubstr("uid 0 (root) may not submit"));
  EXPECT_EQ(FirstColumn(sim_->Lsf({"bjobs", "-u", "all", "-a"}).out).size(), before);
  EXPECT_EQ(CurlAs("root", socket_, "GET", "/v1/queues").status, 200);  // reading is fine
}

TEST_F(MultiUserTest, TokensActForTheirOwnUserOnly) {
  // The harness token is alice's: her job, and naming bob in the body is refused.
  const HttpReply as_bob =
      daemon_->Post("/v1/jobs", json{{"command", "sleep 1"}, {"user", "bob"}}.dump());
  EXPECT_EQ(as_bob.status, 400) << as_bob.body;
  const HttpReply own = daemon_->Post("/v1/jobs", json{{"command", "sleep 1"}}.dump());
  ASSERT_EQ(own.status, 201) << own.body;
  EXPECT_EQ(OwnerOf(*sim_, own.Json()["job_id"]), "alice");

  const std::string job = json{{"command", "sleep 1"}}.dump();
  const HttpReply unknown =
      Http(daemon_->port(), "POST", "/v1/jobs", job, "application/json", "Bearer not-a-token");
  EXPECT_EQ(unknown.status, 401) << unknown.body;
  EXPECT_EQ(unknown.headers.at("www-authenticate"), "Bearer realm=\"bplace\"");
  const HttpReply read_only = Http(daemon_->port(), "POST", "/v1/jobs", job, "application/json",
                                   "Bearer bob-read-only-token");
  EXPECT_EQ(read_only.status, 403) << read_only.body;
  EXPECT_THAT(read_only.body, ::testing::HasSubstr("lacks the `submit` scope"));
  // A token of a user who has no account here.
  const HttpReply no_account =
      Http(daemon_->port(), "POST", "/v1/jobs", job, "application/json", "Bearer nouser-token");
  EXPECT_EQ(no_account.status, 403) << no_account.body;
  EXPECT_THAT(no_account.body, ::testing::HasSubstr("not in the passwd database"));
  // Anonymous TCP callers may read (anonymous_read) but never submit: 401,
  // since a token could help.
  const HttpReply anonymous = Http(daemon_->port(), "POST", "/v1/jobs", job);
  EXPECT_EQ(anonymous.status, 401) << anonymous.body;
  EXPECT_EQ(anonymous.headers.at("www-authenticate"), "Bearer realm=\"bplace\"");
}

TEST(ServiceAccountTest, AnotherUidOnTheSocketMayReadButNotSubmit) {
  if (!HaveTestUsers()) GTEST_SKIP() << "needs root, setpriv, curl, alice and bob";
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.unix_socket = (sim.dir() / "bplace.sock").string();
  DaemonProcess daemon(sim, settings);  // runs as bplace-sys
  const HttpReply submit = CurlAs("alice", settings.unix_socket, "POST", "/v1/jobs",
                                  json{{"command", "sleep 1"}}.dump());
  EXPECT_EQ(submit.status, 403) << submit.body;
  EXPECT_THAT(submit.body, ::testing::HasSubstr("only bplace-sys may submit"));
  EXPECT_EQ(CurlAs("alice", settings.unix_socket, "GET", "/v1/queues").status, 200);
  const HttpReply own = CurlAs("bplace-sys", settings.unix_socket, "POST", "/v1/jobs",
                               json{{"command", "sleep 1"}}.dump());
  EXPECT_EQ(own.status, 201) << own.body;
}

// systemd socket activation: systemd-socket-activate owns the Unix socket and
// passes it as fd 3 (LISTEN_FDS=1); bplaced serves on it and ignores listen.
TEST(SocketActivationTest, ServesOnTheSocketSystemdPasses) {
  if (!HaveTestUsers() || !std::filesystem::exists("/usr/bin/systemd-socket-activate")) {
    GTEST_SKIP() << "needs root, the test users, curl and systemd-socket-activate";
  }
  SimCluster sim(DEMO_CLUSTER);
  const std::string socket = (sim.dir() / "activated.sock").string();
  DaemonSettings settings;
  settings.launcher = {"/usr/bin/systemd-socket-activate", "-l", socket, "--"};
  DaemonProcess daemon(sim, settings);
  HttpReply health;
  for (int i = 0; i < 100 && health.status != 200; ++i) {
    if (std::filesystem::exists(socket)) health = CurlAs("root", socket, "GET", "/healthz");
    if (health.status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(health.status, 200) << health.body;
  HttpReply queues;
  for (int i = 0; i < 100 && queues.status != 200; ++i) {
    // The socket is systemd-socket-activate's (mode from its umask); the
    // daemon's own user may always connect.
    queues = CurlAs("bplace-sys", socket, "GET", "/v1/queues");
    if (queues.status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(queues.status, 200) << queues.body;
  std::ifstream log(daemon.log_path());
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, ::testing::HasSubstr("listening on unix:" + socket));
  EXPECT_EQ(daemon.Terminate(), 0);
}

TEST(LimitsTest, SubmissionsBeyondTheBurstGet429WithRetryAfter) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.limits = "submit_burst = 2\nsubmit_per_minute = 1";
  DaemonProcess daemon(sim, settings);
  const std::string job = json{{"command", "sleep 1"}}.dump();
  EXPECT_EQ(daemon.Post("/v1/jobs", job).status, 201);
  EXPECT_EQ(daemon.Post("/v1/jobs", job).status, 201);
  const HttpReply third = daemon.Post("/v1/jobs", job);
  EXPECT_EQ(third.status, 429) << third.body;
  ASSERT_TRUE(third.headers.count("retry-after"));
  EXPECT_GE(std::atoi(third.headers.at("retry-after").c_str()), 1);
}

TEST(OverloadTest, ServiceResumesAfterMoreConnectionsThanTheLimit) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.server_config = "max_connections = 200\n";
  DaemonProcess daemon(sim, settings);
  // Far more silent connections than server.max_connections (200 here): the
  // ones beyond it are answered 503 and closed; the rest are held open.
  std::vector<int> held;
  int refused = 0;
  for (int i = 0; i < 300; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(daemon.port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      close(fd);
      continue;
    }
    held.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int fd : held) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, 0) > 0) {
      char buffer[64] = {};
      if (recv(fd, buffer, sizeof buffer - 1, MSG_DONTWAIT) > 0 &&
          std::string(buffer).find(" 503 ") != std::string::npos) {
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, 0) << "no connection was turned away with 503";
  for (int fd : held) close(fd);
  bool served = false;
  for (int i = 0; i < 100 && !served; ++i) {
    served = daemon.Get("/v1/queues").status == 200;
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(served);
  EXPECT_EQ(daemon.Post("/v1/jobs", json{{"command", "sleep 1"}}.dump()).status, 201);
}

TEST(LsfDownTest, ReadsStayUpSubmissionsFailFastAndServiceRecovers) {
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.command_timeout_s = 2;
  settings.load_refresh_s = 1;
  settings.topology_refresh_s = 2;
  settings.max_staleness_s = 60;
  DaemonProcess daemon(sim, settings);

  ASSERT_EQ(sim.Lsf({"lsfsim", "fault", "--down", "hang"}).exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const HttpReply first = daemon.Get("/v1/queues");
  ASSERT_EQ(first.status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  const HttpReply second = daemon.Get("/v1/queues");
  ASSERT_EQ(second.status, 200);
  EXPECT_GT(second.Json()["age_s"].get<double>(), first.Json()["age_s"].get<double>());
  const json cluster = daemon.Get("/v1/cluster").Json();
  EXPECT_FALSE(cluster["load"]["last_error"].is_null()) << cluster.dump();

  const auto started = std::chrono::steady_clock::now();
  const HttpReply submit = daemon.Post("/v1/jobs", JobBody("node007", 1));
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_THAT(submit.status, ::testing::AnyOf(503, 504)) << submit.body;
  EXPECT_LT(took, std::chrono::seconds(settings.command_timeout_s + 2));

  ASSERT_EQ(sim.Lsf({"lsfsim", "fault", "--clear"}).exit_code, 0);
  bool recovered = false;
  for (int i = 0; i < 100 && !recovered; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const json queues = daemon.Get("/v1/queues").Json();
    recovered = queues["age_s"].get<double>() < 1.5;
  }
  EXPECT_TRUE(recovered);
  const HttpReply after = daemon.Post("/v1/jobs", JobBody("node007", 1));
  EXPECT_EQ(after.status, 201) << after.body;
}

TEST(SystemdTest, NotifiesReadyAfterFirstSnapshotAndStoppingOnSigterm) {
  SimCluster sim(DEMO_CLUSTER);
  const std::string socket_path = (sim.dir() / "notify").string();
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  // The daemon may run as the service user, as under systemd.
  ASSERT_EQ(chmod(socket_path.c_str(), 0777), 0);
  auto receive = [fd](int timeout_ms) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, timeout_ms) <= 0) return std::string();
    char buffer[1024];
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
  };
  DaemonSettings settings;
  settings.env["NOTIFY_SOCKET"] = socket_path;
  DaemonProcess daemon(sim, settings);  // returns once /readyz is 200
  EXPECT_THAT(receive(5000), ::testing::HasSubstr("READY=1"));
  EXPECT_EQ(daemon.Terminate(), 0);
  EXPECT_THAT(receive(5000), ::testing::HasSubstr("STOPPING=1"));
  close(fd);
}

// "Any directory of executables that print LSF-format output": plain scripts
// replaying the volclava (OpenLava family) captures of
// tests/testdata/lsf/openlava/.
TEST(CapturedOutputTest, ServesAnOpenLavaClusterFromScriptsPrintingCapturedText) {
  SimCluster scratch(DEMO_CLUSTER);  // used for its temp dir only
  const std::filesystem::path bin = scratch.dir() / "bin";
  const std::string data = std::string(TESTDATA_DIR) + "/lsf/openlava/";
  std::filesystem::create_directories(bin);
  const std::map<std::string, std::string> scripts = {
      {"bqueues",
       "case \"$*\" in\n"
       "  *-l*) cat " +
           data +
           "bqueues_l.txt ;;\n"
           "  *-u*) cat " +
           data +
           "bqueues_u_alice.txt ;;\n"
           "  *) cat " +
           data +
           "bqueues_w.txt ;;\n"
           "esac\n"},
      {"bmgroup", "cat " + data + "bmgroup_w.txt\n"},
      {"bugroup", "cat " + data + "bugroup_w.txt\n"},
      {"bhosts", "cat " + data + "bhosts_w.txt\n"},
      {"lsid", "cat " + data + "lsid.txt\n"},
      {"bsub", "echo \"Job <42> is submitted to queue <$2>.\"\n"},
  };
  for (const auto& [name, body] : scripts) {
    const auto path = bin / name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    // Readable and executable by the service user the daemon may run as.
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                  std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                  std::filesystem::perms::others_exec);
  }
  DaemonSettings settings;
  settings.bin_dir = bin.string();
  DaemonProcess daemon(scratch, settings);

  // `bqueues -m vm` on that cluster listed all nine queues (the volclava
  // capture).
  const json host = daemon.Get("/v1/hosts/vm").Json();
  std::set<std::string> admitting;
  for (const json& queue : host["queues"]) admitting.insert(queue["queue"]);
  EXPECT_EQ(admitting, (std::set<std::string>{"adminq", "short", "devq", "aliceq", "normal",
                                              "bigmem", "outer", "closedq", "inactq"}));
  const json cluster = daemon.Get("/v1/cluster").Json();
  EXPECT_EQ(cluster["cluster_name"], "olcluster");

  const json placement = daemon.Get("/v1/placement?host=vm").Json();
  std::map<std::string, std::string> codes;
  for (const json& excluded : placement["excluded"]) codes[excluded["queue"]] = excluded["code"];
  EXPECT_EQ(codes["closedq"], "queue_closed");
  EXPECT_EQ(codes["adminq"], "user_not_permitted");
  ASSERT_FALSE(placement["candidates"].empty());
  EXPECT_EQ(placement["candidates"].back()["queue"], "inactq");  // Inact ranks last

  const HttpReply submit = daemon.Post("/v1/jobs", JobBody("vm", 1));
  ASSERT_EQ(submit.status, 201) << submit.body;
  EXPECT_EQ(submit.Json()["job_id"], "42");
  EXPECT_EQ(submit.Json()["queue"], placement["chosen"]);
}

TEST(StartupTest, BadConfigExitsNonZeroNamingFileLineAndKey) {
  char pattern[] = "/tmp/bplace-cfg-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string path = dir + "/bad.toml";
  { std::ofstream(path) << "[lsf]\ncommand_timeout_s = 5\nload_refesh_s = 10\n"; }
  const ProcessOutput out = RunProcess({BPLACED_PATH, "--config", path});
  EXPECT_NE(out.exit_code, 0);
  EXPECT_THAT(out.err, ::testing::HasSubstr(path + ":3"));
  EXPECT_THAT(out.err, ::testing::HasSubstr("load_refesh_s"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bplace::testing
