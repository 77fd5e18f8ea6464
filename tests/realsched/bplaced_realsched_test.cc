// The realsched tier, part two: the real bplaced against the real scheduler
// (a one-host volclava 2.2 cluster or one set up the same way,
// tests/realsched/README.md). The job
// lifecycle end to end: POST /v1/jobs runs a real bsub, GET /v1/jobs/{id}
// follows the job through volclava's bjobs (the table form plus `bjobs -l`
// for exit codes: volclava's -o lacks our fields), an id submitted with
// bsub directly is looked up once and followed, DELETE runs a real bkill,
// state survives a restart, an Idempotency-Key never gives a second bsub, a
// kill -9 with a bsub in flight is reconciled through LSF, a retry on
// another login node's bplaced gets the one job, and 20 polling clients
// cost one bjobs a second.
//
// bplaced runs in multi-user mode, as root (this binary runs as root, so it
// has CAP_SETUID, CAP_SETGID and CAP_KILL), with a bearer token of alice's:
// bsub and bkill run as alice, jobs are alice's, bjobs runs as root. One
// test runs it in service-account mode, as bplace-sys. Its LSF commands
// come from a bin dir of the test's own, where bjobs logs each call before
// it runs the real one: the count of mbatchd queries.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/frontdoor/engine_run.h"
#include "tests/integration/harness.h"
#include "tests/realsched/lsf_cluster.h"

namespace bplace::realsched {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using bplace::testing::Http;
using bplace::testing::HttpReply;
using bplace::testing::TokenHash;
using nlohmann::json;

constexpr int kSkipExitCode = 77;  // SKIP_RETURN_CODE in CMakeLists.txt
// Finished jobs stay in `bjobs -a` this long (lsb.params CLEAN_PERIOD): far
// longer than the 1 s jobs refresh, and short enough for the restart test
// to wait until volclava has forgotten its job.
constexpr int kCleanPeriodSeconds = 15;
// The user bplaced submits as (multi-user mode, her token).
constexpr char kUser[] = "alice";
// How long the wrapper bsub of the kill -9 test sleeps before the real one.
constexpr int kSlowBsubSeconds = 4;

// The cluster the environment names, with the CLEAN_PERIOD these tests
// assume when volclava is started for the run.
LsfClusterOptions TierOptions() {
  LsfClusterOptions options =
      LsfClusterOptions::FromEnvironment(VOLCLAVA_SCRIPT, REALSCHED_STATE_DIR);
  options.script_env["VOLCLAVA_CLEAN_PERIOD"] = std::to_string(kCleanPeriodSeconds);
  return options;
}

// Why this binary cannot run here: the tier's reasons, and not root (bplaced
// runs in multi-user mode, which needs root).
std::string BinarySkipReason() {
  if (std::string why = LsfCluster::SkipReason(TierOptions()); !why.empty()) return why;
  if (geteuid() != 0) return "bplaced runs in multi-user mode here, which needs root";
  return "";
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of `text`, without their '\n'.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The blank-separated words of `line`.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

bool IsNumber(const std::string& word) {
  return !word.empty() && std::all_of(word.begin(), word.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

// N of "Exited with exit code N." in `line` (an ExitLine), or none.
std::optional<int> ExitCodeIn(const std::string& line) {
  constexpr std::string_view kMark = "Exited with exit code ";
  const std::size_t at = line.find(kMark);
  if (at == std::string::npos) return std::nullopt;
  std::size_t end = at + kMark.size();
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end])) != 0) ++end;
  if (end == at + kMark.size()) return std::nullopt;
  return std::stoi(line.substr(at + kMark.size(), end - at - kMark.size()));
}

// Makes `dir` a bin dir for bplaced's [lsf] bin_dir: a symlink to each of
// the cluster's commands in `real_bin`, except those in `scripts` (command
// name -> the text of a /bin/sh script, readable and runnable by all: alice
// runs bsub and bkill).
void MakeBinDir(const fs::path& dir, const std::string& real_bin,
                const std::map<std::string, std::string>& scripts) {
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(real_bin)) {
    if (scripts.count(entry.path().filename().string()) == 0) {
      fs::create_symlink(entry.path(), dir / entry.path().filename());
    }
  }
  for (const auto& [name, text] : scripts) {
    std::ofstream(dir / name) << "#!/bin/sh\n" << text;
    fs::permissions(dir / name, fs::perms::owner_all | fs::perms::group_read |
                                    fs::perms::group_exec | fs::perms::others_read |
                                    fs::perms::others_exec);
  }
}

// A temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/bplace-rs-XXXXXX";
    const char* made = mkdtemp(pattern);
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = made;
    // alice's bsub reads the wrapper bin dir of the kill -9 test from here.
    fs::permissions(path_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  }
  ~TempDir() {
    std::error_code ec;
    if (!keep_) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  void Keep() { keep_ = true; }

 private:
  fs::path path_;
  bool keep_ = false;
};

struct BplacedSettings {
  std::string bin_dir;           // [lsf] bin_dir
  std::string env_dir;           // [lsf] env_dir (the cluster's LSF_ENVDIR)
  std::string state_dir;         // [state] dir, kept across restarts
  std::vector<std::string> env;  // bplaced's whole environment
  int command_timeout_s = 20;
  // Empty: multi-user mode, as root, with a token of alice's. Else
  // service-account mode: bplaced runs as this user (setpriv), whose token
  // it is and who owns the state, the tokens file and `dir`.
  std::string service_user;
};

