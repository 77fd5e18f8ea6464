#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "daemon/common/result.h"

namespace bplace::config {

// [server]: the HTTP listener.
struct ServerConfig {
  // HOST:PORT; IPv6 as [::1]:8080; port 0 = any free port. Checked by
  // ParseListenAddress (config/listen_address.h), which the daemon uses to bind.
  std::string listen = "127.0.0.1:8080";
  std::chrono::seconds max_staleness{120};       // /readyz fails when the snapshot is older
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

// Reads and parses the file at `path`; blocks on the read. Returns kNotFound
// with "PATH: <errno text>" when the file cannot be opened or read, and
// kInvalidArgument when it is not a regular file or is larger than 1 MiB;
// otherwise as ParseConfig with FILE = `path`.
Result<Config> LoadConfigFile(const std::string& path);

}  // namespace bplace::config
