#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/options.h"
#include "common/result.h"
#include "daemon/options.h"
#include "lsf_adapter/lsf_invoker.h"
#include "rdma_probe/probe_options.h"

namespace bplace::config {

// [server] keys that belong to the composition root: where to listen and
// with how many threads. (The HTTP limits are api::ServerOptions, the
// staleness bound api::ApiOptions.)
struct ServerConfig {
  // Listeners, each "HOST:PORT" (IPv6 as [::1]:8080; port 0 = any free port)
  // or "unix:/ABSOLUTE/PATH". Checked by api::ParseListenAddress. Ignored
  // when systemd passes listening sockets (socket activation).
  std::vector<std::string> listen = {"127.0.0.1:8080"};
  std::uint32_t socket_mode = 0666;  // permission bits of Unix sockets bplaced creates
  std::string socket_group;          // group of those sockets; empty = the daemon's group
  int threads = 2;                   // HTTP threads, each with an io_context of its own
};

// [log]
struct LogConfig {
  std::string level = "info";  // trace, debug, info, warn, error, critical, off
};

// The whole daemon configuration: the options structs of the modules, each
// with its defaults where the module declares it. Which key fills which
// field is the schema table of config_schema.cc, the one list of keys.
struct Config {
  ServerConfig server;              // [server] listen, socket_mode, socket_group, threads
  api::ServerOptions http;          // [server] body_limit_bytes, *_timeout_s, max_*connections*;
                                    // [log] access_log_per_s
  api::ApiOptions api;              // [server] max_staleness_s; [submit] max_slots
  lsf::InvokerOptions lsf;          // [lsf] bin_dir, env_dir, command_timeout_s
  CacheOptions refresh;             // [lsf] load_refresh_s, topology_refresh_s
  WaitFeedOptions waits;            // [lsf] events_file
  SubmitterOptions submit;          // [submit] max_attempts; [placement]; [ib] the daemon's keys
  ExactlyOnceOptions exactly_once;  // [submit] check_lsf_for_key
  rdma::ProbeOptions probe;         // [ib] the probe's keys
  api::AuthOptions auth;            // [auth]
  RateLimiterOptions limits;        // [limits]
  JobTrackerOptions jobs;           // [jobs]
  StateOptions state;               // [state]
  LogConfig log;                    // [log] level
  AuditOptions audit;               // [log] audit_file, audit_max_file_bytes, audit_max_files
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

// The probe's part of a config file, for rdma_probe on a compute node: the
// [ib] keys of rdma::ProbeOptions, read and checked as LoadConfigFile does;
// the daemon's [ib] keys are accepted and ignored, and so is every other
// table (a compute node may have a file with only [ib], or the daemon's
// own). Errors as LoadConfigFile, for [ib] keys only.
Result<rdma::ProbeOptions> LoadProbeOptions(const std::string& path);

}  // namespace bplace::config