// The real bplaced on 127.0.0.1 (an ephemeral port); its config, tokens,
// port file and log in `dir`. Started in the constructor (waits for
// /readyz); SIGTERM in the destructor.
class Bplaced {
 public:
  Bplaced(const fs::path& dir, const BplacedSettings& settings) : dir_(dir) {
    const fs::path config = dir / "bplaced.toml";
    const fs::path port_file = dir / "port";
    const fs::path tokens = dir / "tokens";
    log_ = dir / "bplaced.log";
    fs::remove(port_file);
    token_ = "bpl_realsched_" + std::to_string(getpid());
    const bool multi_user = settings.service_user.empty();
    const std::string user = multi_user ? kUser : settings.service_user;
    std::ofstream(tokens) << TokenHash(token_) << " " << user << " read,submit\n";
    fs::permissions(tokens, fs::perms::owner_read | fs::perms::owner_write);
    fs::create_directories(settings.state_dir);
    fs::permissions(settings.state_dir, fs::perms::owner_all);
    if (!multi_user) {
      const std::optional<RunAsUser> as = UserByName(user);
      if (!as) throw std::runtime_error("no user " + user);
      for (const fs::path& path : {dir, fs::path(settings.state_dir), tokens}) {
        if (chown(path.c_str(), as->uid, as->gid) != 0) {
          throw std::runtime_error("chown " + path.string() + ": " + strerror(errno));
        }
      }
    }
    std::ofstream(config) << "[server]\nlisten = [\"127.0.0.1:0\"]\n\n"
                          << "[lsf]\nbin_dir = \"" << settings.bin_dir << "\"\nenv_dir = \""
                          << settings.env_dir
                          << "\"\ncommand_timeout_s = " << settings.command_timeout_s
                          << "\nload_refresh_s = 2\ntopology_refresh_s = 60\n\n"
                          << "[submit]\nmax_attempts = 1\n\n[jobs]\nrefresh_s = 1\n\n"
                          << "[state]\ndir = \"" << settings.state_dir << "\"\n\n"
                          << "[auth]\nmode = \"" << (multi_user ? "multi-user" : "service-account")
                          << "\"\ntokens_file = \"" << tokens.string()
                          << "\"\n\n[limits]\nsubmit_burst = 1000\nsubmit_per_minute = 6000\n"
                          << "lsf_calls_burst = 1000\nlsf_calls_per_minute = 6000\n";
    std::vector<std::string> args = {BPLACED_PATH, "--config", config.string(), "--port-file",
                                     port_file.string()};
    if (!multi_user) {
      args.insert(args.begin(), {"/usr/bin/setpriv", "--reuid=" + user, "--regid=" + user,
                                 "--init-groups", "--"});
    }
    std::vector<std::string> env = settings.env;
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& entry : env) envp.push_back(entry.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error(std::string("cannot start bplaced: ") + strerror(rc));
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("bplaced exited at start:\n" + ReadAll(log_));
      }
      if (port_ == 0 && fs::exists(port_file)) port_ = std::atoi(ReadAll(port_file).c_str());
      if (port_ != 0 && Http(port_, "GET", "/readyz").status == 200) return;
      std::this_thread::sleep_for(50ms);
    }
    throw std::runtime_error("bplaced not ready within 30 s:\n" + ReadAll(log_));
  }

  ~Bplaced() { Terminate(); }
  Bplaced(const Bplaced&) = delete;
  Bplaced& operator=(const Bplaced&) = delete;

  // Any request with alice's token.
  HttpReply Call(const std::string& method, const std::string& target, const std::string& body = "",
                 const std::map<std::string, std::string>& headers = {}) const {
    return Http(port_, method, target, body, "application/json", "Bearer " + token_, headers);
  }

  // SIGTERM; the exit status, or -1 (after SIGKILL) when it did not exit in 20 s.
  int Terminate() {
    if (pid_ < 0) return -1;
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(10ms);
    }
    Kill9();
    return -1;
  }

  // SIGKILL, as a crash: nothing flushed, nothing answered. Its children
  // (a bsub in flight) live on.
  void Kill9() {
    if (pid_ < 0) return;
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

  std::string Log() const { return ReadAll(log_); }
  int port() const { return port_; }
  const std::string& token() const { return token_; }

 private:
  fs::path dir_;
  fs::path log_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string token_;
};

std::string Status(const json& job) { return job.is_object() ? job.value("status", "") : ""; }
bool Terminal(const json& job) { return job.is_object() && job.value("terminal", false); }

// The body of POST /v1/jobs: `argv` in queue `short` (never `inactq` or
// `tiny`, which placement might pick and where a job may pend for good).
std::string JobBody(const std::vector<std::string>& argv, const json& extra = json::object()) {
  json body{{"argv", argv}, {"queues", {"short"}}};
  body.update(extra);
  return body.dump();
}

class BplacedRealSchedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!SkipReason().empty()) return;
    cluster_ = std::make_unique<LsfCluster>(TierOptions());
    start_error_ = cluster_->Start();
    std::cerr << "bplaced realsched: " << cluster_->Description() << ", start "
              << cluster_->start_seconds() << " s\n";
  }

  static void TearDownTestSuite() {
    if (cluster_ == nullptr) return;
    if (::testing::UnitTest::GetInstance()->failed_test_count() > 0) {
      if (!cluster_->StateDir().empty()) {
        std::cerr << "bplaced realsched: a test failed; the cluster's logs are left in "
                  << cluster_->StateDir() << "/log\n";
      }
      cluster_->set_keep_state_dir(true);
    }
    cluster_.reset();
  }

  void SetUp() override {
    if (std::string why = SkipReason(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_NE(cluster_, nullptr);
    ASSERT_EQ(start_error_, "") << "the cluster did not start";
    if (!UserByName(kUser)) GTEST_SKIP() << "no user alice (tools/test-users.sh makes her)";
    dir_ = std::make_unique<TempDir>();
    // bplaced's LSF commands: the cluster's, but bjobs logs each call
    // (one line: its arguments) before it runs the real one.
    bjobs_log_ = dir_->path() / "bjobs.log";
    std::ofstream(bjobs_log_).flush();
    fs::permissions(bjobs_log_, fs::perms::all & ~(fs::perms::owner_exec | fs::perms::group_exec |
                                                   fs::perms::others_exec));
    ASSERT_NO_THROW(MakeBinDir(dir_->path() / "bin", cluster().BinDir(), WrapperScripts()));
  }

  // The scripts of this test's bin dir: bjobs that logs to bjobs_log_, and
  // `extra` (command -> script text).
  std::map<std::string, std::string> WrapperScripts(
      std::map<std::string, std::string> extra = {}) const {
    extra.emplace("bjobs", "echo \"$*\" >> " + bjobs_log_.string() + "\nexec " +
                               cluster().BinDir() + "/bjobs \"$@\"\n");
    return extra;
  }

  void TearDown() override {
    daemon_.reset();
    // Whatever a test left running would hold one of the host's 4 slots.
    if (cluster_ != nullptr && cluster_->running()) {
      (void)cluster_->Run("bkill", {"-u", kUser, "0"});
    }
    if (HasFailure() && dir_ != nullptr) {
      std::cerr << "bplaced realsched: bplaced's config, log and state are left in " << dir_->path()
                << "\n";
      dir_->Keep();
    }
    dir_.reset();
  }

  static std::string SkipReason() {
    static const std::string reason = BinarySkipReason();
    return reason;
  }

  static const LsfCluster& cluster() { return *cluster_; }

  BplacedSettings Settings(const std::string& bin_dir = "") const {
    BplacedSettings settings;
    settings.bin_dir = bin_dir.empty() ? (dir_->path() / "bin").string() : bin_dir;
    settings.env_dir = cluster().Env().at("LSF_ENVDIR");
    settings.state_dir = (dir_->path() / "state").string();
    // LSF_ENVDIR, PATH, LSB_NTRIES=1, HOME/USER/LOGNAME of root, LANG=C.
    settings.env = cluster().EnvStrings();
    return settings;
  }

  // (Re)starts bplaced on this test's state dir.
  void StartDaemon(const std::string& bin_dir = "") {
    daemon_.reset();
    daemon_ = std::make_unique<Bplaced>(dir_->path(), Settings(bin_dir));
  }

  // The USER column of job `id` in `bjobs -a -w ID`, "" when it has none.
  static std::string LsfUser(const std::string& id) {
    const std::vector<std::string> row = TableRow(id);
    return row.size() > 1 ? row[1] : "";
  }

  // POST /v1/jobs; the job id, or "" with a test failure.
  std::string Submit(const std::string& body,
                     const std::map<std::string, std::string>& headers = {}) {
    const HttpReply reply = daemon_->Call("POST", "/v1/jobs", body, headers);
    EXPECT_EQ(reply.status, 201) << reply.body << "\n" << daemon_->Log();
    const json answer = reply.Json();
    return answer.is_object() ? answer.value("job_id", "") : "";
  }

  // Long polls GET /v1/jobs/ID?wait_s=5 (each answered after the next jobs
  // refresh: no sleeping here) until `done` holds or `timeout` passed. Every
  // status seen, in order and without repeats, goes to `seen`.
  json JobWhen(const std::string& id, const std::function<bool(const json&)>& done,
               std::vector<std::string>* seen = nullptr, std::chrono::seconds timeout = 60s) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    json job;
    do {
      const HttpReply reply = daemon_->Call("GET", "/v1/jobs/" + id + "?wait_s=5");
      job = reply.Json();
      if (reply.status != 200) continue;
      if (seen != nullptr && (seen->empty() || seen->back() != Status(job))) {
        seen->push_back(Status(job));
      }
      if (done(job)) return job;
    } while (std::chrono::steady_clock::now() < deadline);
    return job;
  }

  // Jobs volclava knows (finished ones until CLEAN_PERIOD) whose JOB_NAME
  // column of `bjobs -a -w -u all` is `name` (a name without blanks). A row
  // is JOBID USER STAT QUEUE FROM_HOST [EXEC_HOST] JOB_NAME SUBMIT_TIME, the
  // time three words ("Dec  1 13:06"), EXEC_HOST blank while pending: the
  // name is the fourth word from the end.
  static int CountByName(const std::string& name) {
    const CommandResult all = cluster().Run("bjobs", {"-a", "-w", "-u", "all"});
    int count = 0;
    for (const std::string& line : Lines(all.out)) {
      const std::vector<std::string> words = Words(line);
      if (words.size() >= 8 && IsNumber(words[0]) && words[words.size() - 4] == name) ++count;
    }
    return count;
  }

  // Ids of every job the cluster ever had with the description
  // `description`: `bhist -a -l -u all` reads lsb.events, so it also lists
  // jobs that CLEAN_PERIOD took out of `bjobs -a`. The first line of each
  // job is "Job <ID>, ..., Job Description <TEXT>", as in `bjobs -l` (TEXT
  // may hold '>': up to the line's last '>').
  static std::vector<std::string> IdsByDescription(const std::string& description) {
    const CommandResult all = cluster().Run("bhist", {"-a", "-l", "-u", "all"});
    constexpr std::string_view kJob = "Job <";
    constexpr std::string_view kDescription = ", Job Description <";
    std::vector<std::string> ids;
    for (const std::string& line : Lines(all.out)) {
      if (line.rfind(kJob, 0) != 0) continue;
      const std::size_t id_end = line.find('>');
      const std::size_t at = line.find(kDescription);
      const std::size_t last = line.rfind('>');
      if (id_end == std::string::npos || at == std::string::npos || last < at) continue;
      const std::size_t text = at + kDescription.size();
      if (line.substr(text, last - text) == description) {
        ids.push_back(line.substr(kJob.size(), id_end - kJob.size()));
      }
    }
    return ids;
  }

  // The end of the line of `bjobs -l ID` that tells how the job ended
  // ("Exited with exit code 3. The CPU time ...", "Exited", "Done
  // successfully. ..."), "" when none.
  static std::string ExitLine(const std::string& id) {
    const CommandResult reply = cluster().Run("bjobs", {"-l", id});
    for (const std::string& line : Lines(reply.out)) {
      for (const std::string_view mark : {": Exited", ": Done successfully"}) {
        if (const std::size_t at = line.find(mark); at != std::string::npos) {
          return line.substr(at + 2);
        }
      }
    }
    return "";
  }

  // volclava's own STAT of job `id` (`bjobs -a -w ID`), "" when it has none.
  static std::string LsfStat(const std::string& id) {
    const std::vector<std::string> row = TableRow(id);
    return row.size() > 2 ? row[2] : "";
  }

  // The words of job `id`'s row in `bjobs -a -w ID`; empty when it has none.
  static std::vector<std::string> TableRow(const std::string& id) {
    const CommandResult reply = cluster().Run("bjobs", {"-a", "-w", id});
    for (const std::string& line : Lines(reply.out)) {
      std::vector<std::string> words = Words(line);
      if (!words.empty() && words[0] == id) return words;
    }
    return {};
  }

  // A bin dir of the cluster's commands whose bsub first marks that it
  // started (a file in bsub-started/) and sleeps kSlowBsubSeconds before
  // the real one (`sleep 4; exec REAL/bsub "$@"`), so that a kill -9 of
  // bplaced surely lands between its intent and bsub's answer.
  fs::path SlowBsubBinDir() const {
    const fs::path slow = dir_->path() / "slowbin";
    const fs::path started = dir_->path() / "bsub-started";
    fs::create_directory(started);
    fs::permissions(started, fs::perms::all);  // alice's bsub writes here
    MakeBinDir(slow, cluster().BinDir(),
               WrapperScripts({{"bsub", ": > " + (started / "$$").string() + "\nsleep " +
                                            std::to_string(kSlowBsubSeconds) + "\nexec " +
                                            cluster().BinDir() + "/bsub \"$@\"\n"}}));
    return slow;
  }

  // POSTs `body` with Idempotency-Key `key` to `daemon` (started on
  // SlowBsubBinDir) on a thread and kills the daemon -9 once its bsub has
  // started; returns when the request has ended (unanswered). A wrapper
  // that never ran fails the test.
  void SubmitAndKillDuringBsub(Bplaced& daemon, const std::string& body, const std::string& key) {
    const fs::path started = dir_->path() / "bsub-started";
    std::thread client([&] {
      try {
        (void)daemon.Call("POST", "/v1/jobs", body, {{"Idempotency-Key", key}});
      } catch (const std::exception&) {
        // The daemon died under the request: no answer, as a crash gives.
      }
    });
    // Kill once the wrapper runs (the intent is on disk before bsub starts).
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && fs::is_empty(started)) {
      std::this_thread::sleep_for(50ms);
    }
    EXPECT_FALSE(fs::is_empty(started)) << "the wrapper bsub never ran\n" << daemon.Log();
    daemon.Kill9();
    client.join();
  }

  // How many commands the bjobs wrapper of this test's bin dir logged.
  std::size_t BjobsCalls() const { return Lines(ReadAll(bjobs_log_)).size(); }

  static std::unique_ptr<LsfCluster> cluster_;
  static std::string start_error_;
  std::unique_ptr<TempDir> dir_;
  fs::path bjobs_log_;
  std::unique_ptr<Bplaced> daemon_;
};

