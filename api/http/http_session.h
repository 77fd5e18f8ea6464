#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "api/http/access_log.h"
#include "api/http/listening_socket.h"
#include "api/http/message.h"
#include "api/http/request_id.h"
#include "api/http/server_options.h"

namespace bplace::api {

using Stream = boost::beast::basic_stream<Protocol>;

// The Server header of every response: "bplaced/VERSION".
extern const std::string kServerName;

// What the sessions of one server share with it.
// Thread safety: constant after construction, except `stopping` (atomic) and
// `request_ids` (thread-safe).
struct SessionShared {
  SessionShared(ServerOptions server_options, Handler request_handler,
                HeaderCheck continue_check = {})
      : options(std::move(server_options)),
        handler(std::move(request_handler)),
        before_continue(std::move(continue_check)),
        access_log(options.access_log_per_second),
        error_log(options.access_log_per_second) {}

  const ServerOptions options;
  const Handler handler;
  const HeaderCheck before_continue;  // may be empty
  RequestIdGenerator request_ids;
  // Which responses get an access log line: those of 4xx/5xx from a budget
  // of their own, so that a flood of successes never hides the errors.
  AccessLogSampler access_log;  // status < 400
  AccessLogSampler error_log;   // status >= 400
  // Set by the server when it stops; never cleared. A session reads it when
  // it decides whether to keep a connection open.
  std::atomic<bool> stopping{false};
};

// Builds a response the server produces itself (an error, the 503 on
// overload) as application/problem+json: the request, if any, is not trusted
// to be readable, so the response asks for the connection to close.
Response ServerProblem(unsigned status, std::string_view detail);

// Ends a connection after its last response with a lingering close: sends
// FIN, then reads and discards what the client still sends (a body we
// refused, pipelined requests) until it closes too, a second passes or 4 MiB
// have come, and closes the socket. Closing with unread data would make the
// kernel send RST, which can destroy the response in flight; the bounds keep
// a client from holding us. `owner`, the object that holds `stream` and
// `buffer`, is kept alive until the socket is closed. Call it on the
// stream's strand; returns at once.
void LingeringClose(std::shared_ptr<void> owner, Stream& stream, boost::beast::flat_buffer& buffer);

// What a session tells the server that keeps the connection budgets
// (api/http/http_server.cc). Both are called on the session's strand.
struct SessionEvents {
  // Called with true when the connection starts waiting for a later request
  // after a response (it is idle: reclaimable), with false when the first
  // byte of that request has come. Returns false when the server has
  // reclaimed the connection meanwhile: the session must close it.
  std::function<bool(bool idle)> on_idle;
  // Runs once, in the destructor: the connection is closed or about to be,
  // and no Responder can reach the session any more.
  std::function<void()> on_closed;
};

// One HTTP/1.1 connection: reads requests one at a time (pipelined ones wait
// in the buffer), hands each to the Handler and writes its response before
// reading the next, until the client or a deadline ends it or a response
// closes it. Phases and their deadlines (ServerOptions):
//   kIdle     waiting for the first byte of a request: header_timeout from
//             accept for the first request, idle_timeout for later ones
//             (while waiting for a later one the server may reclaim the
//             connection for a new one: SessionEvents, Reclaim);
//   kHeader   until the end of the headers: header_timeout from the first
//             byte (from accept for the first request);
//   kBody     body_timeout (after a 100 Continue if the client asked);
//   kHandling handler_timeout until the Responder is called;
//   kWriting  write_timeout;
//   kClosing  the lingering close (see LingeringClose).
// A body over body_limit_bytes gets 413, headers over 16 KiB get 431, a
// malformed request 400, headers that break CheckFraming (request_framing.h)
// 400 or 415, a request the server's HeaderCheck refuses before its
// 100 Continue that refusal, and the connection closes after each of them. An
// expired read deadline closes the connection without a response. Every
// response written is logged (spdlog, info) as one access log line, up to
// access_log_per_second (SessionShared::access_log).
//
// Thread safety: everything runs on the strand of the socket's executor;
// NotifyStop and the Responders it hands out may be called from any thread
// and post to it.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // Takes over `socket`, accepted just now (the first header deadline runs
  // from here), whose executor must be a strand; `peer` says who is at the
  // other end; `events` (either may be empty) keep the server informed.
  // Call Run next.
  HttpSession(Socket&& socket, std::shared_ptr<SessionShared> shared, Peer peer,
              SessionEvents events);

  ~HttpSession();

  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  // Starts serving on the connection's strand. Returns at once.
  void Run();

  // Tells the session the server is stopping: a connection between requests
  // closes at once; a request being read or handled runs to the end and its
  // response says `Connection: close`. Thread-safe; returns at once.
  void NotifyStop();

  // Closes the connection if it is still idle between requests; the server
  // calls it for a connection whose on_idle(true) it has answered by
  // reclaiming it. Thread-safe; returns at once.
  void Reclaim();

  // Closes the connection now, in whatever phase it is: the server calls it
  // when its drain deadline passes (ServerOptions::drain_timeout). A
  // request being read is dropped unanswered; a handler still running
  // finds its Responder dead (its response is dropped). Thread-safe;
  // returns at once.
  void ForceClose();

 private:
  enum class Phase { kIdle, kHeader, kBody, kHandling, kWriting, kClosing };

  void OnStop();
  void CloseIdle();
  bool CheckHeader();
  RequestContext MakeContext() const;
  void WaitForRequest();
  void OnFirstBytes(boost::beast::error_code ec, std::size_t bytes);
  void ReadHeader();
  void OnHeader(boost::beast::error_code ec, std::size_t);
  void OnContinueWritten(boost::beast::error_code ec, std::size_t);
  void ReadBody();
  void OnBody(boost::beast::error_code ec, std::size_t);
  void OnReadError(boost::beast::error_code ec, const char* part);
  void TakeRequestLine();
  void CallHandler();
  Responder MakeResponder(std::uint64_t generation);
  void OnHandlerException(std::uint64_t generation, const char* what);
  void OnHandlerTimeout(std::uint64_t generation, boost::beast::error_code ec);
  void OnResponse(std::uint64_t generation, Response res);
  void Finalize(Response& res, bool force_close);
  void Send(Response res, bool force_close);
  void OnWritten(boost::beast::error_code ec, std::size_t);
  void LogAccess(boost::beast::error_code ec);
  void Close();

  const std::shared_ptr<SessionShared> shared_;
  const SessionEvents events_;
  Stream stream_;
  boost::asio::steady_timer handler_timer_;
  const std::string remote_;
  const Transport transport_;
  const std::optional<PeerCredentials> credentials_;
  const std::chrono::steady_clock::time_point accepted_;

  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::optional<boost::beast::http::response<boost::beast::http::empty_body>> continue_;
  std::optional<Response> response_;
  Phase phase_ = Phase::kIdle;
  bool first_request_ = true;
  std::chrono::steady_clock::time_point header_deadline_;
  // Counts the requests handed to the handler, so that a late Responder or
  // handler timer of an earlier one finds itself outdated.
  std::uint64_t generation_ = 0;
  std::shared_ptr<std::atomic<bool>> responded_;
  bool close_after_write_ = false;

  // The request being served.
  std::chrono::steady_clock::time_point request_start_;
  std::string request_id_;
  std::string method_;
  std::string target_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
};

}  // namespace bplace::api
