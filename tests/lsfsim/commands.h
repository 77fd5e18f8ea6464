#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/lsfsim/chaos.h"
#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// What one simulated command produced. The caller (main) applies output
// faults and writes `out`/`err` to the real streams.
struct CommandResult {
  int exit_code = 0;
  std::string out;
  std::string err;
};

// Everything an LSF command needs besides its arguments.
struct Context {
  const StateDir* state = nullptr;
  const ClusterDef* cluster = nullptr;
  std::string user;       // the calling user (getpwuid(getuid()))
  std::string from_host;  // the submission host recorded by bsub
  long long now = 0;      // seconds since the epoch
  // $LSB_NTRIES: how often bsub tries a job refused by a pending threshold;
  // nullopt (unset) tries forever, as LSF does.
  std::optional<long long> lsb_ntries;
  // Writes a line to stderr at once (bsub's "Retrying in N seconds..."
  // while it waits); null: the line goes to CommandResult::err.
  std::function<void(const std::string&)> progress;
  // What bsub records of the submitter for the job (LSF 10.1 bsub: "the
  // current working directory, file creation mask, and all environment
  // variables"): the process's working directory, umask and environment
  // ("KEY=value" entries).
  std::string cwd;
  int umask = 022;
  std::vector<std::string> environment;
  // How bjobs misanswers this invocation (`fault --chaos`): kDropIds,
  // kOtherIds and kNotFound change its selection; other values are applied
  // by main or mean nothing to the command.
  Misbehaviour misbehaviour = Misbehaviour::kNone;
};

// The LSF commands. Each parses `args` (argv without the command name) the
// way LSF 10.1 does, takes the state lock while it reads or changes state,
// and returns LSF's output, messages and exit status (formats in
// docs/lsf-formats.md). None of them writes to the real stdout or stderr.
CommandResult RunBqueues(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunBmgroup(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunBugroup(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunBhosts(const Context& ctx, const std::vector<std::string>& args);
// `stdin_script` is the job script bsub reads when no command is given;
// main reads it before calling (only when needed, see BsubNeedsStdin).
CommandResult RunBsub(const Context& ctx, const std::vector<std::string>& args,
                      const std::string& stdin_script);
CommandResult RunBjobs(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunBkill(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunLsload(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunLsid(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunLsclusters(const Context& ctx, const std::vector<std::string>& args);
// `bparams [-a]`, `lsadmin showconf lim` and `bacct -l ID...` (cmd_params.cc).
CommandResult RunBparams(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunLsadmin(const Context& ctx, const std::vector<std::string>& args);
CommandResult RunBacct(const Context& ctx, const std::vector<std::string>& args);

// Returns true when a bsub with these arguments has no command, so that LSF
// would read the job script from stdin.
bool BsubNeedsStdin(const ClusterDef& cluster, const std::vector<std::string>& args);

// The names the multi-call binary answers to as LSF commands.
inline constexpr const char* kLsfCommands[] = {
    "bqueues", "bmgroup", "bugroup",    "bhosts",  "bsub",    "bjobs", "bkill",
    "lsload",  "lsid",    "lsclusters", "bparams", "lsadmin", "bacct"};

// Returns true when `name` is one of kLsfCommands.
bool IsLsfCommand(const std::string& name);

// Runs the LSF command `name` (one of kLsfCommands).
CommandResult RunLsfCommand(const std::string& name, const Context& ctx,
                            const std::vector<std::string>& args, const std::string& stdin_script);

}  // namespace bplace::lsfsim