std::unique_ptr<LsfCluster> BplacedRealSchedTest::cluster_;
std::string BplacedRealSchedTest::start_error_;

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : " -> ") + item;
  return text;
}

// Whether `seen` is a walk forward through `order` (each status at most
// once, none out of order, none outside it).
bool InOrder(const std::vector<std::string>& seen, const std::vector<std::string>& order) {
  std::size_t next = 0;
  for (const std::string& status : seen) {
    while (next < order.size() && order[next] != status) ++next;
    if (next == order.size()) return false;
    ++next;
  }
  return true;
}

// (1) A failing job: SUBMITTED or PEND, RUN, then EXIT with its exit code
// (from `bjobs -l`: volclava's table has none); a succeeding one ends DONE
// with 0. The failing job sleeps 2 s first, so that a 1 s refresh surely
// sees it RUN (a bare `exit 3` can be over before any bjobs shows it
// running).
TEST_F(BplacedRealSchedTest, JobsAreFollowedToExitWithTheirCodeOrToDone) {
  ASSERT_NO_THROW(StartDaemon());
  const json labels = {{"labels", {{"suite", "lifecycle"}}}};
  const std::string failing = Submit(JobBody({"sh", "-c", "sleep 2; exit 3"}, labels));
  const std::string succeeding = Submit(JobBody({"true"}, labels));
  ASSERT_FALSE(failing.empty());
  ASSERT_FALSE(succeeding.empty());

  const HttpReply first = daemon_->Call("GET", "/v1/jobs/" + failing);
  ASSERT_EQ(first.status, 200) << first.body;
  std::vector<std::string> seen = {Status(first.Json())};
  EXPECT_TRUE(seen[0] == "SUBMITTED" || seen[0] == "PEND") << first.body;
  EXPECT_TRUE(first.Json()["submitted_by_bplace"]);

  const json failed = JobWhen(failing, Terminal, &seen);
  EXPECT_EQ(Status(failed), "EXIT") << failed.dump();
  EXPECT_TRUE(InOrder(seen, {"SUBMITTED", "PEND", "RUN", "EXIT"})) << Joined(seen);
  EXPECT_NE(std::find(seen.begin(), seen.end(), "RUN"), seen.end()) << Joined(seen);
  // The code comes from a `bjobs -l` after the table showed EXIT: the
  // terminal row may be published a refresh before it.
  const json coded = JobWhen(failing, [](const json& j) { return !j["exit_code"].is_null(); });
  EXPECT_EQ(coded["exit_code"], 3) << coded.dump();
  EXPECT_EQ(coded["user"], kUser);
  EXPECT_EQ(coded["queue"], "short");
  ASSERT_EQ(coded["exec_hosts"].size(), 1u) << coded.dump();
  EXPECT_EQ(coded["exec_hosts"][0]["host"], cluster().HostName());
  // volclava's table has only SUBMIT_TIME (to the minute); start_time and
  // finish_time stay null there (docs/lsf-formats.md "The bjobs table").
  EXPECT_FALSE(coded["submit_time"].is_null());
  EXPECT_EQ(LsfStat(failing), "EXIT");

  const json done = JobWhen(succeeding, Terminal);
  EXPECT_EQ(Status(done), "DONE") << done.dump();
  EXPECT_EQ(done["exit_code"], 0) << done.dump();

  // Both by their label, newest first.
  const HttpReply listed = daemon_->Call("GET", "/v1/jobs?label=suite=lifecycle");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const json listing = listed.Json();
  std::vector<std::string> ids;
  for (const json& job : listing["jobs"]) ids.push_back(job["job_id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{succeeding, failing})) << listed.body;
}

// (2) A job submitted with bsub directly (by alice, not through bplace):
// bplaced has never heard of it. Eight callers ask for it at once: one
// lookup, shared (at most one bjobs of the asking plus the tier's own
// turns), then the tier follows it to DONE. An id volclava does not know
// is 404.
TEST_F(BplacedRealSchedTest, AJobSubmittedWithBsubIsLookedUpOnceAndFollowed) {
  ASSERT_NO_THROW(StartDaemon());
  const CommandResult bsub = cluster().RunAs(kUser, "bsub", {"-q", "short", "sleep", "2"});
  ASSERT_EQ(bsub.exit_code, 0) << bsub.Describe();
  // "Job <N> is submitted to queue <short>."
  const std::size_t open = bsub.out.find('<');
  const std::size_t close = bsub.out.find('>');
  ASSERT_TRUE(open != std::string::npos && close > open) << bsub.out;
  const std::string id = bsub.out.substr(open + 1, close - open - 1);
  ASSERT_TRUE(IsNumber(id)) << bsub.out;

  const std::size_t calls_before = BjobsCalls();
  const auto asked_at = std::chrono::steady_clock::now();
  constexpr int kCallers = 8;
  std::vector<HttpReply> replies(kCallers);
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] { replies[i] = daemon_->Call("GET", "/v1/jobs/" + id); });
  }
  for (std::thread& caller : callers) caller.join();
  const double asked_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked_at).count();
  const std::size_t lookups = BjobsCalls() - calls_before;
  for (const HttpReply& reply : replies) {
    ASSERT_EQ(reply.status, 200) << reply.body << "\n" << daemon_->Log();
    EXPECT_EQ(reply.Json()["job_id"], id) << reply.body;
    EXPECT_FALSE(reply.Json()["submitted_by_bplace"]) << reply.body;
    EXPECT_EQ(reply.Json()["user"], kUser) << reply.body;
  }
  // One lookup for the eight, plus one tier turn a second at most.
  EXPECT_GE(lookups, 1u);
  EXPECT_LE(lookups, 2 + static_cast<std::size_t>(asked_s)) << ReadAll(bjobs_log_);
  std::cerr << "bplaced realsched: 8 callers asking for a new id: " << lookups << " bjobs in "
            << asked_s << " s\n";

  std::vector<std::string> seen;
  const json done = JobWhen(id, Terminal, &seen);
  EXPECT_EQ(Status(done), "DONE") << done.dump();
  EXPECT_TRUE(InOrder(seen, {"PEND", "RUN", "DONE"})) << Joined(seen);
  const json coded = JobWhen(id, [](const json& j) { return !j["exit_code"].is_null(); });
  EXPECT_EQ(coded["exit_code"], 0) << coded.dump();

  const HttpReply unknown = daemon_->Call("GET", "/v1/jobs/999999");
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(LsfStat("999999"), "");
}

