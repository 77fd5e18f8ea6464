// The real bplace binary against the real bplaced (tests/integration/
// harness.h) and the LSF simulator's demo cluster: reads over the daemon's
// Unix socket, submissions over TCP with a token (as root the daemon runs as
// bplace-sys, and only that user may submit: the harness's token is its).

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/integration/harness.h"

namespace bplace::testing {
namespace {

using nlohmann::json;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t CodePoints(const std::string& text) {
  std::size_t count = 0;
  for (char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return count;
}

// A TCP relay on 127.0.0.1 to the daemon that drops the answer of the first
// request it relays: the request reaches bplaced whole, the client sees the
// connection close without an answer (a broken connection after sending).
// Later connections are relayed whole. One request per connection (bplace
// sends Connection: close).
class AnswerDroppingRelay {
 public:
  explicit AnswerDroppingRelay(int daemon_port) : daemon_port_(daemon_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 8) != 0) {
      throw std::runtime_error("relay: cannot listen");
    }
    socklen_t length = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~AnswerDroppingRelay() {
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    thread_.join();
  }
  int port() const { return port_; }
  int relayed() const { return relayed_; }

 private:
  // Reads one request: the headers, then Content-Length bytes of body.
  static std::string ReadRequest(int fd) {
    std::string data;
    char buffer[4096];
    std::size_t need = std::string::npos;
    while (need == std::string::npos || data.size() < need) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      data.append(buffer, static_cast<std::size_t>(n));
      const auto end = data.find("\r\n\r\n");
      if (need == std::string::npos && end != std::string::npos) {
        std::string headers = data.substr(0, end);
        for (char& c : headers) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const auto at = headers.find("content-length:");
        need = end + 4 + (at == std::string::npos ? 0 : std::stoul(headers.substr(at + 15)));
      }
    }
    return data;
  }
  std::string Forward(const std::string& request) const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(daemon_port_));
    std::string answer;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) {
        answer.append(buffer, static_cast<std::size_t>(n));
      }
    }
    ::close(fd);
    return answer;
  }
  void Serve() {
    for (;;) {
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      const std::string answer = Forward(ReadRequest(client));
      if (relayed_++ > 0) {
        if (::write(client, answer.data(), answer.size()) < 0) {
        }
      }
      ::close(client);
    }
  }

  int daemon_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> relayed_ = 0;
  std::thread thread_;
};

// One daemon for the whole suite: the reads do not change it, and each
// submission is its own job.
class BplaceCommandTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sim_ = std::make_unique<SimCluster>(DEMO_CLUSTER);
    DaemonSettings settings;
    settings.unix_socket = (sim_->dir() / "bplace.sock").string();
    daemon_ = std::make_unique<DaemonProcess>(*sim_, settings);
  }
  static void TearDownTestSuite() {
    daemon_.reset();
    sim_.reset();
  }

  // Runs bplace ARGS over the Unix socket, tables 400 columns wide.
  static ProcessOutput Bplace(const std::vector<std::string>& args,
                              std::map<std::string, std::string> env = {}) {
    std::vector<std::string> argv = {BPLACE_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    env.emplace("BPLACE_URL", "unix:" + (sim_->dir() / "bplace.sock").string());
    env.emplace("COLUMNS", "400");
    env.emplace("BPLACE_TOKEN", "");
    return RunProcess(argv, env);
  }

  // Runs bplace ARGS over TCP with the harness's token.
  static ProcessOutput BplaceTcp(const std::vector<std::string>& args) {
    return Bplace(args, {{"BPLACE_URL", "http://127.0.0.1:" + std::to_string(daemon_->port())},
                         {"BPLACE_TOKEN", daemon_->token()}});
  }

  static inline std::unique_ptr<SimCluster> sim_;
  static inline std::unique_ptr<DaemonProcess> daemon_;
};

