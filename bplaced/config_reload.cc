#include "bplaced/config_reload.h"

#include <utility>

#include "config/config_diff.h"

namespace bplace {
namespace {

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string Joined(const std::vector<std::string>& keys) {
  std::string joined;
  for (const std::string& key : keys) joined += (joined.empty() ? "" : ", ") + key;
  return joined;
}

// Re-reads the tokens file of `config` (its path needs a restart), even
// when the config file itself was refused: revoking a leaked token must not
// wait for a typo to be fixed. Returns the status suffix ("; 3 tokens").
std::string ReloadTokens(const config::Config& config, const ReloadTargets& targets,
                         ReloadOutcome& outcome) {
  if (config.auth.tokens_file.empty()) return "";
  auto loaded = targets.reload_tokens(config.auth.tokens_file);
  if (loaded) return "; " + std::to_string(*loaded) + (*loaded == 1 ? " token" : " tokens");
  outcome.log.push_back(
      {ReloadLogLine::Level::kError, "previous tokens kept: " + loaded.error().message});
  return "; tokens file refused, previous tokens kept";
}

}  // namespace

ReloadOutcome ApplyReload(const config::Config& running, const Result<config::Config>& reread,
                          const ReloadTargets& targets) {
  ReloadOutcome outcome;
  if (!reread) {
    outcome.refused = true;
    outcome.running = running;
    outcome.log.push_back(
        {ReloadLogLine::Level::kError,
         "config not reloaded, the running one is kept: " + reread.error().message});
    outcome.status = "reload refused, running config kept: " + FirstLine(reread.error().message) +
                     ReloadTokens(running, targets, outcome);
    return outcome;
  }
  for (const config::KeyChange& change : config::DiffConfigs(running, *reread)) {
    if (change.reload == config::KeyReload::kRestart) {
      outcome.need_restart.push_back(change.key);
      outcome.log.push_back(
          {ReloadLogLine::Level::kWarn,
           change.key + " changed: needs a restart (kept " + change.running + ")"});
    } else {
      outcome.applied.push_back(change.key);
      outcome.log.push_back(
          {ReloadLogLine::Level::kInfo, change.key + ": " + change.running + " -> " + change.next});
    }
  }
  outcome.running = config::MergeReloadable(running, *reread);
  // Every target is set, changed or not: setting an unchanged value is a
  // no-op, and one path is simpler to trust than a per-key dispatch.
  targets.set_limits(outcome.running.limits);
  targets.set_refresh(outcome.running.refresh);
  targets.set_jobs(outcome.running.jobs);
  targets.set_submit(outcome.running.submit);
  targets.set_log_level(outcome.running.log.level);
  const std::string tokens = ReloadTokens(outcome.running, targets, outcome);
  outcome.status =
      "reloaded: " +
      (outcome.applied.empty()       ? std::string("no key changed")
       : outcome.applied.size() == 1 ? std::string("1 key applied")
                                     : std::to_string(outcome.applied.size()) + " keys applied") +
      (outcome.need_restart.empty() ? std::string()
                                    : "; needs a restart: " + Joined(outcome.need_restart)) +
      tokens;
  return outcome;
}

}  // namespace bplace