// (6) The load on mbatchd does not grow with the callers: 20 clients
// polling one running job's status as fast as they can, for 5 s, make no
// more bjobs than the tier's one a second (the 1 s [jobs] refresh_s).
TEST_F(BplacedRealSchedTest, ManyClientsPollingMakeOneBjobsPerInterval) {
  ASSERT_NO_THROW(StartDaemon());
  const std::string id = Submit(JobBody({"sleep", "30"}));
  ASSERT_FALSE(id.empty());
  const json running = JobWhen(id, [](const json& j) { return Status(j) == "RUN"; });
  ASSERT_EQ(Status(running), "RUN") << running.dump();

  constexpr int kClients = 20;
  const auto window = 5s;
  std::atomic<int> requests{0};
  std::atomic<int> failures{0};
  const std::size_t calls_before = BjobsCalls();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      while (std::chrono::steady_clock::now() - start < window) {
        const HttpReply reply = daemon_->Call("GET", "/v1/jobs/" + id);
        ++requests;
        if (reply.status != 200 || Status(reply.Json()) != "RUN") ++failures;
      }
    });
  }
  for (std::thread& client : clients) client.join();
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t calls = BjobsCalls() - calls_before;
  std::cerr << "bplaced realsched: " << kClients << " clients, " << requests << " requests in "
            << elapsed_s << " s: " << calls << " bjobs\n";
  EXPECT_EQ(failures, 0);
  EXPECT_GE(requests, 10 * kClients) << "too few requests to show anything";
  EXPECT_GE(calls, 1u) << "the tier did not run";
  // One a second, plus one for the turn under way at each end.
  EXPECT_LE(calls, static_cast<std::size_t>(elapsed_s) + 2) << ReadAll(bjobs_log_);
  EXPECT_LT(calls * 10, static_cast<std::size_t>(requests.load()));
}

