#include "tests/realsched/lsf_cluster.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

extern char** environ;

namespace bplace::realsched {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::vector<std::string> OurEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

std::string EnvValue(const std::vector<std::string>& env, const std::string& name) {
  for (const std::string& entry : env) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return "";
}

// argv[0] as execve needs it: kept when it has a '/', else the first
// executable of that name in PATH of `env`; "" when there is none.
std::string ResolveProgram(const std::string& name, const std::vector<std::string>& env) {
  if (name.find('/') != std::string::npos) return name;
  std::stringstream path(EnvValue(env, "PATH"));
  std::string dir;
  while (std::getline(path, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// In the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void ChildFailed(const char* what) {
  int saved = errno;
  (void)!write(STDERR_FILENO, what, strlen(what));
  (void)!write(STDERR_FILENO, ": ", 2);
  const char* reason = strerror(saved);
  (void)!write(STDERR_FILENO, reason, strlen(reason));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(127);
}

[[noreturn]] void ExecChild(const std::string& program, const std::vector<char*>& argv,
                            const std::vector<char*>& envp, const std::string& work_dir,
                            const std::optional<RunAsUser>& as, int out_fd, int err_fd) {
  setpgid(0, 0);
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
      dup2(err_fd, STDERR_FILENO) < 0) {
    _exit(127);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (as) {
    if (initgroups(as->name.c_str(), as->gid) != 0) ChildFailed("initgroups");
    if (setgid(as->gid) != 0) ChildFailed("setgid");
    if (setuid(as->uid) != 0) ChildFailed("setuid");
  }
  if (chdir(work_dir.c_str()) != 0) ChildFailed("chdir");
  if (program.empty()) {
    errno = ENOENT;
    ChildFailed(argv[0]);
  }
  execve(program.c_str(), argv.data(), envp.data());
  ChildFailed(program.c_str());
}

// Reads both pipes until EOF or the deadline; returns false on timeout.
bool Drain(int out_fd, int err_fd, Clock::time_point deadline, std::string& out, std::string& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open_count = 2;
  char buffer[8192];
  while (open_count > 0) {
    // Rounded up, so that the deadline is never declared before it passed.
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    int ready = poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // poll ignores negative descriptors
        --open_count;
      }
    }
  }
  return true;
}

std::string Trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// The name of the user this process runs as ("" when passwd has none).
std::string CurrentUserName() {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return "";
  }
  return entry.pw_name;
}

// The value of `name` in an lsf.conf ("NAME=value", optionally quoted; the
// last assignment wins), or "" when it has none.
std::string LsfConfValue(const std::string& lsf_conf, const std::string& name) {
  std::ifstream in(lsf_conf);
  std::string value;
  for (std::string line; std::getline(in, line);) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, name.size() + 1, name + "=") != 0) {
      continue;
    }
    value = Trim(line.substr(start + name.size() + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
  }
  return value;
}

// How a run names its cluster, for skip messages.
constexpr char kHowToName[] =
    "set BPLACE_REALSCHED_LSF_ENVDIR to the LSF_ENVDIR of a cluster set up as "
    "tests/realsched/README.md \"The cluster\" says (and BPLACE_REALSCHED_USER to the user to "
    "submit as), or BPLACE_REALSCHED_VOLCLAVA_PREFIX to an installed volclava to start a "
    "one-host cluster of (as root)";

}  // namespace

std::string CommandResult::Describe() const {
  std::ostringstream text;
  if (timed_out) {
    text << "timed out";
  } else if (exit_code < 0) {
    text << "killed by signal " << term_signal;
  } else {
    text << "exit " << exit_code;
  }
  text << " after " << elapsed.count() << " ms\nstdout: " << out << "\nstderr: " << err;
  return text.str();
}

