#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/config.h"

namespace bplace {

// The modules a reload changes, as the calls that change them (the daemon
// binds them to its RateLimiter, Submitter, Authenticator and spdlog; tests
// record them). Each call must be thread-safe towards the requests being
// served: it publishes the new value whole (under the module's lock or as
// one atomic pointer), and never restarts a listener.
struct ReloadTargets {
  std::function<void(const RateLimiterOptions&)> set_limits;  // [limits]
  // lsf.load_refresh_s and topology_refresh_s (the cache's tiers).
  std::function<void(const CacheOptions&)> set_refresh;
  std::function<void(const JobTrackerOptions&)> set_jobs;  // jobs.refresh_s
  // [placement], and the [ib] keys of the daemon's policy.
  std::function<void(const SubmitterOptions&)> set_submit;
  std::function<void(const std::string& level)> set_log_level;  // [log] level
  // Reads the tokens file at the path again and swaps it in; returns the
  // number of tokens loaded, or the file's error (the old tokens are kept).
  std::function<Result<std::size_t>(const std::string& path)> reload_tokens;
};

// One fact of a reload for the log, with its severity.
struct ReloadLogLine {
  enum class Level { kInfo, kWarn, kError };
  Level level;
  std::string text;
};

// What one reload did.
struct ReloadOutcome {
  bool refused = false;              // the file did not load: nothing changed
  config::Config running;            // the config in force afterwards
  std::vector<std::string> applied;  // keys whose new value is in force ("limits.submit_burst")
  std::vector<std::string> need_restart;  // keys changed in the file, not applied
  // One line per fact, for the log: "limits.submit_burst: 1 -> 5" (info),
  // "server.listen changed: needs a restart (kept 127.0.0.1:8080)" (warn),
  // the refusal or a tokens file that did not load (error).
  std::vector<ReloadLogLine> log;
  std::string status;  // one line for systemd's STATUS=
};

// Applies a re-read config file (`reread`, as config::LoadConfigFile returns
// it) to a daemon running `running`. A file that did not load is refused:
// `running` is kept, no target is called, and the error (its first line, in
// STATUS) is reported. Otherwise every key that config::ReloadOf says is
// kLive or kProbe is taken from the file (the targets are called with the
// merged config's values, restart-only fields kept as they run) and every
// changed kRestart key is reported as needing a restart and not applied.
// The tokens file is read again in both cases unless the file was refused
// (its path itself is restart-only). Calls the targets on the caller's
// thread; blocks only as they do (the tokens file read).
ReloadOutcome ApplyReload(const config::Config& running, const Result<config::Config>& reread,
                          const ReloadTargets& targets);

}  // namespace bplace