// (2) DELETE runs a real bkill (as alice): 202 for a running job, which
// ends EXIT; the same DELETE again is 200 with the finished job. And a
// batch cancel by label.
TEST_F(BplacedRealSchedTest, DeletingARunningJobEndsItAndDeletingAgainSaysItFinished) {
  ASSERT_NO_THROW(StartDaemon());
  const json labels = {{"labels", {{"suite", "cancel"}}}};
  const std::string id = Submit(JobBody({"sleep", "300"}, labels));
  const std::string other = Submit(JobBody({"sleep", "301"}, labels));
  ASSERT_FALSE(id.empty());
  ASSERT_FALSE(other.empty());
  const json running = JobWhen(id, [](const json& j) { return Status(j) == "RUN"; });
  ASSERT_EQ(Status(running), "RUN") << running.dump();
  // One more refresh: a bkill in the instant after dispatch (the job is
  // "Starting" in bhist) ends the job only ~10 s later, with exit code 143.
  (void)daemon_->Call("GET", "/v1/jobs/" + id + "?wait_s=5");

  const HttpReply cancelled = daemon_->Call("DELETE", "/v1/jobs/" + id);
  EXPECT_EQ(cancelled.status, 202) << cancelled.body;
  const json ended = JobWhen(id, Terminal);
  EXPECT_EQ(Status(ended), "EXIT") << ended.dump();
  EXPECT_EQ(LsfStat(id), "EXIT");
  // The exit code is what volclava's `bjobs -l` says: "Exited with exit
  // code 130" (sbatchd's SIGINT, 128 + 2, reported by the job's shell) or
  // 143; but "Exited by signal 2" when the signal reached the job's process
  // itself, and then bplaced has no exit code (README.md).
  const std::string exited = ExitLine(id);
  if (const std::optional<int> code = ExitCodeIn(exited)) {
    const json coded = JobWhen(id, [](const json& j) { return !j["exit_code"].is_null(); });
    EXPECT_EQ(coded["exit_code"], *code) << coded.dump();
    EXPECT_GE(*code, 128) << exited;
  } else {
    EXPECT_NE(exited.find("Exited by signal"), std::string::npos) << exited;
    const HttpReply later = daemon_->Call("GET", "/v1/jobs/" + id + "?wait_s=5");
    EXPECT_TRUE(later.Json()["exit_code"].is_null()) << later.body;
  }
  std::cerr << "bplaced realsched: the killed job: " << exited << "\n";

  const HttpReply again = daemon_->Call("DELETE", "/v1/jobs/" + id);
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json()["job"]["status"], "EXIT") << again.body;

  // The label's other job, in one bkill; the first is already finished.
  const HttpReply batch =
      daemon_->Call("POST", "/v1/jobs:cancel", json{{"labels", {{"suite", "cancel"}}}}.dump());
  ASSERT_EQ(batch.status, 200) << batch.body;
  const json answer = batch.Json();
  std::map<std::string, std::string> outcomes;
  for (const json& result : answer["results"]) {
    outcomes[result.value("id", result.value("job_id", ""))] = result.value("outcome", "");
  }
  EXPECT_EQ(outcomes[other], "terminating") << batch.body;
  const json other_ended = JobWhen(other, Terminal);
  EXPECT_EQ(Status(other_ended), "EXIT") << other_ended.dump();
}

// (3) A finished job's status outlives a restart, even once volclava itself
// has forgotten the job (CLEAN_PERIOD passed while bplaced was down).
TEST_F(BplacedRealSchedTest, AFinishedJobsStatusSurvivesARestart) {
  ASSERT_NO_THROW(StartDaemon());
  const std::string id = Submit(JobBody({"sh", "-c", "exit 5"}));
  ASSERT_FALSE(id.empty());
  const json coded = JobWhen(id, [](const json& j) { return !j["exit_code"].is_null(); });
  ASSERT_EQ(Status(coded), "EXIT") << coded.dump();
  ASSERT_EQ(coded["exit_code"], 5) << coded.dump();
  ASSERT_EQ(daemon_->Terminate(), 0) << daemon_->Log();

  // Polls volclava (not bplaced) until it answers "is not found".
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(4 * kCleanPeriodSeconds);
  while (std::chrono::steady_clock::now() < deadline && !LsfStat(id).empty()) {
    std::this_thread::sleep_for(1s);
  }
  ASSERT_EQ(LsfStat(id), "") << "volclava still lists job " << id;

  ASSERT_NO_THROW(StartDaemon());
  const HttpReply after = daemon_->Call("GET", "/v1/jobs/" + id);
  ASSERT_EQ(after.status, 200) << after.body;
  const json job = after.Json();
  EXPECT_EQ(Status(job), "EXIT") << after.body;
  EXPECT_EQ(job["exit_code"], 5) << after.body;
  EXPECT_TRUE(job["terminal"]);
  EXPECT_TRUE(job["submitted_by_bplace"]);
  EXPECT_EQ(job["finish_time"], coded["finish_time"]);
}

// (4) The same Idempotency-Key twice: the same job, and one bsub (one job in
// volclava's `bjobs -a -u all`). Another body with the key is 422.
TEST_F(BplacedRealSchedTest, TheSameIdempotencyKeyGivesTheSameJobAndOneBsub) {
  ASSERT_NO_THROW(StartDaemon());
  const std::string name = "idem-" + std::to_string(getpid());
  const std::map<std::string, std::string> key = {{"Idempotency-Key", name}};
  const std::string body = JobBody({"sleep", "2"}, {{"job_name", name}});
  const HttpReply first = daemon_->Call("POST", "/v1/jobs", body, key);
  ASSERT_EQ(first.status, 201) << first.body;
  const HttpReply again = daemon_->Call("POST", "/v1/jobs", body, key);
  ASSERT_EQ(again.status, 201) << again.body;
  const std::string id = first.Json()["job_id"];
  EXPECT_EQ(again.Json()["job_id"], id);
  EXPECT_EQ(
      again.headers.count("idempotency-replayed") ? again.headers.at("idempotency-replayed") : "",
      "true");
  const HttpReply other =
      daemon_->Call("POST", "/v1/jobs", JobBody({"sleep", "3"}, {{"job_name", name}}), key);
  EXPECT_EQ(other.status, 422) << other.body;

  EXPECT_EQ(CountByName(name), 1) << cluster().Run("bjobs", {"-a", "-w", "-u", "all"}).out;
  const std::string description = first.Json().value("job_description", "");
  ASSERT_FALSE(description.empty()) << first.body;
  EXPECT_EQ(IdsByDescription(description), std::vector<std::string>{id});
  const json done = JobWhen(id, Terminal);
  EXPECT_EQ(Status(done), "DONE") << done.dump();
}