std::optional<RunAsUser> UserByName(const std::string& name) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return std::nullopt;
  }
  return RunAsUser{name, entry.pw_uid, entry.pw_gid, entry.pw_dir};
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         std::chrono::milliseconds timeout, const std::string& work_dir,
                         const std::optional<RunAsUser>& as) {
  CommandResult result;
  Clock::time_point start = Clock::now();
  if (argv.empty()) {
    result.err = "RunCommand: empty argv";
    return result;
  }
  std::string program = ResolveProgram(argv[0], env);
  std::vector<char*> c_argv;
  for (const std::string& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (const std::string& entry : env) c_env.push_back(const_cast<char*>(entry.c_str()));
  c_env.push_back(nullptr);

  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.err = std::string("pipe2: ") + strerror(errno);
    return result;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.err = std::string("pipe2: ") + strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  pid_t pid = fork();
  if (pid == 0) ExecChild(program, c_argv, c_env, work_dir, as, out_pipe[1], err_pipe[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    result.err = std::string("fork: ") + strerror(errno);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }
  // Also set here, so the kill below reaches the group even if the child had
  // not run its setpgid yet.
  setpgid(pid, pid);
  if (!Drain(out_pipe[0], err_pipe[0], start + timeout, result.out, result.err)) {
    result.timed_out = true;
    kill(-pid, SIGKILL);
  }
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  return result;
}

LsfClusterOptions LsfClusterOptions::FromEnvironment(const std::string& script,
                                                     const std::string& state_parent) {
  LsfClusterOptions options;
  options.env_dir = Getenv("BPLACE_REALSCHED_LSF_ENVDIR");
  options.bin_dir = Getenv("BPLACE_REALSCHED_LSF_BINDIR");
  options.volclava_prefix = Getenv("BPLACE_REALSCHED_VOLCLAVA_PREFIX");
  options.user = Getenv("BPLACE_REALSCHED_USER");
  options.script = script;
  options.state_parent = state_parent;
  return options;
}

LsfCluster::LsfCluster(LsfClusterOptions options) : options_(std::move(options)) {
  if (options_.user.empty()) options_.user = CurrentUserName();
}

LsfCluster::~LsfCluster() { Stop(); }

std::string LsfCluster::SkipReason(const LsfClusterOptions& options) {
  if (options.env_dir.empty() && options.volclava_prefix.empty()) {
    return std::string("no LSF cluster named for the realsched tier: ") + kHowToName;
  }
  if (options.env_dir.empty() && geteuid() != 0) {
    return "starting volclava (BPLACE_REALSCHED_VOLCLAVA_PREFIX) runs its lim, res and sbatchd "
           "as root; run the tests as root, or name a running cluster with "
           "BPLACE_REALSCHED_LSF_ENVDIR";
  }
  return "";
}

CommandResult LsfCluster::Script(const std::vector<std::string>& args,
                                 std::chrono::seconds timeout) const {
  std::vector<std::string> argv = {options_.script};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env = OurEnvironment();
  for (const auto& [name, value] : options_.script_env) env.push_back(name + "=" + value);
  return RunCommand(argv, env, timeout);
}

// A test process killed before its Stop leaves its daemons running and its
// state dir behind; the dir's owner.pid says whose it was.
void LsfCluster::RemoveStaleStateDirs() const {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(options_.state_parent, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("state.", 0) != 0 || entry.path() == state_dir_) continue;
    std::ifstream owner_file(entry.path() / "owner.pid");
    pid_t owner = 0;
    if (owner_file >> owner) {
      if (owner > 0 && kill(owner, 0) == 0) continue;  // its test still runs
    } else {
      // No owner yet: maybe another test's, between its mkdtemp and its write.
      auto age = fs::file_time_type::clock::now() - fs::last_write_time(entry.path(), ec);
      if (ec || age < std::chrono::minutes(5)) continue;
    }
    Script({"stop", entry.path().string()}, std::chrono::seconds(60));
    fs::remove_all(entry.path(), ec);
  }
}

std::string LsfCluster::Start() {
  if (running_) return "";
  if (!SkipReason(options_).empty()) return SkipReason(options_);
  return options_.env_dir.empty() ? StartVolclava() : StartExisting();
}

std::string LsfCluster::StartExisting() {
  const std::string lsf_conf = options_.env_dir + "/lsf.conf";
  if (access(lsf_conf.c_str(), R_OK) != 0) {
    return "BPLACE_REALSCHED_LSF_ENVDIR=" + options_.env_dir + ": cannot read " + lsf_conf + ": " +
           strerror(errno);
  }
  std::string bin_dir = options_.bin_dir;
  if (bin_dir.empty()) bin_dir = LsfConfValue(lsf_conf, "LSF_BINDIR");
  if (bin_dir.empty() || access((bin_dir + "/bsub").c_str(), X_OK) != 0) {
    return "no bsub in \"" + bin_dir + "\" (LSF_BINDIR of " + lsf_conf +
           "); set BPLACE_REALSCHED_LSF_BINDIR to the directory of the cluster's commands";
  }
  if (options_.user.empty() || !UserByName(options_.user)) {
    return "BPLACE_REALSCHED_USER=" + options_.user + ": no such user";
  }
  if (geteuid() != 0 && options_.user != CurrentUserName()) {
    return "running LSF commands as " + options_.user + " (BPLACE_REALSCHED_USER) needs root";
  }
  env_["LSF_ENVDIR"] = options_.env_dir;
  env_["LSF_BINDIR"] = bin_dir;
  const std::string server_dir = LsfConfValue(lsf_conf, "LSF_SERVERDIR");
  if (!server_dir.empty()) env_["LSF_SERVERDIR"] = server_dir;
  const std::string path = Getenv("PATH");
  env_["PATH"] = bin_dir + ":" + (path.empty() ? "/usr/bin:/bin" : path);
  env_["LSB_NTRIES"] = "1";
  running_ = true;
  return "";
}

std::string LsfCluster::StartVolclava() {
  std::error_code ec;
  fs::create_directories(options_.state_parent, ec);
  std::string pattern = (fs::path(options_.state_parent) / "state.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return std::string("mkdtemp: ") + strerror(errno);
  state_dir_ = pattern;
  started_ = true;
  // Other users (a later test's bsub as alice) read lsf.conf under it.
  chmod(state_dir_.c_str(), 0755);
  std::ofstream(fs::path(state_dir_) / "owner.pid") << getpid() << "\n";
  RemoveStaleStateDirs();

  Clock::time_point start = Clock::now();
  CommandResult started = Script({"start", options_.volclava_prefix, state_dir_},
                                 options_.start_timeout + std::chrono::seconds(60));
  start_seconds_ = SecondsSince(start);
  if (started.exit_code != 0) {
    Stop();
    return "tools/volclava.sh start failed: " + started.Describe();
  }
  std::istringstream lines(started.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("export ", 0) == 0) line.erase(0, 7);
    size_t eq = line.find('=');
    if (eq != std::string::npos && eq > 0) env_[line.substr(0, eq)] = line.substr(eq + 1);
  }
  if (env_.count("LSF_ENVDIR") == 0 || env_.count("LSF_BINDIR") == 0) {
    Stop();
    return "tools/volclava.sh start printed no LSF_ENVDIR/LSF_BINDIR: " + started.Describe();
  }
  running_ = true;
  return "";
}

void LsfCluster::Stop() {
  running_ = false;
  if (!started_) return;
  Script({"stop", state_dir_}, std::chrono::seconds(60));
  if (!options_.keep_state_dir) {
    std::error_code ec;
    fs::remove_all(state_dir_, ec);
  }
  state_dir_.clear();
  started_ = false;
}

std::string LsfCluster::Description() const {
  if (!options_.env_dir.empty()) return "LSF_ENVDIR=" + options_.env_dir;
  return "volclava " + options_.volclava_prefix + " (state " +
         (state_dir_.empty() ? std::string("none") : state_dir_) + ")";
}

std::vector<std::string> LsfCluster::EnvStrings(const std::string& user) const {
  std::vector<std::string> env;
  for (const auto& [name, value] : env_) env.push_back(name + "=" + value);
  std::string name = user.empty() ? options_.user : user;
  std::optional<RunAsUser> entry = UserByName(name);
  env.push_back("HOME=" + (entry ? entry->home : std::string("/")));
  env.push_back("USER=" + name);
  env.push_back("LOGNAME=" + name);
  env.push_back("LANG=C");
  return env;
}

std::string LsfCluster::BinDir() const {
  auto it = env_.find("LSF_BINDIR");
  return it == env_.end() ? "" : it->second;
}

std::string LsfCluster::HostName() const {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

CommandResult LsfCluster::Run(const std::string& command, const std::vector<std::string>& args,
                              std::chrono::milliseconds timeout) const {
  return RunAs(options_.user, command, args, timeout);
}

CommandResult LsfCluster::RunAs(const std::string& user, const std::string& command,
                                const std::vector<std::string>& args,
                                std::chrono::milliseconds timeout) const {
  std::optional<RunAsUser> as = UserByName(user);
  if (!as) {
    CommandResult missing;
    missing.exit_code = 127;
    missing.err = "no such user: " + user;
    return missing;
  }
  // The test's own user needs no switch (and a non-root test could not make one).
  if (as->uid == geteuid()) as.reset();
  if (as && geteuid() != 0) {
    CommandResult refused;
    refused.exit_code = 127;
    refused.err = "running a command as " + user + " needs root";
    return refused;
  }
  std::vector<std::string> argv = {command.find('/') == std::string::npos ? BinDir() + "/" + command
                                                                          : command};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, EnvStrings(user), timeout, "/tmp", as);
}

}  // namespace bplace::realsched
