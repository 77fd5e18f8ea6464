// lsfsim: a multi-call binary. Called as bqueues, bsub, ... (through
// symlinks) it behaves as that LSF command against the state directory
// $LSF_ENVDIR; called as `lsfsim <subcommand>` it runs a control subcommand.

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/control.h"
#include "tests/lsfsim/state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    done += static_cast<size_t>(n);
  }
}

std::string CallingUser() {
  // The real uid, as LSF uses: a setuid wrapper must not change who submits.
  uid_t uid = ::getuid();
  struct passwd* pw = ::getpwuid(uid);
  return pw != nullptr ? std::string(pw->pw_name) : std::to_string(uid);
}

std::string SubmissionHost() {
  const char* fixed = std::getenv("LSFSIM_FROM_HOST");
  if (fixed != nullptr && *fixed != '\0') return fixed;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  std::string host = name;
  return host.substr(0, host.find('.'));
}

std::optional<long long> LsbNtries() {
  const char* value = std::getenv("LSB_NTRIES");
  long long tries = 0;
  if (value == nullptr || !ParseInt(value, &tries)) return std::nullopt;
  return tries;
}

bool IsLimCommand(const std::string& name) {
  return name == "lsid" || name == "lsload" || name == "lsclusters" || name == "lsadmin";
}

// The submitter's working directory as bsub records it: getcwd(), else
// $PWD, else "/" (a directory removed under the shell).
std::string WorkingDirectory() {
  std::vector<char> buffer(4096);
  while (::getcwd(buffer.data(), buffer.size()) == nullptr) {
    if (errno != ERANGE || buffer.size() > (1u << 20)) {
      const char* pwd = std::getenv("PWD");
      return pwd != nullptr && *pwd == '/' ? pwd : "/";
    }
    buffer.resize(buffer.size() * 2);
  }
  return buffer.data();
}

int CurrentUmask() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return static_cast<int>(mask);
}

std::vector<std::string> Environment() {
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry) out.emplace_back(*entry);
  return out;
}

// The faults in force for one invocation, and its number (1, 2, ... per
// command), which chooses its misbehaviour under chaos.
struct InvocationFaults {
  FaultSpec spec;
  long long invocation = 0;
};

// Counts the invocation and returns the faults in force for `name`
// ("all" merged with the command's own entry).
tl::expected<InvocationFaults, std::string> CountAndReadFaults(const StateDir& state,
                                                               const std::string& name) {
  StateLock lock(state);
  if (!lock.ok()) return tl::unexpected(lock.error());
  auto counts = state.LoadCounts();
  if (!counts) return tl::unexpected(counts.error());
  (*counts)[name] += 1;
  if (auto saved = state.SaveCounts(*counts); !saved) return tl::unexpected(saved.error());
  auto faults = state.LoadFaults();
  if (!faults) return tl::unexpected(faults.error());
  FaultSpec effective;
  for (const char* key : {"all", name.c_str()}) {
    auto it = faults->find(key);
    if (it == faults->end()) continue;
    if (!it->second.down.empty()) effective.down = it->second.down;
    effective.slow_ms = std::max(effective.slow_ms, it->second.slow_ms);
    effective.truncate = effective.truncate || it->second.truncate;
    effective.garbage = effective.garbage || it->second.garbage;
    if (it->second.chaos_seed >= 0) effective.chaos_seed = it->second.chaos_seed;
  }
  return InvocationFaults{effective, (*counts)[name]};
}

// Turns chaos into this invocation's faults (appended to chaos.log in the
// state directory, one "command invocation misbehaviour" line each, for
// whoever must tell what happened); returns the misbehaviour.
Misbehaviour ApplyChaos(const StateDir& state, const std::string& name, InvocationFaults& faults) {
  if (faults.spec.chaos_seed < 0) return Misbehaviour::kNone;
  const Misbehaviour pick = ChaosPick(faults.spec.chaos_seed, faults.invocation);
  std::ofstream(state.path() + "/chaos.log", std::ios::app)
      << name << " " << faults.invocation << " " << MisbehaviourName(pick) << "\n";
  switch (pick) {
    case Misbehaviour::kSlow:
      faults.spec.slow_ms =
          std::max(faults.spec.slow_ms, ChaosSlowMs(faults.spec.chaos_seed, faults.invocation));
      break;
    case Misbehaviour::kGarbage:
      faults.spec.garbage = true;
      break;
    case Misbehaviour::kTruncate:
      faults.spec.truncate = true;
      break;
    case Misbehaviour::kHang:
      faults.spec.down = "hang";
      break;
    default:
      break;
  }
  return pick;
}