TEST(BplaceVersion, BothBinariesPrintTheCMakeProjectVersion) {
  const ProcessOutput cli = RunProcess({BPLACE_PATH, "--version"});
  const ProcessOutput daemon = RunProcess({BPLACED_PATH, "--version"});
  EXPECT_EQ(cli.exit_code, 0);
  EXPECT_EQ(daemon.exit_code, 0);
  EXPECT_EQ(cli.out, std::string("bplace ") + BPLACE_PROJECT_VERSION + "\n");
  EXPECT_EQ(daemon.out, std::string("bplaced ") + BPLACE_PROJECT_VERSION + "\n");
}

TEST(BplaceUnreachable, DaemonDownIsExit3WithOneLine) {
  char pattern[] = "/tmp/bplace-cli-down-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string socket = std::string(pattern) + "/bplace.sock";
  for (const char* command : {"status", "queues", "hosts"}) {
    const ProcessOutput out =
        RunProcess({BPLACE_PATH, command}, {{"BPLACE_URL", "unix:" + socket}});
    EXPECT_EQ(out.exit_code, 3) << command;
    EXPECT_EQ(out.out, "");
    EXPECT_EQ(out.err, "bplace: cannot reach bplaced at unix:" + socket +
                           ": No such file or directory (is bplaced running? see systemctl status "
                           "bplaced)\n");
  }
  std::filesystem::remove_all(pattern);
}

TEST(BplaceUnreachable, NoAnswerWithinTheTimeoutIsExit3) {
  // A listener that never accepts: the kernel completes the connection, no
  // answer ever comes.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  socklen_t length = sizeof address;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  const ProcessOutput out =
      RunProcess({BPLACE_PATH, "--timeout", "0.3", "--url", url, "queues"}, {{"BPLACE_TOKEN", ""}});
  ::close(listener);
  EXPECT_EQ(out.exit_code, 3);
  EXPECT_EQ(out.err, "bplace: bplaced at " + url +
                         " gave no answer within 0.3 s (--timeout; is it overloaded? see systemctl "
                         "status bplaced)\n");
}

TEST(BplaceUsage, BadCommandLinesAreExit2AndSendNothing) {
  // No daemon at this address: a usage error must not even try it (else 3).
  const std::map<std::string, std::string> env = {{"BPLACE_URL", "unix:/nonexistent/bplace.sock"}};
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"frobnicate"},
                                             {},
                                             {"submit", "node007", "-Is", "bash"},
                                             {"submit", "node007", "-n", "two", "true"},
                                             {"submit"},
                                             {"job"},
                                             {"--url", "ftp://x", "status"}}) {
    std::vector<std::string> argv = {BPLACE_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessOutput out = RunProcess(argv, env);
    EXPECT_EQ(out.exit_code, 2) << argv.size() << " " << out.err;
    EXPECT_EQ(out.err.find("cannot reach"), std::string::npos) << out.err;
  }
  // The slot count says what it wants, not a floating-point range.
  const ProcessOutput slots = RunProcess({BPLACE_PATH, "place", "-n", "-2"}, env);
  EXPECT_EQ(slots.exit_code, 2) << slots.err;
  EXPECT_NE(slots.err.find("expected a whole number of slots, 1 or more (bsub -n), got -2"),
            std::string::npos)
      << slots.err;
  const ProcessOutput empty_queue = RunProcess({BPLACE_PATH, "submit", "-q", "", "true"}, env);
  EXPECT_EQ(empty_queue.exit_code, 2) << empty_queue.err;
  EXPECT_NE(empty_queue.err.find("-q: no queue named"), std::string::npos) << empty_queue.err;
  const ProcessOutput place_empty = RunProcess({BPLACE_PATH, "place", "-q", " "}, env);
  EXPECT_EQ(place_empty.exit_code, 2) << place_empty.err;
  EXPECT_NE(place_empty.err.find("-q: no queue named"), std::string::npos) << place_empty.err;
}

