#pragma once

// The vocabulary of HTTP exchanges between the server (api/http/http_server.h)
// and what answers requests (the router, the route functions, problem+json):
// the messages, what the server knows about a request, and the callbacks.

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <sys/types.h>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace bplace::api {

using Request = boost::beast::http::request<boost::beast::http::string_body>;
using Response = boost::beast::http::response<boost::beast::http::string_body>;

// How the caller reached the server.
enum class Transport { kTcp, kUnix };

// The peer of a Unix-socket connection as the kernel saw it when the client
// called connect (SO_PEERCRED): the process and its effective uid and gid
// then. Unforgeable by the client, unlike anything it sends.
struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// What the server knows about a request besides the message itself.
struct RequestContext {
  // The client's X-Request-Id when it is 1..128 printable ASCII characters
  // without spaces, else one the server made up (16 hex digits). Echoed on the
  // response.
  std::string request_id;
  // The peer as "127.0.0.1:54321" or "[::1]:54321" for TCP, or
  // "unix:pid=4242,uid=1000" for a Unix socket. Also the first field of the
  // access log line.
  std::string remote;
  // When the request had been read completely (headers and body).
  std::chrono::steady_clock::time_point received;
  // The kind of listener the connection came in on.
  Transport transport = Transport::kTcp;
  // Set for every Unix-socket connection, never for TCP.
  std::optional<PeerCredentials> peer;
};

// Sends the response to a request. Call it exactly once, from any thread, at
// once or later (for instance when an asynchronous bsub has finished). Calls
// after the first are dropped with a warning; a call after the connection has
// gone (client left, handler_timeout passed) is dropped silently. The server
// sets Server, X-Request-Id, Content-Length, the HTTP version and the
// Connection header; everything else is the handler's. Must not be called
// after the io_context has been destroyed.
using Responder = std::function<void(Response)>;

// Answers one request. Called on an io thread, possibly concurrently for
// different connections, so it must be thread-safe. It must not block: work
// that waits belongs elsewhere, with `respond` called when it is done. `ctx`
// is valid during the call only; copy what a later response needs. An
// exception thrown before `respond` was called becomes a 500 problem+json and
// the connection stays usable.
using Handler = std::function<void(Request&& req, const RequestContext& ctx, Responder respond)>;

// Looks at the headers of a request whose client waits for `100 Continue`
// before it sends the body (Expect: 100-continue), so that credentials are
// checked before the client is told to go ahead. nullopt: the server sends
// the 100 and reads the body, and the Handler answers as usual. A response:
// it is sent instead of the 100 (401, 403), the body is never read and the
// connection closes. `ctx.received` is when the headers were read. Same
// threading rules as Handler; must not block.
using HeaderCheck =
    std::function<std::optional<Response>(const Request& header, const RequestContext& ctx)>;

}  // namespace bplace::api
