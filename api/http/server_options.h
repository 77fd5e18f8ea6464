#pragma once

// The options of the HTTP server (api/http/http_server.h), each with its
// default in one place. The config loader (config/config_loader.cc) fills
// them from [server]; config/bplaced.example.toml documents every key.

#include <chrono>
#include <cstdint>

namespace bplace::api {

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
  // Idempotency-Key gets that job (docs/api.md "Exactly once"). 10 s lets the
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

}  // namespace bplace::api
