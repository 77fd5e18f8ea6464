#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "api/http/connection_budget.h"
#include "api/http/message.h"
#include "api/http/server_options.h"
#include "common/result.h"

namespace bplace::api {

// One listening socket of an HttpServer.
struct ListenerSpec {
  // "HOST:PORT" or "unix:/ABSOLUTE/PATH", as api::ParseListenAddress takes
  // them (see api/http/listen_address.h). Only a label when `inherited_fd` is
  // set, and may then be empty.
  std::string address;
  // >= 0: a socket already bound and listening, handed over by systemd
  // socket activation (sd_listen_fds) or a parent process. The server owns it
  // once Create succeeds (it closes it when destroyed; never unlinks its
  // path); on failure it stays the caller's.
  int inherited_fd = -1;
  // For a Unix socket the server creates: the permission bits of the socket
  // file (connecting needs write permission), 0..07777.
  std::uint32_t socket_mode = 0666;
  // ... and the group that owns it, by name; empty keeps the creating
  // process's group. Ignored for TCP and inherited sockets.
  std::string socket_group;
};

// Accepts connections on one or more listening sockets (TCP, Unix domain,
// or inherited from systemd) and serves HTTP/1.1 on them with a Handler:
// keep-alive, pipelining (one request at a time, in order), deadlines on
// every read and write, a body limit, strict framing (api/http/request_framing.h),
// connection budgets, X-Request-Id, an access log line per request (spdlog,
// level info) and graceful draining. Each listener and each connection runs
// on its own strand of the io_context, which may be run by any number of
// threads. A Unix-socket connection whose peer credentials cannot be read
// (SO_PEERCRED) is closed with an error in the log.
//
// Connection budgets (api/http/connection_budget.h), so that no client can
// lock the others out: each listener has its own (max_connections for TCP,
// max_unix_connections for Unix), and TCP connections from one remote
// address are capped together (max_connections_per_peer). A new connection
// that finds its budget or its address's cap full first reclaims room: the
// connection idle longest (kept alive after a response, no byte of a next
// request yet) within that budget is closed, as nginx and Envoy do; only when
// none is idle is the new one turned away with 503. Connections reading a
// request are never reclaimed; the header and body deadlines bound how long
// they can hold a place.
//
// Thread safety: Start, Stop, LocalEndpoint, BoundAddresses,
// ActiveConnections and WaitForActiveConnections may be called from any
// thread. Destroy the server only after the drain callback has run or the
// io_context has stopped for good; connections still open then keep running
// on their own.
class HttpServer {
 public:
  // Sets up every listener of `listeners`, in order; does not accept yet:
  // call Start. Blocks only in system calls (bind, listen, a non-blocking
  // connect probe) and, when a socket_group is named, in the group lookup
  // (getgrnam_r, which may ask NSS).
  //
  // TCP, "HOST:PORT": HOST is a numeric IPv4 address ("127.0.0.1",
  // "0.0.0.0"), a bracketed IPv6 address ("[::1]", "[::]") or "localhost"
  // (taken as 127.0.0.1, never looked up), and PORT is 0..65535 (0: the
  // kernel picks one; see LocalEndpoint and BoundAddresses).
  //
  // Unix, "unix:/ABSOLUTE/PATH": the parent directory must exist. A socket
  // file already at PATH that nobody listens on (a crashed daemon's leftover)
  // is replaced; a socket someone listens on, or any other kind of file, is
  // left alone and fails the call. The new socket gets socket_mode and
  // socket_group before it listens, so no client can connect while it is
  // more open than asked. The server removes the file when it stops (or is
  // destroyed), provided it is still the one it created (same inode).
  //
  // Inherited, inherited_fd >= 0: must be a listening SOCK_STREAM socket of
  // family AF_INET, AF_INET6 or AF_UNIX. It is made close-on-exec.
  //
  // Errors (all start-up errors the caller should treat as fatal; listeners
  // already set up are closed again, and their socket files removed):
  //   kInvalidArgument: no listener, no handler, max_connections or
  //     max_unix_connections < 1, max_connections_per_peer < 0, a
  //     malformed address (the message names it), socket_mode above 07777,
  //     an unknown socket_group ("unknown group 'x'"), an inherited fd that
  //     is not open or "inherited fd 3 is not a listening stream socket";
  //   kUnavailable with the system's reason: a socket cannot be opened,
  //     bound (e.g. "Address already in use") or put into listening state,
  //     "unix:/p: another process is listening there", "unix:/p: exists and
  //     is not a socket; not removing it", "unix:/p: directory /d does not
  //     exist", chmod or chown failing.
  //
  // `before_continue`, when set, vets requests that ask for 100 Continue (see
  // HeaderCheck); without it every such request gets the 100.
  static Result<std::unique_ptr<HttpServer>> Create(boost::asio::io_context& ioc,
                                                    std::vector<ListenerSpec> listeners,
                                                    ServerOptions options, Handler handler,
                                                    HeaderCheck before_continue = {});

