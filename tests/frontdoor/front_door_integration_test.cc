// The front door (bsub, bjobs, bkill of frontdoor/) against the real bplaced
// and the LSF simulator: LSF's bytes, read-your-writes, exactly once, and
// the real commands when bplaced cannot answer (docs/lsf-front-door.md).

#include <unistd.h>

#include <filesystem>
#include <regex>
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

// The front door over TCP with the harness's token (the service user, who
// may submit in service-account mode), the simulator as the real LSF.
class FrontDoorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sim_ = std::make_unique<SimCluster>(DEMO_CLUSTER);
    DaemonSettings settings;
    settings.jobs_refresh_s = 1;
    settings.load_refresh_s = 1;
    // bsub runs as the service user in the directory it was called from.
    fs::permissions(sim_->dir(), fs::perms::all, fs::perm_options::add);
    daemon_ = std::make_unique<DaemonProcess>(*sim_, settings);
  }
  static void TearDownTestSuite() {
    daemon_.reset();
    sim_.reset();
  }

  static std::map<std::string, std::string> Env() {
    return {{"BPLACE_URL", "http://127.0.0.1:" + std::to_string(daemon_->port())},
            {"BPLACE_TOKEN", daemon_->token()},
            {"LSF_BINDIR", LSFSIM_BIN_DIR},
            {"LSF_ENVDIR", (sim_->dir() / "lsf").string()}};
  }

  // Runs a front-door command in the simulator's directory.
  static ProcessOutput Door(const std::string& command, const std::vector<std::string>& args,
                            std::map<std::string, std::string> env = Env()) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"",
                                     sim_->dir().string(),
                                     std::string(FRONTDOOR_DIR) + "/" + command};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, env);
  }

  // The daemon's own answer to a front-door route, without the binary.
  static json Route(const std::string& command, const std::vector<std::string>& args) {
    json body{{"argv", args}};
    if (command == "bsub") body["cwd"] = sim_->dir().string();
    return daemon_->Post("/v1/lsf/" + command, body.dump()).Json();
  }

  // The route's answer once the jobs tier has refreshed after the first
  // call (which follows ids it did not know): a long poll of GET /v1/jobs
  // waits for the next refresh, no sleep.
  static json RouteAfterRefresh(const std::string& command, const std::vector<std::string>& args) {
    json answer = Route(command, args);
    for (int i = 0; i < 3 && !answer.contains("stdout"); ++i) {
      daemon_->Call("GET", "/v1/jobs?wait_s=5");
      answer = Route(command, args);
    }
    return answer;
  }

  // For each bjobs argv of `forms`: the daemon's answer is, byte for byte,
  // what the simulator's own bjobs prints (stdout, stderr, exit status).
  static void ExpectBjobsAnswersAsLsfDoes(const std::vector<std::vector<std::string>>& forms) {
    for (const auto& form : forms) {
      std::vector<std::string> lsf = {"bjobs"};
      lsf.insert(lsf.end(), form.begin(), form.end());
      const json answer = RouteAfterRefresh("bjobs", form);
      const ProcessOutput real = sim_->Lsf(lsf);
      ASSERT_TRUE(answer.contains("stdout")) << ::testing::PrintToString(form) << answer.dump();
      EXPECT_EQ(answer["stdout"], real.out) << ::testing::PrintToString(form);
      EXPECT_EQ(answer["stderr"], real.err) << ::testing::PrintToString(form);
      EXPECT_EQ(answer["exit_code"], real.exit_code) << ::testing::PrintToString(form);
    }
  }

  static std::string JobIdOf(const std::string& bsub_out) {
    std::smatch match;
    const std::regex line(R"(^Job <(\d+)> is submitted to queue <[^>]+>\.\n$)");
    return std::regex_match(bsub_out, match, line) ? match[1].str() : "";
  }

  // Waits (long polls, no sleep) until the jobs tier shows `id` in `status`.
  static void WaitForStatus(const std::string& id, const std::string& status) {
    for (int i = 0; i < 20; ++i) {
      const json job = daemon_->Call("GET", "/v1/jobs/" + id + "?wait_s=5").Json();
      if (job.value("status", "") == status) return;
    }
    FAIL() << "job " << id << " never showed " << status;
  }

  static inline std::unique_ptr<SimCluster> sim_;
  static inline std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(FrontDoorTest, BsubPrintsExactlyBsubsLineAndSubmitsThroughBplaced) {
  const ProcessOutput out = Door("bsub", {"-J", "fd_one", "-n", "1", "sleep", "60"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.err, "");
  const std::string id = JobIdOf(out.out);
  ASSERT_FALSE(id.empty()) << out.out;
  // bplace tagged it: it came through the daemon, not the real bsub.
  const ProcessOutput lsf = sim_->Lsf({"bjobs", "-o", "job_name job_description", "-json", id});
  const json record = json::parse(lsf.out)["RECORDS"][0];
  EXPECT_EQ(record["JOB_NAME"], "fd_one");
  EXPECT_THAT(record["JOB_DESCRIPTION"].get<std::string>(), ::testing::StartsWith("bplace:"));
}

TEST_F(FrontDoorTest, AJobJustSubmittedIsListedAtOnceAsPend) {
  const ProcessOutput out = Door("bsub", {"true"});
  const std::string id = JobIdOf(out.out);
  ASSERT_FALSE(id.empty()) << out.out << out.err;
  const json answer = Route("bjobs", {"-o", "stat", "-noheader", id});
  ASSERT_TRUE(answer.contains("stdout")) << answer.dump();
  EXPECT_EQ(answer["stdout"], "PEND\n");
  EXPECT_EQ(answer["exit_code"], 0);
}

TEST_F(FrontDoorTest, BjobsFormsAreByteForByteWhatTheSimulatorPrints) {
  std::vector<std::string> ids;
  for (const char* name : {"fd_run", "fd_pend", "fd_exit"}) {
    const ProcessOutput out = Door("bsub", {"-J", name, "sleep", "600"});
    ids.push_back(JobIdOf(out.out));
    ASSERT_FALSE(ids.back().empty()) << out.out << out.err;
  }
  ASSERT_EQ(sim_->Lsf({"lsfsim", "schedule"}).exit_code, 0);
  ASSERT_EQ(sim_->Lsf({"lsfsim", "finish", ids[2], "--exit", "3"}).exit_code, 0);
  WaitForStatus(ids[2], "EXIT");
  const std::vector<std::vector<std::string>> forms = {
      {"-o", "stat", "-noheader", ids[0]},
      {"-noheader", "-o", "jobid stat", ids[0], ids[1], ids[2]},
      {"-o", "jobid stat exec_host delimiter='^'", "-noheader", ids[0], ids[2]},
      {"-json", "-o", "jobid user exit_code stat exit_reason", ids[2]},
      {"-o", "id stat:6 queue:-12", ids[0]},
      {ids[0], ids[1]},
      {"-w", ids[2]},
      {"-o", "stat", "-noheader", ids[0], "999999"},
      {"-json", "-o", "jobid stat", ids[1], "999999"},
  };
  ExpectBjobsAnswersAsLsfDoes(forms);
}

TEST_F(FrontDoorTest, AnsweredBjobsCostsMbatchdNothing) {
  const std::string id = JobIdOf(Door("bsub", {"true"}).out);
  ASSERT_FALSE(id.empty());
  WaitForStatus(id, "PEND");
  const long long before = sim_->Counts().value("bjobs", 0LL);
  for (int i = 0; i < 20; ++i) {
    const ProcessOutput out = Door("bjobs", {"-o", "stat", "-noheader", id});
    ASSERT_EQ(out.exit_code, 0) << out.err;
    ASSERT_EQ(out.out, "PEND\n");
  }
  // The jobs tier runs one bjobs a second here; twenty front-door calls in
  // far less than twenty seconds add none of their own.
  EXPECT_LT(sim_->Counts().value("bjobs", 0LL) - before, 20);
}

TEST_F(FrontDoorTest, BjobsLongIsLsfsOwnBlocksByteForByte) {
  std::vector<std::string> ids;
  for (const char* name : {"fd_long_exit", "fd_long_done"}) {
    const ProcessOutput out = Door("bsub", {"-J", name, "sleep", "600"});
    ids.push_back(JobIdOf(out.out));
    ASSERT_FALSE(ids.back().empty()) << out.out << out.err;
  }
  ASSERT_EQ(sim_->Lsf({"lsfsim", "schedule"}).exit_code, 0);
  ASSERT_EQ(sim_->Lsf({"lsfsim", "finish", ids[0], "--exit", "3"}).exit_code, 0);
  ASSERT_EQ(sim_->Lsf({"lsfsim", "finish", ids[1]}).exit_code, 0);
  WaitForStatus(ids[0], "EXIT");
  WaitForStatus(ids[1], "DONE");
  const std::string pending = JobIdOf(Door("bsub", {"-J", "fd_long_pend", "sleep", "600"}).out);
  ASSERT_FALSE(pending.empty());
  WaitForStatus(pending, "PEND");
  const std::vector<std::vector<std::string>> forms = {
      {"-l", ids[0]},           {"-l", ids[1]},
      {"-l", pending},          {"-a", "-l", ids[0], ids[1], pending},
      {"-l", ids[0], "999999"},
  };
  ExpectBjobsAnswersAsLsfDoes(forms);
  // What Toil reads in it, through the command itself (the simulator's jobs
  // here never ran for real, so there is no MAX MEM line).
  const ProcessOutput exited = Door("bjobs", {"-l", ids[0]});
  EXPECT_EQ(exited.exit_code, 0) << exited.err;
  EXPECT_THAT(exited.out, ::testing::HasSubstr("Exited with exit code 3."));
}

TEST_F(FrontDoorTest, PollingBjobsLongCostsMbatchdOneFetchPerStateNotOnePerPoll) {
  const std::string id = JobIdOf(Door("bsub", {"-J", "fd_long_poll", "sleep", "600"}).out);
  ASSERT_FALSE(id.empty());
  WaitForStatus(id, "PEND");
  // The first -l of the job: fetched by the tier, then answered.
  ASSERT_EQ(Door("bjobs", {"-l", id}).exit_code, 0);
  const std::string lsfs = sim_->Lsf({"bjobs", "-l", id}).out;
  const long long lsf_before = sim_->Counts().value("bjobs", 0LL);
  const long long daemon_before = daemon_->LsfCommandsRun("bjobs");
  for (int i = 0; i < 20; ++i) {
    const ProcessOutput out = Door("bjobs", {"-l", id});
    ASSERT_EQ(out.exit_code, 0) << out.err;
    ASSERT_EQ(out.out, lsfs);
  }
  const long long daemon_after = daemon_->LsfCommandsRun("bjobs");
  const long long lsf_after = sim_->Counts().value("bjobs", 0LL);
  // The bjobs mbatchd saw meanwhile were bplaced's own (its tier's cycles),
  // give or take those of one cycle in flight when a count was read (the
  // simulator counts a bjobs when it starts, bplaced when it ends; a cycle
  // runs at most three). Had the front door run LSF's bjobs -l, the
  // difference would be 20.
  EXPECT_LE((lsf_after - lsf_before) - (daemon_after - daemon_before), 3);
}

TEST_F(FrontDoorTest, BkillKillsOnceAndAFinishedJobIsAnsweredWithoutLsf) {
  const std::string id = JobIdOf(Door("bsub", {"sleep", "600"}).out);
  ASSERT_FALSE(id.empty());
  WaitForStatus(id, "PEND");
  const ProcessOutput kill = Door("bkill", {id});
  EXPECT_EQ(kill.exit_code, 0) << kill.err;
  EXPECT_EQ(kill.out, "Job <" + id + "> is being terminated\n");
  WaitForStatus(id, "EXIT");
  const long long before = sim_->Counts().value("bkill", 0LL);
  const json again = Route("bkill", {id});
  EXPECT_EQ(again["stderr"], "Job <" + id + ">: Job has already finished\n");
  EXPECT_EQ(again["exit_code"], 255);
  EXPECT_EQ(sim_->Counts().value("bkill", 0LL), before);
}

TEST_F(FrontDoorTest, FormsBplaceDoesNotAnswerRunTheRealCommand) {
  EXPECT_TRUE(Route("bjobs", {"-l", "-u", "all"}).contains("run_lsf"));
  // Lists are answered from the view (bjobs_list_integration_test.cc),
  // except another user's (or a user group's).
  EXPECT_TRUE(Route("bjobs", {"-u", "another_user"}).contains("run_lsf"));
  EXPECT_TRUE(Route("bkill", {"0"}).contains("run_lsf"));
  const json interactive = Route("bsub", {"-Is", "bash"});
  ASSERT_TRUE(interactive.contains("run_lsf")) << interactive.dump();
  // Placement adds the queue; the rest is the user's command line.
  const auto args = interactive["run_lsf"].get<std::vector<std::string>>();
  ASSERT_EQ(args.size(), 4u);
  EXPECT_EQ(args[0], "-q");
  EXPECT_EQ(args[2], "-Is");
  // -q naming no queue is not "any queue": LSF answers it, as the user
  // wrote it, whether bplace would have submitted it or not.
  for (const std::vector<std::string>& empty_queue :
       {std::vector<std::string>{"-q", "", "true"}, {"-q", "", "-Is", "bash"}}) {
    const json answer = Route("bsub", empty_queue);
    ASSERT_TRUE(answer.contains("run_lsf")) << answer.dump();
    EXPECT_EQ(answer["run_lsf"].get<std::vector<std::string>>(), empty_queue) << answer.dump();
  }
}

TEST(FrontDoorIb, ABsubLsfWouldStartOnASickHostIsRefusedNotHandedToLsf) {
  // [ib] source = "lsload": node017's InfiniBand is unhealthy (ib_ok 0 in
  // the demo's lsload). LSF's own bsub would take the job and start it there.
  SimCluster sim(DEMO_CLUSTER);
  DaemonSettings settings;
  settings.extra_config = "[ib]\nsource = \"lsload\"\n";
  fs::permissions(sim.dir(), fs::perms::all, fs::perm_options::add);
  DaemonProcess daemon(sim, settings);
  const auto route = [&](const std::vector<std::string>& args) {
    const json body{{"argv", args}, {"cwd", sim.dir().string()}};
    return daemon.Post("/v1/lsf/bsub", body.dump()).Json();
  };
  const json sick = route({"-m", "node017", "true"});
  ASSERT_TRUE(sick.contains("exit_code")) << sick.dump();
  EXPECT_EQ(sick["exit_code"], 255);
  EXPECT_EQ(sick["stdout"], "");
  EXPECT_NE(sick["stderr"].get<std::string>().find("host node017 has unhealthy InfiniBand"),
            std::string::npos)
      << sick["stderr"];
  const ProcessOutput door =
      RunProcess({"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", sim.dir().string(),
                  std::string(FRONTDOOR_DIR) + "/bsub", "-m", "node017", "true"},
                 {{"BPLACE_URL", "http://127.0.0.1:" + std::to_string(daemon.port())},
                  {"BPLACE_TOKEN", daemon.token()},
                  {"LSF_BINDIR", LSFSIM_BIN_DIR},
                  {"LSF_ENVDIR", (sim.dir() / "lsf").string()}});
  EXPECT_EQ(door.exit_code, 255) << door.out << door.err;
  EXPECT_EQ(door.out, "");
  EXPECT_EQ(sim.Counts().value("bsub", -1), 0) << "no bsub reached LSF";
  // A queue LSF refuses too (maint is closed): LSF says why in its words.
  EXPECT_TRUE(route({"-q", "maint", "true"}).contains("run_lsf"));
}

// In multi-user mode `bkill 0` and `bkill -J` go through bplaced as the
// caller: LSF's own answer, only the caller's jobs, one bkill.
TEST(FrontDoorMultiUser, BkillZeroAndByNameKillOnlyTheCallersJobsThroughBplaced) {
  if (geteuid() != 0 || !CanRunAs("alice") || !CanRunAs("bob")) {
    GTEST_SKIP() << "needs root and the users alice and bob (tools/test-users.sh)";
  }
  SimCluster sim(DEMO_CLUSTER);
  fs::permissions(sim.dir(), fs::perms::all, fs::perm_options::add);
  DaemonSettings settings;
  settings.multi_user = true;
  settings.jobs_refresh_s = 1;
  settings.unix_socket = (sim.dir() / "bplace.sock").string();
  DaemonProcess daemon(sim, settings);
  const auto door = [&](const std::string& user, const std::vector<std::string>& words) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"",
                                     sim.dir().string(),
                                     std::string(FRONTDOOR_DIR) + "/" + words.front()};
    argv.insert(argv.end(), words.begin() + 1, words.end());
    return RunProcessAs(user, argv,
                        {{"BPLACE_URL", "unix:" + settings.unix_socket},
                         {"BPLACE_TOKEN", ""},
                         {"LSF_BINDIR", LSFSIM_BIN_DIR},
                         {"LSF_ENVDIR", (sim.dir() / "lsf").string()}});
  };
  const auto status = [&](const std::string& id) {
    const ProcessOutput out = sim.Lsf({"bjobs", "-o", "stat", "-noheader", id});
    return out.out.substr(0, out.out.find('\n'));
  };
  std::vector<std::string> alice;
  for (const char* name : {"one", "two", "named"}) {
    const ProcessOutput out = door("alice", {"bsub", "-J", name, "sleep", "600"});
    ASSERT_EQ(out.exit_code, 0) << out.err;
    alice.push_back(out.out.substr(5, out.out.find('>') - 5));
  }
  const ProcessOutput bob = door("bob", {"bsub", "-J", "named", "sleep", "600"});
  ASSERT_EQ(bob.exit_code, 0) << bob.err;
  const std::string bobs = bob.out.substr(5, bob.out.find('>') - 5);

  ProcessOutput kill = door("alice", {"bkill", "-J", "named"});
  EXPECT_EQ(kill.exit_code, 0) << kill.err;
  EXPECT_EQ(kill.out, "Job <" + alice[2] + "> is being terminated\n");
  EXPECT_EQ(status(alice[2]), "EXIT");
  EXPECT_EQ(status(bobs), "PEND") << "bob's job of the same name";

  kill = door("alice", {"bkill", "0"});
  EXPECT_EQ(kill.exit_code, 0) << kill.err;
  EXPECT_THAT(kill.out, ::testing::HasSubstr("Job <" + alice[0] + "> is being terminated\n"));
  EXPECT_THAT(kill.out, ::testing::HasSubstr("Job <" + alice[1] + "> is being terminated\n"));
  EXPECT_EQ(status(alice[0]), "EXIT");
  EXPECT_EQ(status(alice[1]), "EXIT");
  EXPECT_EQ(status(bobs), "PEND");
  // Both went through bplaced: every bkill LSF saw was bplaced's.
  EXPECT_EQ(sim.Counts().value("bkill", 0LL), 2);
  EXPECT_EQ(daemon.LsfCommandsRun("bkill"), 2);
}

