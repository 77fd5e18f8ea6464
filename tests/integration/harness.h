#pragma once

// Test harness for integration tests: the real bplaced binary against the
// LSF simulator, in a temp directory, over HTTP on 127.0.0.1.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bplace::testing {

// What a finished child printed.
struct ProcessOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv (no shell) with `env` added to ours, waits for it (killing it
// after `timeout`), and returns what it printed.
ProcessOutput RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {},
                         std::chrono::seconds timeout = std::chrono::seconds(30));

// RunProcess as `user`: through setpriv (ids and groups of `user`) when we
// are root and `user` is another, else as ourselves.
ProcessOutput RunProcessAs(const std::string& user, const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& env = {},
                           std::chrono::seconds timeout = std::chrono::seconds(30));

// One HTTP exchange.
struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  nlohmann::json Json() const;  // the body parsed; discarded value when not JSON
};

// Sends one request to 127.0.0.1:port on a new connection and reads the reply.
// `authorization`, when not empty, is sent as the Authorization header.
HttpReply Http(int port, const std::string& method, const std::string& target,
               const std::string& body = "", const std::string& content_type = "application/json",
               const std::string& authorization = "",
               const std::map<std::string, std::string>& headers = {});

// Whether `user` exists and this process (root) can run programs as them.
bool CanRunAs(const std::string& user);

// A simulator state directory made from the demo cluster (or another definition).
class SimCluster {
 public:
  explicit SimCluster(const std::string& definition);
  ~SimCluster();
  const std::filesystem::path& dir() const { return dir_; }
  // Runs `lsfsim ARGS` or an LSF command of the simulator (e.g. {"bjobs", "-w"}).
  ProcessOutput Lsf(const std::vector<std::string>& args) const;
  // The simulator's invocation counts per LSF command.
  nlohmann::json Counts() const;

 private:
  std::filesystem::path dir_;
};

// Keys of the [lsf] and [server] tables for the daemon under test.
struct DaemonSettings {
  int command_timeout_s = 5;
  int load_refresh_s = 3600;
  int topology_refresh_s = 3600;
  int load_refresh_after_submit_s = -1;  // < 0: not written (the daemon's default)
  int max_staleness_s = 120;
  int max_attempts = 3;
  int jobs_refresh_s = 3600;  // the jobs tier; tests that follow jobs shorten it
  // [state] dir; empty: a fresh directory in the cluster's (the node
  // directory's, when set), kept across DaemonProcess instances on the
  // same SimCluster (a restart).
  std::string state_dir;
  // Where this daemon's config, tokens, port file and log go; empty: the
  // cluster's directory. Several daemons on one SimCluster (login nodes)
  // each need their own.
  std::string node_dir;
  std::map<std::string, std::string> env;  // added to the daemon's environment
  std::string bin_dir;                     // LSF commands from here instead of the simulator's
  std::string extra_config;                // TOML appended to the generated config ([ib] ...)
  // [auth] mode "multi-user": the daemon runs as root (tests run as root)
  // and bsub as each caller. Otherwise service-account mode: as root, the
  // daemon is started as the system user `bplace-sys` (tools/test-users.sh).
  bool multi_user = false;
  bool anonymous_read = true;  // [auth] anonymous_read
  std::string auth_config;     // TOML lines added to [auth] (job_visibility = "all", ...)
  std::string unix_socket;     // when set, also listen on unix:<this path>
  std::string server_config;   // TOML lines added to [server] (header_timeout_s = 2, ...)
  std::string submit_config;   // TOML lines added to [submit] (tag_in_job_name = true, ...)
  // Lines added to the tokens file ("sha256:<hex> USER SCOPES").
  std::vector<std::string> token_lines;
  // Runs bplaced through this command (e.g. systemd-socket-activate -l PATH);
  // the constructor then returns at once instead of waiting for readiness.
  std::vector<std::string> launcher;
  // TOML lines of [limits]; the default lets bursts of test submissions through.
  std::string limits =
      "submit_burst = 1000\nsubmit_per_minute = 6000\nlsf_calls_burst = 1000\n"
      "lsf_calls_per_minute = 6000";
};

// The LSF commands named `command` ("bjobs") a bplaced ran, whatever their
// outcome: the sum of bplace_lsf_commands_total{command=...} in
// `metrics_text` (its GET /metrics).
long long LsfCommandsIn(const std::string& metrics_text, const std::string& command);

// "sha256:<hex>" of `token`, as the tokens file holds it.
std::string TokenHash(const std::string& token);

// The user a DaemonProcess started with `settings` runs jobs as, whom its
// tokens must name to submit: alice in multi-user mode, else the service
// account (`bplace-sys` as root, the current user otherwise).
std::string ServiceUserFor(const DaemonSettings& settings);

// A bplaced process serving `sim` on 127.0.0.1 with an ephemeral port.
// Started in the constructor (waits until /readyz answers 200); SIGTERM and
// reaped in the destructor.
class DaemonProcess {
 public:
  DaemonProcess(const SimCluster& sim, const DaemonSettings& settings);
  ~DaemonProcess();
  int port() const { return port_; }
  HttpReply Get(const std::string& target) const { return Http(port_, "GET", target); }
  // With the harness's token, which has every scope for the user jobs run as
  // (the service user; alice in multi-user mode).
  HttpReply Post(const std::string& target, const std::string& body) const {
    return Http(port_, "POST", target, body, "application/json", "Bearer " + token_);
  }
  // Any request with the harness's token and extra `headers`
  // (Idempotency-Key, ...).
  HttpReply Call(const std::string& method, const std::string& target, const std::string& body = "",
                 const std::map<std::string, std::string>& headers = {}) const {
    return Http(port_, method, target, body, "application/json", "Bearer " + token_, headers);
  }
  const std::string& token() const { return token_; }
  // How many times bplaced ran LSF's `command` ("bjobs"), whatever the
  // outcome (bplace_lsf_commands_total of its /metrics).
  long long LsfCommandsRun(const std::string& command) const;
  // SIGKILL, as a crash would: nothing is flushed, nothing answered.
  void Kill9();
  const std::string& service_user() const { return service_user_; }
  // Sends SIGTERM and waits; returns the exit status (or -1 on timeout).
  int Terminate(std::chrono::seconds timeout = std::chrono::seconds(20));
  const std::string& log_path() const { return log_path_; }
  // The config file the daemon was started with (rewrite it, then SIGHUP).
  const std::string& config_path() const { return config_path_; }
  // The daemon's pid (-1 once it has been reaped), for signals.
  pid_t pid() const { return pid_; }
  // The audit file ([log] audit_file default: audit.log in the state dir).
  const std::string& audit_path() const { return audit_path_; }

 private:
  pid_t pid_ = -1;
  std::string config_path_;
  int port_ = 0;
  std::string log_path_;
  std::string audit_path_;
  std::string token_;
  std::string service_user_;
};

}  // namespace bplace::testing
