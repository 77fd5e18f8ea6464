#pragma once

// The front door's three commands (docs/lsf-front-door.md): bsub, bjobs and
// bkill answered by bplaced in LSF's words, and the real LSF command run
// whenever bplaced cannot answer as LSF would.

#include <map>
#include <string>
#include <vector>

namespace bplace::frontdoor {

// What the front door reads from its environment.
struct Settings {
  std::map<std::string, std::string> env;  // the process environment
  // BPLACE_FRONTDOOR=off: straight to the real command (a site's or a
  // user's switch, like qstat-cache's QSCACHE_BYPASS).
  bool bypass = false;
  // BPLACE_EXPLAIN=1: say on stderr why the real command runs.
  bool explain = false;
};

// Settings from `env`.
Settings SettingsFrom(std::map<std::string, std::string> env);

// Runs `command` ("bsub", "bjobs" or "bkill") with `args` (the words after
// its name) and returns the exit status to exit with, having printed what
// the command prints. May replace the process with the real command (exec)
// and then never returns.
//  - bsub: one Idempotency-Key per run; a lost answer is asked again with
//    the same key, so the job is submitted once, whatever happens to the
//    connection or the daemon; the real bsub runs only when bplaced says
//    so or could not be reached before anything was sent.
//  - bjobs, bkill: one call; anything but an answer runs the real command.
int RunCommand(const std::string& command, const std::vector<std::string>& args,
               const Settings& settings);

}  // namespace bplace::frontdoor