// (5) kill -9 of bplaced while its bsub is in flight (SlowBsubBinDir: every
// other command a symlink to the cluster's), so the crash surely lands
// between bplaced's intent and bsub's answer. The orphaned bsub goes
// on and submits; after the restart, a retry with the same key gets that
// job (reconciled through LSF by its -Jd tag), and volclava has one job.
TEST_F(BplacedRealSchedTest, KillNineWithABsubInFlightIsReconciledOnRestart) {
  fs::path slow;
  ASSERT_NO_THROW(slow = SlowBsubBinDir());
  ASSERT_NO_THROW(StartDaemon(slow.string()));

  const std::string key = "crash-" + std::to_string(getpid());
  const std::string body = JobBody({"sleep", "1"}, {{"job_name", key}});
  SubmitAndKillDuringBsub(*daemon_, body, key);
  if (HasFailure()) return;
  EXPECT_EQ(CountByName(key), 0) << "bsub was still asleep at the kill";

  // The restarted daemon uses the real bsub (a retry must not submit anyway).
  ASSERT_NO_THROW(StartDaemon());
  HttpReply reply;
  const auto settle_by = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < settle_by) {
    reply = daemon_->Call("POST", "/v1/jobs", body, {{"Idempotency-Key", key}});
    if (reply.status != 409) break;
    (void)daemon_->Call("GET", "/v1/jobs?wait_s=2");  // a long poll: let the reconciler run
  }
  ASSERT_EQ(reply.status, 201) << reply.body << "\n" << daemon_->Log();
  const json answer = reply.Json();
  EXPECT_TRUE(answer.value("reconciled", false)) << reply.body;
  const std::string id = answer.value("job_id", "");
  const std::string description = answer.value("job_description", "");
  EXPECT_EQ(IdsByDescription(description), std::vector<std::string>{id}) << "one job for the key";
  EXPECT_EQ(CountByName(key), 1);
  const json done = JobWhen(id, Terminal);
  EXPECT_EQ(Status(done), "DONE") << done.dump();
  EXPECT_EQ(done["user"], kUser);
}

// (7) Several login nodes (docs/operations.md "Several login nodes"): three
// bplaced daemons, each with its own directory and state, against the one
// cluster. Node A is killed -9 while its (slow) bsub runs; once the
// orphaned bsub has submitted, the client retries the same key on node B,
// which finds A's job in LSF by its -Jd tag and answers with it; node C
// answers the same. The cluster has one job for the key.
TEST_F(BplacedRealSchedTest, ARetryOnAnotherLoginNodeAfterAKillNineGetsTheOneJob) {
  fs::path slow;
  ASSERT_NO_THROW(slow = SlowBsubBinDir());
  // Login node `name`: its own directory and state dir.
  const auto node = [&](const std::string& name, const std::string& bin_dir) {
    const fs::path dir = dir_->path() / ("node-" + name);
    fs::create_directory(dir);
    BplacedSettings settings = Settings(bin_dir);
    settings.state_dir = (dir / "state").string();
    return std::make_unique<Bplaced>(dir, settings);
  };
  std::unique_ptr<Bplaced> a;
  std::unique_ptr<Bplaced> b;
  std::unique_ptr<Bplaced> c;
  ASSERT_NO_THROW(a = node("a", slow.string()));
  ASSERT_NO_THROW(b = node("b", ""));
  ASSERT_NO_THROW(c = node("c", ""));

  const std::string key = "nodes-" + std::to_string(getpid());
  const std::string body = JobBody({"sleep", "1"}, {{"job_name", key}});
  SubmitAndKillDuringBsub(*a, body, key);
  if (HasFailure()) return;
  // The client retries elsewhere no sooner than command_timeout_s (the
  // documented rule): by then the orphaned bsub has submitted.
  const auto orphan_by = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < orphan_by && CountByName(key) == 0) {
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_EQ(CountByName(key), 1) << "A's orphaned bsub submitted the job";

  const HttpReply retry = b->Call("POST", "/v1/jobs", body, {{"Idempotency-Key", key}});
  ASSERT_EQ(retry.status, 201) << retry.body << "\n" << b->Log();
  EXPECT_TRUE(retry.Json().value("reconciled", false)) << "found in LSF, not submitted again";
  const std::string id = retry.Json().value("job_id", "");
  const std::string description = retry.Json().value("job_description", "");
  const HttpReply third = c->Call("POST", "/v1/jobs", body, {{"Idempotency-Key", key}});
  ASSERT_EQ(third.status, 201) << third.body << "\n" << c->Log();
  EXPECT_EQ(third.Json().value("job_id", ""), id);
  EXPECT_EQ(IdsByDescription(description), std::vector<std::string>{id}) << "one job for the key";
  EXPECT_EQ(CountByName(key), 1);
}

// Service-account mode works against volclava too: bplaced as the system
// user bplace-sys (tools/test-users.sh; home /nonexistent, so sbatchd puts
// the job file in /tmp/.lsbtmp<uid> and says so in its log), jobs are
// bplace-sys's. The tier's other tests use multi-user mode (README.md).
TEST_F(BplacedRealSchedTest, InServiceAccountModeJobsAreTheServiceUsers) {
  const std::string service = "bplace-sys";
  if (!UserByName(service)) GTEST_SKIP() << "no user bplace-sys (tools/test-users.sh)";
  BplacedSettings settings = Settings();
  settings.service_user = service;
  settings.env = cluster().EnvStrings(service);
  const fs::path dir = dir_->path() / "service";
  fs::create_directory(dir);
  ASSERT_NO_THROW(daemon_ = std::make_unique<Bplaced>(dir, settings));
  const std::string id = Submit(JobBody({"true"}));
  ASSERT_FALSE(id.empty());
  const json done = JobWhen(id, Terminal);
  EXPECT_EQ(Status(done), "DONE") << done.dump();
  EXPECT_EQ(done["user"], service);
  EXPECT_EQ(LsfUser(id), service);
}