  // The same with one listener, `listen` as ListenerSpec::address (TCP or
  // "unix:/PATH" with mode 0666 and the process's group).
  static Result<std::unique_ptr<HttpServer>> Create(boost::asio::io_context& ioc,
                                                    std::string_view listen, ServerOptions options,
                                                    Handler handler,
                                                    HeaderCheck before_continue = {});

  // Stops accepting (see Stop) without waiting for connections.
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Serves the connections accepted from now on on `contexts`, in turn,
  // instead of on the listeners' io_context (the one given to Create, which
  // may be one of them). Each context run by a thread of its own scales
  // where one context run by N threads does not (they contend for its queue;
  // docs/design.md "Site scale"); a connection stays on its context for its
  // lifetime. Empty: the listeners' context. Call before Start; every context
  // must outlive the connections on it.
  void SpreadConnections(std::vector<boost::asio::io_context*> contexts);

  // Begins accepting connections on the io_context. Returns at once; calls
  // after the first, or after Stop, do nothing.
  void Start();

  // The address the first TCP listener actually bound, with the port the
  // kernel chose when 0 was asked for; a default-constructed endpoint when
  // no listener is TCP.
  boost::asio::ip::tcp::endpoint LocalEndpoint() const;

  // Every listener in the order given to Create, as bound: "127.0.0.1:41234",
  // "[::1]:8080" or "unix:/run/bplace/bplace.sock". An inherited socket shows
  // its own address (getsockname); one without a path (unnamed or abstract)
  // shows its label, or "fd:N" when the label is empty.
  std::vector<std::string> BoundAddresses() const;

  // Stops accepting at once (new connect attempts are refused). Requests
  // already being read or handled run to the end and their responses carry
  // `Connection: close`; connections on which no byte of a request has
  // arrived (idle keep-alive ones, just accepted ones) are closed. When
  // drain_timeout has passed since the first call, every connection still
  // open is closed, whatever it is doing (HttpSession::ForceClose). Calls
  // `on_drained` on an io thread once no connection is left (at once, posted,
  // if there is none). Returns without waiting. Every callback passed by
  // repeated calls runs once.
  void Stop(std::function<void()> on_drained);

  // Connections being served now, not counting those turned away with 503.
  std::size_t ActiveConnections() const;

  // Blocks until ActiveConnections() is `n` or `timeout` has passed; returns
  // whether the count got there. For tests, which would otherwise poll. Must
  // not be called on a thread the io_context needs to get there (its only
  // thread, say).
  bool WaitForActiveConnections(std::size_t n, std::chrono::milliseconds timeout) const;

  // Connections kept alive and waiting for their next request: the ones a
  // full budget would reclaim. For tests, with the same rules as above.
  bool WaitForIdleConnections(std::size_t n, std::chrono::milliseconds timeout) const;

  // The counts of the listeners of `transport`. Lock-free; the four are read
  // one after the other, so they may be a connection apart.
  ConnectionCounts Connections(Transport transport) const;

  // The accept loops, the connection counts and the drain, shared with every
  // pending operation; defined in http_server.cc. (The listening sockets are
  // api/http/listening_socket.h, one connection is api/http/http_session.h.)
  struct State;

 private:
  explicit HttpServer(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
};

}  // namespace bplace::api