// bplaced killed -9 while the front door's bsub waits for it, and started
// again: the front door asks again with its key, the restarted daemon finds
// the job in LSF by its tag, and the engine gets exactly one job and bsub's
// line.
TEST(FrontDoorCrash, ADaemonKilledDuringBsubGivesExactlyOneJobAndItsLine) {
  SimCluster sim(DEMO_CLUSTER);
  std::filesystem::permissions(sim.dir(), std::filesystem::perms::all,
                               std::filesystem::perm_options::add);
  DaemonSettings settings;
  settings.unix_socket = (sim.dir() / "bplace.sock").string();
  settings.jobs_refresh_s = 1;
  auto daemon = std::make_unique<DaemonProcess>(sim, settings);
  const std::string user = daemon->service_user();
  // bsub takes three seconds: time to kill the daemon while it runs.
  ASSERT_EQ(sim.Lsf({"lsfsim", "fault", "--command", "bsub", "--slow-ms", "3000"}).exit_code, 0);
  ProcessOutput submitted;
  std::thread engine([&] {
    submitted =
        RunProcessAs(user,
                     {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", sim.dir().string(),
                      std::string(FRONTDOOR_DIR) + "/bsub", "-J", "crash_one", "sleep", "60"},
                     {{"BPLACE_URL", "unix:" + settings.unix_socket},
                      {"BPLACE_TOKEN", ""},
                      {"LSF_BINDIR", LSFSIM_BIN_DIR},
                      {"LSF_ENVDIR", (sim.dir() / "lsf").string()}},
                     std::chrono::seconds(300));
  });
  // The daemon's bsub has started (the simulator counted it): kill -9.
  for (int i = 0; i < 300 && sim.Counts().value("bsub", 0LL) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(sim.Counts().value("bsub", 0LL), 0);
  daemon->Kill9();
  daemon.reset();
  ASSERT_EQ(sim.Lsf({"lsfsim", "fault", "--clear"}).exit_code, 0);
  daemon = std::make_unique<DaemonProcess>(sim, settings);
  engine.join();
  EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_THAT(submitted.out,
              ::testing::MatchesRegex("Job <[0-9]+> is submitted to queue <[a-z_]+>\\.\n"));
  const ProcessOutput jobs = sim.Lsf({"bjobs", "-a", "-u", "all", "-o", "jobid job_name", "-json"});
  const json records = json::parse(jobs.out)["RECORDS"];
  int named = 0;
  for (const json& record : records) named += record.value("JOB_NAME", "") == "crash_one" ? 1 : 0;
  EXPECT_EQ(named, 1) << jobs.out;
  EXPECT_EQ(sim.Counts().value("bsub", 0LL), 1);
}

TEST(FrontDoorDown, TheRealCommandsAnswerWhenBplacedIsNotThere) {
  SimCluster sim(DEMO_CLUSTER);
  const std::map<std::string, std::string> env = {
      {"BPLACE_URL", "unix:" + (sim.dir() / "no-daemon.sock").string()},
      {"LSF_BINDIR", LSFSIM_BIN_DIR},
      {"LSF_ENVDIR", (sim.dir() / "lsf").string()}};
  const ProcessOutput submitted =
      RunProcess({std::string(FRONTDOOR_DIR) + "/bsub", "-q", "short", "true"}, env);
  EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_THAT(submitted.out,
              ::testing::MatchesRegex("Job <[0-9]+> is submitted to queue <short>\\.\n"));
  const ProcessOutput listed = RunProcess({std::string(FRONTDOOR_DIR) + "/bjobs", "-w"}, env);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, ::testing::HasSubstr("JOBID"));
  // Exactly one job: the front door ran bsub once.
  EXPECT_EQ(sim.Counts().value("bsub", 0LL), 1);
}

TEST(FrontDoorSelf, RefusesToRunItselfAsTheRealCommand) {
  const ProcessOutput out =
      RunProcess({std::string(FRONTDOOR_DIR) + "/bjobs"},
                 {{"BPLACE_FRONTDOOR", "off"}, {"LSF_BINDIR", FRONTDOOR_DIR}});
  EXPECT_EQ(out.exit_code, 255);
  EXPECT_THAT(out.err, ::testing::HasSubstr("bplace's front door"));
}

}  // namespace
}  // namespace bplace::testing
