#pragma once

// What LSF's commands print when they fail, in one place: the phrases that
// mean "the batch system is not there", the retry chatter printed while a
// command waits for mbatchd or LIM, and where in a command's output its
// reason is. Every caller (refresh queries, bsub, bjobs, bkill) reads these;
// none keeps a phrase list of its own. Pure functions; thread-safe.
// Sources: docs/lsf-formats.md "Rules for every parser", "Replies", "bkill" and
// "When LSF is down", and the captures in tests/testdata/lsf/.

#include <string_view>

namespace bplace::lsf {

// True for retry chatter: lines such as "LSF is down. Please wait...",
// "LSF is processing your request. Please wait..." and "Cannot connect to
// LSF. Please wait ...", which LSF prints before (or instead of) its answer.
bool IsRetryChatter(std::string_view line);

// True when `line` says LSF itself is down, unreachable or not configured:
// "Failed in an LSF library call" (lsb_init, ls_getclustername), "LIM is
// down", "Connection refused", "... not responding ...", "LSF is down",
// "Cannot connect to LSF", "Unable to open file lsf.conf".
bool SaysLsfUnavailable(std::string_view line);

// Where in `line` the first of those phrases (in the order above) starts,
// or std::string_view::npos; lets a caller split "<prefix>: <phrase>...".
std::size_t FindUnavailablePhrase(std::string_view line);

// True when bmgroup/bugroup say the cluster defines no group at all
// ("No host group", "No user group" and LSF 10.1's "No such ... group"
// when asked for every group), which is an answer, not a failure.
bool SaysNoGroups(std::string_view line);

// True when bjobs says that no job matched: "No job found", "No unfinished
// job found", "No DONE/EXIT job found", "No pending job found in queue <q>",
// ... (LSF 10.1 and volclava's cmd.err.c). Blanks around `line` are ignored.
bool SaysNoJobFound(std::string_view line);

// Where a failed command's reason is: the last line of `err` that is
// neither blank nor retry chatter; else the same of `out`; else the last
// chatter line (of `err`, then `out`); else "". Blanks and CR are trimmed.
// Reading both streams matters: bsub may print its refusal on one and the
// chatter on the other. The view points into `err` or `out`.
std::string_view ReasonLine(std::string_view out, std::string_view err);

}  // namespace bplace::lsf