TEST(BplaceUsage, HelpNamesEveryCommandAndTheExitCodes) {
  const ProcessOutput out = RunProcess({BPLACE_PATH, "--help"});
  EXPECT_EQ(out.exit_code, 0);
  for (const char* word : {"hosts", "place", "submit", "queues", "jobs", "job", "kill", "status",
                           "Exit status: 0 ok", "3 bplaced unreachable", "Examples:"}) {
    EXPECT_NE(out.out.find(word), std::string::npos) << word;
  }
  const ProcessOutput submit = RunProcess({BPLACE_PATH, "submit", "--help"});
  EXPECT_EQ(submit.exit_code, 0);
  EXPECT_NE(submit.out.find("bplace submit HOST [bsub options] COMMAND..."), std::string::npos);
}

TEST_F(BplaceCommandTest, HostsListsTheQueuesThatAdmitTheHostAndThoseThatExcludeIt) {
  const json expected = daemon_->Get("/v1/hosts/node007").Json();
  ASSERT_FALSE(expected["queues"].empty());
  const ProcessOutput out = Bplace({"hosts", "node007"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  for (const json& queue : expected["queues"]) {
    const std::string row_start = queue["queue"].get<std::string>() + " ";
    bool found = false;
    for (const std::string& line : Lines(out.out)) {
      if (line.rfind(row_start, 0) == 0) {
        found = true;
        EXPECT_NE(line.find(queue["via"].get<std::string>()), std::string::npos) << line;
        EXPECT_NE(line.find(queue["reason"].get<std::string>()), std::string::npos) << line;
      }
    }
    EXPECT_TRUE(found) << queue.dump() << "\n" << out.out;
  }
  for (const json& queue : expected["excluded_by"]) {
    EXPECT_NE(out.out.find(queue["reason"].get<std::string>()), std::string::npos);
  }
}

TEST_F(BplaceCommandTest, UnknownHostIsExit1WithTheProblemDetail) {
  const HttpReply reply = daemon_->Get("/v1/hosts/nosuchnode");
  ASSERT_EQ(reply.status, 404);
  const ProcessOutput out = Bplace({"hosts", "nosuchnode"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.out, "");
  EXPECT_EQ(out.err, "bplace: " + reply.Json()["detail"].get<std::string>() + "\n");
}

TEST_F(BplaceCommandTest, HostsNamesAndQueuesNamesAreTheDaemonsInItsOrder) {
  std::vector<std::string> hosts;
  const json all_hosts = daemon_->Get("/v1/hosts").Json();
  for (const json& host : all_hosts["hosts"]) hosts.push_back(host["host"]);
  EXPECT_EQ(Lines(Bplace({"hosts", "--names"}).out), hosts);
  std::vector<std::string> queues;
  const json all_queues = daemon_->Get("/v1/queues").Json();
  for (const json& queue : all_queues["queues"]) {
    queues.push_back(queue["name"]);
  }
  EXPECT_EQ(Lines(Bplace({"queues", "--names"}).out), queues);
  const ProcessOutput table = Bplace({"queues"});
  ASSERT_EQ(table.exit_code, 0);
  ASSERT_EQ(Lines(table.out).size(), queues.size() + 1);
  for (std::size_t i = 0; i < queues.size(); ++i) {
    EXPECT_EQ(Lines(table.out)[i + 1].rfind(queues[i] + " ", 0), 0u);
  }
}

TEST_F(BplaceCommandTest, PlaceShowsTheChoiceAndEveryExcludedQueueWithItsReason) {
  const json expected = daemon_->Get("/v1/placement?host=node007&slots=2").Json();
  ASSERT_TRUE(expected["chosen"].is_string());
  // Over TCP the caller is the daemon's user, as for the anonymous read above
  // (over the socket it would be this process's user, with other reasons).
  const ProcessOutput out = BplaceTcp({"place", "--host", "node007", "-n", "2"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(Lines(out.out)[0].rfind("Chosen: " + expected["chosen"].get<std::string>(), 0), 0u);
  ASSERT_FALSE(expected["excluded"].empty());
  for (const json& item : expected["excluded"]) {
    const std::string row = item["queue"].get<std::string>();
    bool found = false;
    for (const std::string& line : Lines(out.out)) {
      if (line.rfind(row + " ", 0) == 0 &&
          line.find(item["code"].get<std::string>()) != std::string::npos) {
        found = true;
        EXPECT_NE(line.find(item["reason"].get<std::string>()), std::string::npos) << line;
      }
    }
    EXPECT_TRUE(found) << item.dump();
  }
}

TEST_F(BplaceCommandTest, PlaceWithQueuesAndNoTakerIsExit1) {
  const ProcessOutput some = Bplace({"--json", "place", "-q", "short normal"});
  ASSERT_EQ(some.exit_code, 0) << some.err;
  const json answer = json::parse(some.out);
  ASSERT_TRUE(answer["chosen"].is_string());
  EXPECT_TRUE(answer["chosen"] == "short" || answer["chosen"] == "normal");
  // maint is closed: no queue of the list can take the job.
  const ProcessOutput none = Bplace({"place", "-q", "maint"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(Lines(none.out)[0].rfind("No queue can take the job", 0), 0u) << none.out;
  EXPECT_NE(none.out.find("queue_closed"), std::string::npos);
}

TEST_F(BplaceCommandTest, TablesFitTheWidthGivenByColumns) {
  const auto run = [](const std::vector<std::string>& args, const std::string& width) {
    std::vector<std::string> argv = {BPLACE_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, {{"BPLACE_URL", "unix:" + (sim_->dir() / "bplace.sock").string()},
                             {"COLUMNS", width}});
  };
  // Table rows hold two blanks between cells; a header sentence ("Chosen:
  // ...", a host's line) may be wider than the terminal.
  const auto table_lines = [](const std::string& text) {
    std::vector<std::string> rows;
    for (const std::string& line : Lines(text)) {
      if (line.find("  ") != std::string::npos) rows.push_back(line);
    }
    return rows;
  };
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"place", "--host", "node007"}, {"hosts", "node007"}, {"queues"}, {"status"}}) {
    std::size_t natural = 0;
    for (const std::string& line : table_lines(run(args, "10000").out)) {
      natural = std::max(natural, CodePoints(line));
    }
    // Narrower terminals than the candidates table's nine columns at their
    // minimum (70) get it at that minimum.
    for (std::size_t width : {72u, 80u, 100u}) {
      const ProcessOutput out = run(args, std::to_string(width));
      ASSERT_EQ(out.exit_code, 0) << out.err;
      bool cut = false;
      for (const std::string& line : table_lines(out.out)) {
        cut = cut || line.find("\xE2\x80\xA6") != std::string::npos;
        EXPECT_LE(CodePoints(line), width) << args[0] << " at " << width << ": " << line;
      }
      EXPECT_EQ(cut, natural > width) << args[0] << " at " << width << ", natural " << natural;
    }
  }
}

TEST_F(BplaceCommandTest, JsonOutputIsTheDaemonsJson) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--json", "queues"},
                                             {"--json", "hosts"},
                                             {"--json", "hosts", "node007"},
                                             {"--json", "place", "--host", "node007"},
                                             {"--json", "queues", "normal"},
                                             {"--json", "jobs"},
                                             {"status", "--json"}}) {
    const ProcessOutput out = Bplace(args);
    ASSERT_EQ(out.exit_code, 0) << args.back() << ": " << out.err;
    const json parsed = json::parse(out.out, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << out.out;
    EXPECT_TRUE(parsed.is_object());
  }
  const json status = json::parse(Bplace({"--json", "status"}).out);
  EXPECT_EQ(status["cluster"]["cluster_name"], daemon_->Get("/v1/cluster").Json()["cluster_name"]);
  EXPECT_EQ(status["hosts"]["count"], daemon_->Get("/v1/hosts").Json()["count"]);
  // A refusal with --json: the problem on stdout, its detail on stderr.
  const ProcessOutput refused = Bplace({"--json", "queues", "nosuchqueue"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(json::parse(refused.out)["status"], 404);
}

TEST_F(BplaceCommandTest, StatusShowsTheTiersAndEverySickHost) {
  const ProcessOutput out = Bplace({"status"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const json cluster = daemon_->Get("/v1/cluster").Json();
  EXPECT_NE(out.out.find("Cluster " + cluster["cluster_name"].get<std::string>()),
            std::string::npos);
  for (const char* tier : {"\nload ", "\ntopology "}) {
    EXPECT_NE(out.out.find(tier), std::string::npos) << tier;
  }
  int sick = 0;
  const json hosts = daemon_->Get("/v1/hosts").Json();
  for (const json& host : hosts["hosts"]) {
    const bool is_sick = !host["takes_new_work"].get<bool>() || host["ib"]["health"] == "unhealthy";
    const std::string row = "\n" + host["host"].get<std::string>() + " ";
    EXPECT_EQ(out.out.find(row) != std::string::npos, is_sick) << row;
    sick += is_sick;
  }
  EXPECT_GT(sick, 0) << "the demo cluster has hosts that take no new work";
}

TEST_F(BplaceCommandTest, SubmitLandsAJobOnAQueueThatAdmitsTheHost) {
  const ProcessOutput out =
      BplaceTcp({"submit", "node007", "-n", "1", "-J", "cli_submit", "sleep", "60"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  std::smatch match;
  ASSERT_TRUE(std::regex_match(
      out.out, match, std::regex("Job <([0-9]+)> is submitted to queue <([A-Za-z0-9_]+)>\\.\n")))
      << out.out;
  const std::string id = match[1];
  const std::string queue = match[2];
  bool admits = false;
  const json node007 = daemon_->Get("/v1/hosts/node007").Json();
  for (const json& q : node007["queues"]) {
    admits = admits || q["queue"] == queue;
  }
  EXPECT_TRUE(admits) << queue << " does not admit node007";
  const ProcessOutput bjobs = sim_->Lsf({"bjobs", "-u", "all", "-w", id});
  ASSERT_EQ(bjobs.exit_code, 0) << bjobs.err;
  EXPECT_NE(bjobs.out.find(queue), std::string::npos) << bjobs.out;
  EXPECT_NE(bjobs.out.find("cli_submit"), std::string::npos) << bjobs.out;

  // The job is followed: bplace job, bplace jobs, bplace kill.
  const ProcessOutput job = BplaceTcp({"job", id});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_NE(job.out.find("id               " + id), std::string::npos) << job.out;
  const ProcessOutput jobs = BplaceTcp({"--json", "jobs"});
  ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
  bool listed = false;
  const json jobs_json = json::parse(jobs.out);
  for (const json& j : jobs_json["jobs"]) listed = listed || j["id"] == id;
  EXPECT_TRUE(listed) << jobs.out;
  const ProcessOutput kill = BplaceTcp({"kill", id});
  EXPECT_EQ(kill.exit_code, 0) << kill.err;
  EXPECT_EQ(kill.out, "Job <" + id + "> is being terminated\n");
}

TEST_F(BplaceCommandTest, SubmitWithCandidateQueuesAndExtraArgs) {
  const ProcessOutput out =
      BplaceTcp({"submit", "-q", "long normal", "-B", "--label", "wf=cli", "sleep 60; date"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_TRUE(out.out.find("queue <long>") != std::string::npos ||
              out.out.find("queue <normal>") != std::string::npos)
      << out.out;
  const ProcessOutput jobs = BplaceTcp({"--json", "jobs", "--label", "wf=cli"});
  ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
  EXPECT_EQ(json::parse(jobs.out)["jobs"].size(), 1u) << jobs.out;
}

TEST_F(BplaceCommandTest, RefusedSubmitIsExit1WithTheProblemDetail) {
  const json body = {{"host", "node007"}, {"queues", {"maint"}}, {"command", "true"}};
  const HttpReply reply = daemon_->Post("/v1/jobs", body.dump());
  ASSERT_EQ(reply.status, 409) << reply.body;
  const ProcessOutput out = BplaceTcp({"submit", "node007", "-q", "maint", "true"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.out, "");
  const auto lines = Lines(out.err);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "bplace: " + reply.Json()["detail"].get<std::string>());
  // The 409 names every queue's reason: maint's is printed too.
  EXPECT_NE(out.err.find("maint"), std::string::npos);
  EXPECT_NE(out.err.find("queue_closed"), std::string::npos) << out.err;
}

TEST_F(BplaceCommandTest, ABrokenConnectionAfterSendingIsRetriedOnceWithTheSameKey) {
  const int bsubs_before = sim_->Counts()["bsub"].get<int>();
  AnswerDroppingRelay relay(daemon_->port());
  const ProcessOutput out =
      Bplace({"submit", "node007", "--label", "retry=once", "true"},
             {{"BPLACE_URL", "http://127.0.0.1:" + std::to_string(relay.port())},
              {"BPLACE_TOKEN", daemon_->token()}});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(relay.relayed(), 2);
  EXPECT_NE(out.err.find("asking once more with the same Idempotency-Key"), std::string::npos)
      << out.err;
  EXPECT_EQ(out.out.rfind("Job <", 0), 0u) << out.out;
  // One bsub, one job: the second request got the first one's answer.
  EXPECT_EQ(sim_->Counts()["bsub"].get<int>(), bsubs_before + 1);
  const json jobs = json::parse(BplaceTcp({"--json", "jobs", "--label", "retry=once"}).out);
  ASSERT_EQ(jobs["jobs"].size(), 1u) << jobs.dump();
  EXPECT_NE(out.out.find("<" + jobs["jobs"][0]["id"].get<std::string>() + ">"), std::string::npos);
}

TEST_F(BplaceCommandTest, BashCompletionCompletesCommandsAndTheDaemonsNames) {
  const std::string script =
      "source '" CLI_SOURCE_DIR
      "/bplace.bash'\n"
      "complete_line() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _bplace; "
      "echo \"${COMPREPLY[*]}\"; }\n"
      "complete_line bplace pl\n"
      "complete_line bplace submit -q n\n"
      "complete_line bplace hosts node00\n";
  const ProcessOutput out =
      RunProcess({"/bin/bash", "-c", "PATH=$(dirname " BPLACE_PATH "):$PATH; " + script},
                 {{"BPLACE_URL", "unix:" + (sim_->dir() / "bplace.sock").string()}});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto lines = Lines(out.out);
  ASSERT_EQ(lines.size(), 3u) << out.out;
  EXPECT_EQ(lines[0], "place");
  std::string queues_n;
  const json queues = daemon_->Get("/v1/queues").Json();
  for (const json& queue : queues["queues"]) {
    const std::string name = queue["name"];
    if (name[0] == 'n') queues_n += (queues_n.empty() ? "" : " ") + name;
  }
  EXPECT_EQ(lines[1], queues_n);
  EXPECT_NE(lines[2].find("node007"), std::string::npos) << lines[2];
}

TEST_F(BplaceCommandTest, KillOfAnUnknownJobIsExit1) {
  const ProcessOutput out = BplaceTcp({"kill", "999999"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.err, "Job <999999>: bplace does not follow this job (use bkill)\n");
}

TEST_F(BplaceCommandTest, TokenFileIsUsedOverTcpAndRefusedWhenOthersCanReadIt) {
  char pattern[] = "/tmp/bplace-cli-home-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::filesystem::path home = pattern;
  std::filesystem::create_directories(home / ".config/bplace");
  const auto token_path = home / ".config/bplace/token";
  std::ofstream(token_path) << daemon_->token() << "\n";
  const std::map<std::string, std::string> env = {
      {"BPLACE_URL", "http://127.0.0.1:" + std::to_string(daemon_->port())},
      {"HOME", home.string()},
      {"XDG_CONFIG_HOME", ""}};
  ASSERT_EQ(::chmod(token_path.c_str(), 0644), 0);
  const ProcessOutput refused = Bplace({"submit", "node007", "true"}, env);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("accessible by group or others"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("chmod 600 " + token_path.string()), std::string::npos);

  ASSERT_EQ(::chmod(token_path.c_str(), 0600), 0);
  const ProcessOutput submitted = Bplace({"submit", "node007", "true"}, env);
  EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_EQ(submitted.out.rfind("Job <", 0), 0u) << submitted.out;
  std::filesystem::remove_all(home);
}

}  // namespace
}  // namespace bplace::testing
