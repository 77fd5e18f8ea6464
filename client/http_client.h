#pragma once

// One synchronous HTTP/1.1 exchange with bplaced over its Unix socket or
// TCP (Boost.Beast), bounded by one deadline for resolving, connecting,
// sending and reading together.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "client/endpoint.h"

namespace bplace::client {

// A request: method ("GET", "POST", "DELETE"), target ("/v1/queues?x=y",
// already percent-encoded), a JSON body (sent with Content-Type
// application/json when not empty) and extra headers (Idempotency-Key).
struct HttpCall {
  std::string method = "GET";
  std::string target;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// The daemon's answer.
struct HttpAnswer {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

// Why there is no answer.
struct TransportError {
  enum class Kind {
    kUnreachable,  // could not connect (no socket, refused, no such host)
    kBroken,       // connected, then the connection failed before a whole answer
    kTimeout,      // the deadline passed (connecting or waiting for the answer)
  };
  Kind kind = Kind::kUnreachable;
  bool request_sent = false;  // the whole request was written before it failed
  std::string reason;         // the system's words ("No such file or directory")
};

// Sends `call` to `endpoint` on a new connection (closed after the answer)
// and reads the whole answer, all within `timeout`. `token`, when set, goes
// in `Authorization: Bearer` (callers send it over TCP only: on the Unix
// socket bplaced knows the caller from the socket). Blocks the calling
// thread up to `timeout`; never throws for network trouble, which comes back
// as a TransportError.
tl::expected<HttpAnswer, TransportError> Exchange(const Endpoint& endpoint,
                                                  const std::optional<std::string>& token,
                                                  const HttpCall& call,
                                                  std::chrono::milliseconds timeout);

}  // namespace bplace::client
