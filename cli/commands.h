#pragma once

// The commands of `bplace`: each sends its request(s) to bplaced, prints
// the answer (a table, or the daemon's JSON with --json) on stdout and
// problems on stderr as one line "bplace: ...", and returns the exit status
// (exit_code.h). Each blocks for at most its timeout per request.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace bplace::cli {

// The options every command takes (before or after the command's name).
struct GlobalOptions {
  std::string url;                  // --url; empty: $BPLACE_URL, else the Unix socket
  std::optional<double> timeout_s;  // --timeout; unset: kDefaultTimeout (submit: kSubmitTimeout)
  bool json = false;                // --json: print the daemon's JSON as it came
};

// How long a request may take (connect, send, answer) unless --timeout says.
inline constexpr std::chrono::seconds kDefaultTimeout{30};
// A submission waits for bsub, which bplaced retries on the next queue: on
// the daemon's defaults up to submit.max_attempts (3) x lsf.command_timeout_s
// (30 s), plus room for the queue of the LSF-call budget.
inline constexpr std::chrono::seconds kSubmitTimeout{120};

// GET /v1/hosts/{host}; with `host` empty GET /v1/hosts. `names_only`:
// one host name a line (for scripts and completion).
int RunHosts(const GlobalOptions& options, const std::string& host, bool names_only);

// GET /v1/placement. Exits 1 when no queue can take the job (200 with
// `chosen` null), so that scripts can test it.
int RunPlace(const GlobalOptions& options, const std::string& host, const std::string& queues,
             std::optional<int> slots, std::optional<bool> require_ib, const std::string& user);

// POST /v1/jobs with the body ParseSubmitArgs makes of `args`, with an
// Idempotency-Key (--idempotency-key or a random one): when the connection
// breaks after the request went out, sends it once more with the same key,
// so that a job is never submitted twice.
int RunSubmit(const GlobalOptions& options, const std::vector<std::string>& args);

// GET /v1/queues (`names_only`: one name a line), or GET /v1/queues/{name}
// and (without --json) its /waits: the expected start per job size in words.
int RunQueues(const GlobalOptions& options, const std::string& name, bool names_only);

// GET /v1/jobs with the filters given (empty ones left out).
int RunJobs(const GlobalOptions& options, const std::string& user, const std::string& status,
            const std::vector<std::string>& labels, std::optional<int> limit,
            const std::string& cursor);

// GET /v1/jobs/{id}, with wait_s when `wait_s` is set.
int RunJob(const GlobalOptions& options, const std::string& id, std::optional<int> wait_s);

// DELETE /v1/jobs/{id} for each id, in order; exits 1 when any was refused.
// --json prints one answer a line.
int RunKill(const GlobalOptions& options, const std::vector<std::string>& ids);

// GET /v1/cluster, then /v1/hosts, /v1/ib and /v1/jobs?limit=1 (the
// jobs tier's age). --json prints {"cluster": ..., "hosts": ..., "ib": ...,
// "jobs": ...}, the answers (an object left empty for one that was refused).
int RunStatus(const GlobalOptions& options);

}  // namespace bplace::cli