// Wait prediction against the real scheduler (docs/design.md "Wait
// prediction"): eight jobs on the host's four slots, so four start at once
// and four wait behind them. bplaced finds lsb.events from lsf.conf's
// LSB_SHAREDIR and the cluster's name and learns every dispatch from it,
// the earlier cases' jobs too. Every job of this daemon given a bound (the
// starts-now ones; the others when `short` already has 19 waits) must be
// judged, and only the log can judge them: volclava's bjobs prints no
// start times. Prints the figures; the live coverage over 200+ jobs is
// bench/README.md's.
TEST_F(BplacedRealSchedTest, ABurstsWaitsAreLearnedFromTheEventLogAndJudged) {
  ASSERT_NO_THROW(StartDaemon());
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i) {
    ids.push_back(Submit(JobBody({"sleep", "3"}, {{"labels", {{"suite", "waits"}}}})));
    ASSERT_FALSE(ids.back().empty());
  }
  int with_bound = 0;
  for (const std::string& id : ids) {
    const json done = JobWhen(id, Terminal, nullptr, 120s);
    EXPECT_EQ(Status(done), "DONE") << done.dump();
    if (done["expected_start"].is_object() && done["expected_start"]["bound_s"].is_number()) {
      ++with_bound;
    }
  }
  EXPECT_GE(with_bound, 1);
  // The log is read every load refresh (2 s): poll with the jobs tier's
  // long poll, not a sleep.
  json record;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  do {
    record = daemon_->Call("GET", "/v1/cluster").Json().value("wait_predictions", json());
    if (record.is_object() && record.value("predictions", 0) >= with_bound) {
      break;
    }
    (void)daemon_->Call("GET", "/v1/jobs?wait_s=2");
  } while (std::chrono::steady_clock::now() < deadline);
  ASSERT_TRUE(record.is_object()) << daemon_->Log();
  EXPECT_GE(record.value("learned", 0), 8) << record.dump() << "\n" << daemon_->Log();
  EXPECT_EQ(record.value("predictions", 0), with_bound) << record.dump() << "\n" << daemon_->Log();
  const json waits = daemon_->Call("GET", "/v1/queues/short/waits").Json();
  EXPECT_GE(waits.value("recent_waits_s", json::array()).size(), 1u) << waits.dump();
  std::cerr << "bplaced realsched: waits " << record.dump() << "\n";
}

// Real engines, unmodified, through the front door against the real
// cluster (docs/lsf-front-door.md): Toil 5.9.2 and Snakemake 7.21 run as
// alice with the front door first on PATH and this test's bin dir as LSF's
// (so the front door's own fallbacks are logged too). Each run prints the
// bjobs mbatchd saw and how many of them were bplaced's own.
class EngineRealSchedTest : public BplacedRealSchedTest {
 protected:
  void SetUp() override {
    BplacedRealSchedTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (!fs::exists("/usr/bin/toil") || !fs::exists("/usr/bin/snakemake")) {
      GTEST_SKIP() << "Debian's toil and snakemake are not installed (tools/install-deps.sh)";
    }
    StartDaemon();
    work_ = dir_->path() / "work";
    fs::create_directory(work_);
    fs::permissions(work_, fs::perms::all);
  }

  // Runs `command` in the work directory as alice through the front door.
  testing::ProcessOutput Run(const std::string& command) const {
    const std::string bin = (dir_->path() / "bin").string();
    return testing::RunProcessAs(
        kUser, {"/bin/sh", "-c", "cd \"$0\" && " + command, work_.string()},
        {{"PATH", std::string(FRONTDOOR_DIR) + ":" + bin + ":/usr/bin:/bin"},
         {"HOME", work_.string()},
         {"LSF_BINDIR", bin},
         {"LSF_ENVDIR", cluster().Env().at("LSF_ENVDIR")},
         {"BPLACE_URL", "http://127.0.0.1:" + std::to_string(daemon_->port())},
         {"BPLACE_TOKEN", daemon_->token()}},
        std::chrono::seconds(900));
  }

  std::size_t BjobsSeen() const { return Lines(ReadAll(bjobs_log_)).size(); }

  void Report(const std::string& engine, std::size_t bjobs_before) const {
    const long long own =
        testing::LsfCommandsIn(Http(daemon_->port(), "GET", "/metrics").body, "bjobs");
    std::cout << engine << " through the front door: " << BjobsSeen() - bjobs_before
              << " bjobs at mbatchd, bplaced's own in all " << own << "\n";
  }

  fs::path work_;
};

TEST_F(EngineRealSchedTest, ToilRunsARootTenChildrenAndAFollowOnToTheEnd) {
  testing::Write(work_ / "wf.py", testing::kToilWorkflow);
  const std::size_t before = BjobsSeen();
  const testing::ProcessOutput out =
      Run("/usr/bin/python3 wf.py --batchSystem lsf --statePollingWait 5 --workDir \"$PWD\" "
          "\"file:$PWD/jobstore\"");
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err << daemon_->Log();
  EXPECT_NE(out.out.find("workflow result: 30"), std::string::npos) << out.out;
  Report("Toil 5.9.2", before);
}

TEST_F(EngineRealSchedTest, SnakemakeRunsThreeRulesWithItsLsfStatusScript) {
  fs::create_directory(work_ / "logs");
  fs::permissions(work_ / "logs", fs::perms::all);
  testing::Write(work_ / "Snakefile", testing::kSnakefile);
  testing::Write(work_ / "status.sh", testing::kStatusScript, true);
  const std::size_t before = BjobsSeen();
  const testing::ProcessOutput out =
      Run("snakemake --jobs 2 --cluster \"bsub -o logs/{rule}.out -e logs/{rule}.err\" "
          "--cluster-status ./status.sh --cluster-cancel bkill --latency-wait 30");
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err << daemon_->Log();
  EXPECT_EQ(ReadAll(work_ / "c.txt"), "a\nb\nc\n");
  Report("Snakemake 7.21", before);
}

}  // namespace
}  // namespace bplace::realsched

// Skips the whole binary (exit 77, SKIP_RETURN_CODE) where it cannot run:
// no cluster named, a volclava to start without root, or not root.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (std::string why = bplace::realsched::BinarySkipReason(); !why.empty()) {
    std::cout << "bplaced realsched skipped: " << why << "\n";
    return bplace::realsched::kSkipExitCode;
  }
  return RUN_ALL_TESTS();
}
