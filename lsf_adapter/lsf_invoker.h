#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "identity/user_identity.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/lsf_dialect.h"

namespace bplace::lsf {

// How LSF commands are found and run ([lsf] in the config file).
struct InvokerOptions {
  std::string bin_dir;  // directory with bqueues, bsub, ...; empty: $LSF_BINDIR, else PATH
  std::string env_dir;  // passed as LSF_ENVDIR; empty: inherit $LSF_ENVDIR
  std::chrono::milliseconds command_timeout{30000};  // per command; the child is killed after it
};

// Builds the CommandSpec of every LSF command the daemon runs: where the
// binary is, the environment it gets, its timeout. Immutable; thread-safe.
class LsfInvoker {
 public:
  // `bin_dir`: directory holding bqueues, bsub, ...; empty means the
  // daemon's LSF_BINDIR, and without one the command name is looked up in
  // PATH. `env_dir`: passed as LSF_ENVDIR; empty means the daemon's own
  // LSF_ENVDIR, if any. `parent_env`: the daemon's environment
  // ("NAME=value"); from it the child keeps HOME, USER, LOGNAME, LANG/LC_*,
  // TZ, LD_LIBRARY_PATH and every LSF_* / LSB_* variable except the
  // output-format overrides (LSB_BQUEUES_FORMAT, LSB_BJOBS_FORMAT,
  // LSB_BHOSTS_FORMAT), which would change the layouts we parse
  // (docs/lsf-formats.md "Rules for every parser", 4). The parent's PATH is not
  // kept: the child's PATH is bin_dir (if any) followed by
  // /usr/local/bin:/usr/bin:/bin. bsub always gets LSB_NTRIES=1
  // (ApplyCommandRules). Reads `<env_dir>/lsf.conf` (LSF's /etc/lsf.conf
  // without an env_dir) once, for limit_units(): blocks on the disk briefly.
  LsfInvoker(std::string bin_dir, std::string env_dir, std::chrono::milliseconds timeout,
             const std::vector<std::string>& parent_env);
  LsfInvoker(const InvokerOptions& options, const std::vector<std::string>& parent_env)
      : LsfInvoker(options.bin_dir, options.env_dir, options.command_timeout, parent_env) {}

  // The spec for `command` (e.g. "bqueues") with `args`.
  CommandSpec Spec(std::string_view command, std::vector<std::string> args,
                   std::optional<std::string> stdin_data = std::nullopt) const;

  // The spec for `command` run as `user` (multi-user mode): the child drops
  // to the user's uid, gid and groups before exec, starts in their home (or
  // "/"), and gets a clean environment: HOME, USER, LOGNAME, PATH (bin_dir
  // first) and LSF_ENVDIR only. Blocks briefly (stats the home directory).
  CommandSpec SpecAs(const identity::UserIdentity& user, std::string_view command,
                     std::vector<std::string> args,
                     std::optional<std::string> stdin_data = std::nullopt) const;

  // The environment of a `command` that hands the caller's environment
  // (`caller_env`, "NAME=value") on, as bsub gives the job the submitter's
  // (LSF 10.1 bsub(1): "sets the user's execution environment for the
  // job"): every variable of the caller's, except that LSF_ENVDIR is the
  // daemon's when it has one (the cluster this daemon serves), and the
  // command's rules applied (ApplyCommandRules).
  std::vector<std::string> CallerEnvironment(std::string_view command,
                                             std::vector<std::string> caller_env) const;

  // Where `command` runs from: "<bin_dir>/<command>", or the bare name.
  std::string Path(std::string_view command) const;

  // The memory units of the cluster's limits and resource requirements:
  // LSF_UNIT_FOR_LIMITS of the lsf.conf LSF's commands read (LimitUnits;
  // LSF's defaults when the file or the line is missing), read once when
  // the invoker was made. The error names a value LSF does not know.
  const Result<LimitUnits>& limit_units() const { return limit_units_; }

  const std::vector<std::string>& env() const { return env_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::string bin_dir_;
  std::chrono::milliseconds timeout_;
  std::vector<std::string> env_;
  std::string path_;     // PATH of every child
  std::string env_dir_;  // LSF_ENVDIR, or empty
  Result<LimitUnits> limit_units_;
};

// The rules for one command's environment, applied by Spec and SpecAs:
// bsub gets LSB_NTRIES=1 (replacing any inherited value), so that a job
// refused by a pending-job threshold (MAX_PEND_JOBS, MAX_PEND_SLOTS) is
// answered at once instead of retried every SUB_TRY_INTERVAL until the
// command's timeout.
void ApplyCommandRules(std::string_view command, std::vector<std::string>& env);

// What the runner needs to run a command as `user` (CommandSpec::run_as):
// its ids and groups, and its home directory as working directory when that
// is a directory, else "/" (a home that does not exist, or one the daemon
// cannot see). Blocks: it stats the home directory, which may be on NFS.
// Thread-safe.
RunAs RunAsFor(const identity::UserIdentity& user);

// What the runner needs to run a command as this process itself, in
// `work_dir` with `umask` (the caller's working directory and file mask,
// service-account mode): our own ids and groups, which the child then need
// not change. Never fails; blocks on nothing.
RunAs RunAsSelf(std::string work_dir, std::optional<mode_t> umask);

// The current process environment as "NAME=value" strings.
std::vector<std::string> CurrentEnvironment();

}  // namespace bplace::lsf
