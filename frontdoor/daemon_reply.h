#pragma once

// The answers of bplaced's front-door routes (api/routes_lsf.h), read by the
// front door: what to print, the real command to run, or "ask again with the
// same Idempotency-Key". Pure functions.

#include <chrono>
#include <string>
#include <vector>

#include "client/http_client.h"

namespace bplace::frontdoor {

// One answer of POST /v1/lsf/{bsub,bjobs,bkill}.
struct DaemonReply {
  enum class Kind {
    kAnswered,  // print out/err, exit with exit_code
    kRunReal,   // run the real command with `args`
    // Ask again with the same key after retry_after: the first call with
    // it still runs (409 + Retry-After), a budget is spent (429), the
    // outcome is unknown (504, 500), or the daemon cannot decide yet (503).
    kRetry,
    // Anything else: the route did not run (an old daemon without it, a
    // caller it refused, a body it could not read): nothing was submitted.
    kNotHandled,
  };
  Kind kind = Kind::kNotHandled;
  int status = 0;  // the HTTP status
  std::string out;
  std::string err;
  int exit_code = 0;
  std::vector<std::string> args;
  std::string reason;  // why the real command runs (BPLACE_EXPLAIN)
  // kRunReal: exit 0 when the real command printed a JSON answer without
  // records (an OpenLava-family bjobs -json list, api/openlava_bjobs.h).
  bool exit_0_when_empty = false;
  std::chrono::seconds retry_after{0};
};

// Reads one HTTP answer of the routes. A 200 whose body is neither shape
// is kNotHandled (with the reason). Retry-After in whole seconds; 5 s when
// a retryable answer has none.
DaemonReply ReadDaemonReply(const client::HttpAnswer& answer);

}  // namespace bplace::frontdoor
