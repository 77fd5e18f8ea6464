#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace bplace::config {

// [server]: the HTTP listener.
struct ServerConfig {
  // Listeners, each "HOST:PORT" (IPv6 as [::1]:8080; port 0 = any free port)
  // or "unix:/ABSOLUTE/PATH". Checked by ParseListenAddress
  // (config/listen_address.h), which the daemon uses to bind. Ignored when
  // systemd passes listening sockets (socket activation).
  std::vector<std::string> listen = {"127.0.0.1:8080"};
  std::uint32_t socket_mode = 0666;         // permission bits of Unix sockets bplaced creates
  std::string socket_group;                 // group of those sockets; empty = the daemon's group
  std::chrono::seconds max_staleness{120};  // /readyz fails when the snapshot is older
  std::uint64_t body_limit_bytes = 1024 * 1024;  // largest accepted request body
  std::chrono::seconds header_timeout{10};       // time to read a request's headers
  std::chrono::seconds body_timeout{30};         // time to read a request's body
  std::chrono::seconds idle_timeout{60};         // keep-alive connection idle limit
  int max_connections = 256;                     // open connections beyond this are refused
  int threads = 2;                               // io_context threads
};

// [lsf]: how LSF commands are found and run.
struct LsfConfig {
  std::string bin_dir;  // directory with bqueues, bsub, ...; empty: $LSF_BINDIR, else PATH
  std::string env_dir;  // passed as LSF_ENVDIR; empty: inherit $LSF_ENVDIR
  std::chrono::seconds command_timeout{30};    // per LSF command; the child is killed after it
  std::chrono::seconds load_refresh{15};       // bqueues -w + bhosts -w
  std::chrono::seconds topology_refresh{300};  // bqueues -l, bmgroup -w, bugroup -w
};

// [submit]: how POST /v1/jobs submits.
struct SubmitConfig {
  int max_attempts = 3;    // queues tried per request before giving up
  int max_slots = 100000;  // largest `slots` a request may ask for
};

// [placement]: policy knobs.
struct PlacementConfig {
  std::vector<std::string> exclude_queues;  // never placed into (still listed, with a reason)
};

// Link layer a port must have: InfiniBand, Ethernet (RoCE) or either.
enum class IbLinkLayer { kInfiniband, kEthernet, kAny };

// Where the daemon learns hosts' InfiniBand health: nowhere, the `ib_ok`
// load index of `lsload` (rdma_probe running as an LSF elim on every host),
// or rdma_probe run as a child process for the host the daemon runs on.
enum class IbSource { kNone, kLsload, kLocal };

// [ib]: what rdma_probe checks (shared by the probe and the daemon) and how
// the daemon uses the result.
struct IbConfig {
  // Ports to check: "mlx5_0" (every port of the device) or "mlx5_0:1"; empty
  // means every port of every device found.
  std::vector<std::string> devices;
  IbLinkLayer link_layer = IbLinkLayer::kInfiniband;
  double min_rate_gbps = 0;                  // active width x speed per port; 0 = no minimum
  bool loopback = true;                      // send one message through an RC loopback QP per port
  std::chrono::seconds loopback_timeout{2};  // completion deadline of that message
  std::chrono::seconds probe_timeout{10};    // one whole probe; past it the verdict is an error
  std::string sysfs_root = "/sys/class/infiniband";
  std::string state_file = "/var/lib/bplace/ib-counters.json";  // counter baseline
  // Error counters judged by their rise per hour ("symbol_error" etc. in
  // ports/N/counters/); link_downed, excessive_buffer_overrun_errors and
  // local_link_integrity_errors fail on any rise.
  double symbol_error_per_hour = 10;
  double link_error_recovery_per_hour = 3;
  double port_rcv_errors_per_hour = 10;
  std::chrono::seconds elim_interval{60};  // `rdma_probe --elim`: seconds between reports

  // The daemon's side.
  IbSource source = IbSource::kNone;
  bool require_ib = true;                   // keep unhealthy hosts out (a request may override)
  bool allow_unknown = true;                // hosts with no health data may be chosen (flagged)
  std::string probe_path = "rdma_probe";    // `local`: the probe binary, absolute or on PATH
  std::chrono::seconds local_interval{60};  // `local`: seconds between probe runs
};

// [auth]: who a caller is and what they may do.
enum class AuthMode {
  kServiceAccount,  // daemon runs as an ordinary user; only that user submits
  kMultiUser,       // daemon runs as root; bsub runs as the caller
};

struct AuthConfig {
  AuthMode mode = AuthMode::kServiceAccount;
  std::string tokens_file;       // bearer tokens for TCP callers; empty = none
  bool anonymous_read = false;   // TCP callers without a token may read
  std::uint32_t min_uid = 1000;  // callers below this uid (and uid 0) are refused
};

// [limits]: protection of the daemon and of mbatchd.
struct LimitsConfig {
  double submit_per_minute = 30;      // per user: token bucket refill rate
  int submit_burst = 10;              // per user: bucket size
  double lsf_calls_per_minute = 300;  // all callers: LSF commands a request causes
  int lsf_calls_burst = 30;
};

// [log]
struct LogConfig {
  std::string level = "info";  // trace, debug, info, warn, error, critical, off
};

// The whole daemon configuration, every field with its default.
struct Config {
  ServerConfig server;
  LsfConfig lsf;
  SubmitConfig submit;
  PlacementConfig placement;
  IbConfig ib;
  AuthConfig auth;
  LimitsConfig limits;
  LogConfig log;
};

// Parses TOML `text` (named `source_name` in messages, usually the file path)
// into a Config, starting from the defaults above; keys absent from `text`
// keep their defaults. Pure: no I/O. Every key, its unit and range is listed
// in config/bplaced.example.toml. Durations are integer seconds in `_s` keys,
// 1..604800.
//
// Returns kInvalidArgument listing every problem found, one per line, in file
// order, each as "FILE:LINE: table.key: problem":
//   unknown table            "servr: unknown table; did you mean `[server]`?"
//   unknown key              "lsf.load_refresh: unknown key; did you mean `load_refresh_s`?"
//                            (a suggestion is given within two edits, or when
//                            the key exists in another table)
//   wrong type               "lsf.command_timeout_s: expected integer, got string"
//                            (also "expected table, got integer" and the reverse)
//   out of range             "server.threads: must be between 1 and 64, got 0"
//   bad listen address       "server.listen: missing port in `host:`; ..."
//   inconsistent keys        "lsf.topology_refresh_s: must be >= lsf.load_refresh_s (60 s), got 30"
// A TOML syntax error stops parsing and is the only problem reported, as
// "FILE:LINE:COLUMN: syntax error: <toml++'s description>".
Result<Config> ParseConfig(std::string_view text, std::string_view source_name);

// Reads and parses the file at `path`; blocks on the read. Errors of the
// read as ReadSmallFile (common/small_file.h) with a 1 MiB limit ("PATH:
// open: <errno text>", "PATH: not a regular file (directory)"); otherwise as
// ParseConfig with FILE = `path`.
Result<Config> LoadConfigFile(const std::string& path);

}  // namespace bplace::config