// Behaves like the command while LSF is down. "hang" never returns: LSF
// commands retry forever when LSB_NTRIES is unset. "fail" is the
// LSB_NTRIES=1 behaviour.
int SimulateDown(const std::string& name, const std::vector<std::string>& args,
                 const std::string& mode, Dialect dialect) {
  if (IsLimCommand(name)) {
    if (mode == "hang") {
      for (;;) {
        WriteAll(2, "LSF daemon (LIM) not responding ... still trying\n");
        std::this_thread::sleep_for(std::chrono::seconds(10));
      }
    }
    if (name == "lsid") {
      WriteAll(1, VersionBanner(dialect) + "\n");
      WriteAll(2, "ls_getclustername(): LIM is down; try later\n");
    } else {
      WriteAll(2, name + ": LIM is down; try later\n");
    }
    return 255;
  }
  WriteAll(2, "LSF is down. Please wait...\n");
  if (mode == "hang") {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(10));
      WriteAll(2, "batch system daemon not responding ... still trying\n");
    }
  }
  if (name == "bsub") {
    WriteAll(2, "Connection refused by server. Job not submitted.\n");
  } else if (name == "bkill" && !args.empty()) {
    WriteAll(2, "Job <" + args.back() + ">: Connection refused by server\n");
  } else {
    WriteAll(2, "Connection refused by server\n");
  }
  return 255;
}

std::string Garbage() {
  std::random_device device;
  std::mt19937 rng(device());
  std::string out(512, '\0');
  for (char& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

std::string ReadStdin() {
  std::ostringstream buffer;
  buffer << std::cin.rdbuf();
  return buffer.str();
}

int RunAsLsfCommand(const std::string& name, const std::vector<std::string>& args) {
  const char* envdir = std::getenv("LSF_ENVDIR");
  StateDir state(envdir != nullptr ? envdir : "");
  if (!state.HasLsfConf()) {
    std::string message = "lsb_init: Failed in an LSF library call: Unable to open file lsf.conf";
    if (name == "bsub") message += ". Job not submitted.";
    WriteAll(2, message + "\n");
    return 255;
  }
  auto faults = CountAndReadFaults(state, name);
  if (!faults) {
    WriteAll(2, "lsfsim: " + faults.error() + "\n");
    return 255;
  }
  const Misbehaviour misbehaviour = ApplyChaos(state, name, *faults);
  const FaultSpec* fault = &faults->spec;
  auto cluster = LoadClusterDef(state.ClusterPath());
  Dialect dialect = cluster ? cluster->dialect : Dialect::kLsf;
  if (!fault->down.empty()) return SimulateDown(name, args, fault->down, dialect);
  if (fault->slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(fault->slow_ms));
  if (args.size() == 1 && args[0] == "-V") {
    WriteAll(2, VersionBanner(dialect));
    return 0;
  }
  if (!cluster) {
    WriteAll(2, "lsfsim: " + cluster.error() + "\n");
    return 255;
  }
  std::string script;
  if (name == "bsub" && BsubNeedsStdin(*cluster, args)) script = ReadStdin();
  Context ctx{.state = &state,
              .cluster = &*cluster,
              .user = CallingUser(),
              .from_host = SubmissionHost(),
              .now = NowSeconds(),
              .lsb_ntries = LsbNtries(),
              .progress = [](const std::string& line) { WriteAll(2, line); },
              .cwd = name == "bsub" ? WorkingDirectory() : std::string(),
              .umask = CurrentUmask(),
              .environment = name == "bsub" ? Environment() : std::vector<std::string>(),
              .misbehaviour = misbehaviour};
  CommandResult result = RunLsfCommand(name, ctx, args, script);
  if (fault->garbage) {
    result.out = Garbage();
  } else if (fault->truncate && !result.out.empty()) {
    // Half the bytes; step off a line end so the cut lands inside a line.
    size_t keep = result.out.size() / 2;
    if (keep > 0 && result.out[keep - 1] == '\n') --keep;
    result.out.resize(keep);
  }
  WriteAll(1, result.out);
  WriteAll(2, result.err);
  return result.exit_code;
}

}  // namespace
}  // namespace bplace::lsfsim

int main(int argc, char** argv) {
  using bplace::lsfsim::IsLsfCommand;
  std::string name = bplace::lsfsim::BaseName(argc > 0 ? argv[0] : "lsfsim");
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  try {
    if (IsLsfCommand(name)) return bplace::lsfsim::RunAsLsfCommand(name, args);
    if (args.empty()) {
      bplace::lsfsim::PrintControlUsage();
      return 2;
    }
    std::string sub = args[0];
    args.erase(args.begin());
    if (IsLsfCommand(sub)) return bplace::lsfsim::RunAsLsfCommand(sub, args);
    return bplace::lsfsim::RunControlCommand(sub, args);
  } catch (const std::exception& e) {
    std::cerr << "lsfsim: " << e.what() << "\n";
    return 255;
  }
}
