#pragma once

// The reload diff: which keys of the config file a running daemon takes on
// SIGHUP, which keys a re-read file changes, and the config the daemon runs
// with after taking it. Each key's reload class is in the schema table
// (config/config_schema.cc).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace bplace::config {

// Whether a running daemon takes a key's new value when SIGHUP makes it read
// its config file again. Each key's is in the schema table of
// config_schema.cc; docs/configuration.md shows it.
enum class KeyReload {
  kRestart,  // read once at start-up (listeners, threads, identities, paths): needs a restart
  kLive,     // applied by the daemon on SIGHUP
  // The probe's: rdma_probe reads these from the file itself at every run
  // ([ib] source = "local" runs it with the daemon's file), so a new value
  // is in force from the next probe run, SIGHUP or not.
  kProbe,
};

// One key whose value differs between two configs.
struct KeyChange {
  std::string key;  // "table.key", as the file names it
  KeyReload reload;
  // The two values as the file would write them: integers, `_s` durations
  // in seconds, lists joined by ", " ("127.0.0.1:8080"), "" for empty text.
  std::string running;
  std::string next;
};

// Every key whose value in `next` differs from its value in `running`, in
// the order of the schema (tables, then keys, as config/bplaced.example.toml
// lists them). Pure.
std::vector<KeyChange> DiffConfigs(const Config& running, const Config& next);

// The config a daemon runs with after taking `next` on SIGHUP: `running`,
// with the value of every key that is not KeyReload::kRestart taken from
// `next`. Pure.
Config MergeReloadable(const Config& running, const Config& next);

// The reload class of `key` ("limits.submit_burst"); nullopt when the schema
// has no such key.
std::optional<KeyReload> ReloadOf(std::string_view key);

}  // namespace bplace::config
