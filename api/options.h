#pragma once

// The options of the API, each with its default in one place. The config
// loader (config/config_loader.cc) fills them from the config file;
// config/bplaced.example.toml documents every key.

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace bplace::api {

// Bounds on a job request. Sizes are in bytes of UTF-8.
struct JobRequestLimits {
  std::int64_t max_slots = 100000;
  // [submit] max_array_elements: the most elements of one `array` (LSF's
  // own MAX_JOB_ARRAY_SIZE defaults to 1000 too). Each element is one
  // submission for the user's [limits] bucket.
  std::int64_t max_array_elements = 1000;
  // job_name, resources, output, error, cwd and each extra_args word.
  std::size_t max_string_bytes = 4096;
  // command, each argv word, the argv words once quoted into one command
  // string, and script. Linux refuses a single exec argument over 128 KiB
  // (MAX_ARG_STRLEN), so the command string must stay well below that.
  std::size_t max_command_bytes = 65536;
  std::size_t max_list_items = 256;  // queues, argv, extra_args
  // host, project, app and each queue name (LSF's own limits are shorter).
  std::size_t max_name_bytes = 255;
  // labels: at most max_labels; keys of [A-Za-z0-9_.-], 1..63 bytes; values
  // one line of at most max_label_value_bytes.
  std::size_t max_labels = 32;
  std::size_t max_label_value_bytes = 255;
};

// Limits of the HTTP server. Every phase of a connection has a deadline.
struct ServerOptions {
  // Largest request body accepted; larger ones get 413 and the connection
  // closes.
  std::uint64_t body_limit_bytes = 1024 * 1024;
  // From accepting a connection (or from the first byte of a later request on
  // a kept-alive connection) to the end of the request headers, fixed at its
  // start: a client trickling a byte a second gains nothing. Expiry: the
  // connection closes without a response (a slow or stalled client; Beast's
  // stream closes the socket when a deadline passes, so no 408 can follow).
  std::chrono::seconds header_timeout{10};
  // From the end of the headers to the end of the body, fixed as above.
  // Expiry: as above.
  std::chrono::seconds body_timeout{30};
  // How long a kept-alive connection may wait for its next request. Expiry:
  // the connection closes without a response.
  std::chrono::seconds idle_timeout{60};
  // How long writing one response (or a 100 Continue) may take. Expiry: the
  // connection closes. (Not in the original brief: every write needs a
  // deadline too, or a client that never reads pins a connection.)
  std::chrono::seconds write_timeout{30};
  // Connections served at once by each TCP listener. When a new connection
  // finds them all taken, the one idle longest between requests on that
  // listener is closed to make room; when none is idle, the new one gets 503
  // with `Retry-After: 1` and is closed. 512 with max_unix_connections and
  // the 503s in flight stays under the 1024 open files systemd allows a
  // service by default.
  int max_connections = 512;
  // The same for each Unix-socket listener, counted apart from TCP so that
  // nothing arriving over the network can take the room local users have.
  // Each request of a local client (bplace CLI, curl) holds one while it
  // runs; idle keep-alive ones are reclaimed as above.
  int max_unix_connections = 256;
  // TCP connections from one remote address, over all TCP listeners. At the
  // cap, the address's own connection idle longest is closed for the new
  // one, else the new one gets 503. 0 (the default): no cap. On the default
  // listener (127.0.0.1) every client has the same address, so a cap would
  // only cap all local clients together (200 pollers of a workflow engine
  // got 503 at 128); a site listening on a routable address sets it (128
  // fits a workflow engine's pool: aiohttp keeps up to 100).
  int max_connections_per_peer = 0;
  // How long a handler may take to call its Responder. Expiry means a bug (a
  // lost Responder) or a hung backend: the client gets 500 and the connection
  // closes, with an error in the log.
  std::chrono::seconds handler_timeout{600};
  // After Stop (SIGTERM), how long the connections still open have to
  // finish: then every one left is closed, whatever it is doing, and the
  // drain completes. A client trickling a request body, or a long poll,
  // cannot hold the daemon past it. A bsub still running then is killed
  // with the daemon's LSF commands; its submission is settled by the
  // reconciler on the next start, and a client retrying with the same
  // Idempotency-Key gets that job (README "Exactly once"). 10 s lets the
  // bsubs of a burst finish (they take well under a second on a healthy
  // mbatchd) and stays far below systemd's TimeoutStopSec (90 s).
  std::chrono::seconds drain_timeout{10};
  // Access log lines (one per response, level info) written per second at
  // most, for responses below 400 and, apart, for 4xx/5xx (a flood of
  // successes never hides an error); the responses beyond are counted and
  // reported in one line when the next second's first is logged. 0: no access log. Under a flood of
  // reads the log stays small and below journald's rate limit (10,000 lines per 30 s per service by
  // default), so the daemon's other messages are not dropped with it; at a login node's ordinary
  // load every request is logged.
  std::uint32_t access_log_per_second = 20;
};

// [server] metrics_access: who may read GET /metrics.
enum class MetricsAccess {
  // Anyone who can connect, without a token: Prometheus on localhost and
  // the login node's users. It shows counts, queue names and host
  // statuses, never user names or job ids.
  kAnonymous,
  // Like the other reads: the `read` scope (any Unix-socket peer, a token
  // with it, anonymous TCP callers only with [auth] anonymous_read).
  kRead,
};

// What the read and submit handlers need to know.
struct ApiOptions {
  // /readyz fails, and submissions are refused while LSF is failing, when
  // the load data is older (topology: older than its interval plus this).
  std::chrono::seconds max_staleness{120};                   // server.max_staleness_s
  JobRequestLimits request;                                  // submit.max_slots
  MetricsAccess metrics_access = MetricsAccess::kAnonymous;  // server.metrics_access
};

// [auth] mode: who submits.
enum class AuthMode {
  kServiceAccount,  // daemon runs as an ordinary user; only that user submits
  kMultiUser,       // daemon runs as root; bsub runs as the caller
};

// [auth] job_visibility: whose jobs' details (GET /v1/jobs/{id}, GET
// /v1/jobs?user=) an identified caller sees. Anonymous callers never see
// any, and the `admin` scope sees every job, whichever is chosen.
enum class JobVisibility {
  // "own": a user sees their own jobs only, as LSF does with
  // SECURE_JOB_INFO_LEVEL=4 and SECURE_INFODIR_USER_ACCESS=Y (lsb.params):
  // a job's name, command line, labels and request id are its owner's.
  kOwn,
  // "all": every identified caller sees every job bplace follows, as LSF's
  // own default (SECURE_JOB_INFO_LEVEL=0: bjobs -u all for everyone).
  kAll,
};

// [auth]: who a caller is and what they may do.
struct AuthOptions {
  AuthMode mode = AuthMode::kServiceAccount;
  std::string tokens_file;      // bearer tokens for TCP callers; empty = none
  bool anonymous_read = false;  // TCP callers without a token may read
  uid_t min_uid = 1000;         // callers below this uid (and uid 0) are refused
  JobVisibility job_visibility = JobVisibility::kOwn;  // auth.job_visibility
};

}  // namespace bplace::api
