#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "daemon/common/result.h"

namespace bplace::config {

// [server]: the HTTP listener.
struct ServerConfig {
  std::string listen = "127.0.0.1:8080";  // HOST:PORT; IPv6 as [::1]:8080; port 0 = any free port
  std::chrono::seconds max_staleness{120};  // /readyz fails when the snapshot is older
  std::uint64_t body_limit_bytes = 1024 * 1024;  // largest accepted request body
  std::chrono::seconds header_timeout{10};  // time to read a request's headers
  std::chrono::seconds body_timeout{30};    // time to read a request's body
  std::chrono::seconds idle_timeout{60};    // keep-alive connection idle limit
  int max_connections = 256;                // open connections beyond this are refused
  int threads = 2;                          // io_context threads
};

// [lsf]: how LSF commands are found and run.
struct LsfConfig {
  std::string bin_dir;  // directory with bqueues, bsub, ...; empty: $LSF_BINDIR, else PATH
  std::string env_dir;  // passed as LSF_ENVDIR; empty: inherit $LSF_ENVDIR
  std::chrono::seconds command_timeout{30};  // per LSF command; the child is killed after it
  std::chrono::seconds load_refresh{15};     // bqueues -w + bhosts -w
  std::chrono::seconds topology_refresh{300};  // bqueues -l, bmgroup -w, bugroup -w
};

// [submit]: how POST /v1/jobs submits.
struct SubmitConfig {
  int max_attempts = 3;  // queues tried per request before giving up
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
// into a Config, starting from the defaults above. Returns kInvalidArgument
// with "FILE:LINE: key: problem" for a syntax error, an unknown table or key,
// a value of the wrong type, or a value out of range (durations must be > 0,
// max_attempts 1..100, listen must be HOST:PORT).
Result<Config> ParseConfig(std::string_view text, std::string_view source_name);

// Reads and parses the file at `path`. Returns kNotFound when it cannot be
// read (message names the path and errno text), otherwise as ParseConfig.
Result<Config> LoadConfigFile(const std::string& path);

}  // namespace bplace::config
