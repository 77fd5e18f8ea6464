#include "api/http/http_session.h"

#include <exception>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "api/http/problem.h"
#include "api/http/request_framing.h"
#include "common/version.h"

namespace bplace::api {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using SteadyClock = std::chrono::steady_clock;

const std::string kServerName = std::string("bplaced/") + kVersion;

namespace {

constexpr std::uint32_t kHeaderLimitBytes = 16 * 1024;
constexpr std::size_t kReadChunkBytes = 4096;
// The bounds of a lingering close (see LingeringClose): long enough for a
// client to see the response and stop sending, short enough that one cannot
// keep us busy.
constexpr auto kLingerTimeout = std::chrono::seconds(1);
constexpr std::size_t kLingerMaxBytes = 4 * 1024 * 1024;

// The read loop of a lingering close, as a completion handler that passes
// itself on to the next read.
struct Linger {
  void operator()(beast::error_code ec, std::size_t bytes) {
    lingered_bytes += bytes;
    if (ec || lingered_bytes > kLingerMaxBytes) {
      stream->close();
      return;
    }
    stream->async_read_some(buffer->prepare(kReadChunkBytes), std::move(*this));
  }

  std::shared_ptr<void> owner;
  Stream* stream;
  beast::flat_buffer* buffer;
  std::size_t lingered_bytes = 0;
};

}  // namespace

Response ServerProblem(unsigned status, std::string_view detail) {
  return MakeProblem(status, "", detail, {}, 11, false);
}

void LingeringClose(std::shared_ptr<void> owner, Stream& stream, beast::flat_buffer& buffer) {
  beast::error_code ec;
  stream.socket().shutdown(net::socket_base::shutdown_send, ec);
  if (ec) {
    stream.close();
    return;
  }
  buffer.consume(buffer.size());
  stream.expires_after(kLingerTimeout);
  Linger{std::move(owner), &stream, &buffer}({}, 0);
}

HttpSession::HttpSession(Socket&& socket, std::shared_ptr<SessionShared> shared, Peer peer,
                         SessionEvents events)
    : shared_(std::move(shared)),
      events_(std::move(events)),
      stream_(std::move(socket)),
      handler_timer_(stream_.get_executor()),
      remote_(std::move(peer.remote)),
      transport_(peer.transport),
      credentials_(peer.credentials),
      accepted_(SteadyClock::now()) {}

HttpSession::~HttpSession() {
  if (events_.on_closed) events_.on_closed();
}

void HttpSession::Run() {
  net::dispatch(stream_.get_executor(),
                beast::bind_front_handler(&HttpSession::WaitForRequest, shared_from_this()));
}

void HttpSession::NotifyStop() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->OnStop(); });
}

void HttpSession::Reclaim() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->phase_ != Phase::kIdle) return;  // on_idle(false) closes it
    spdlog::debug("http: {} idle connection closed to make room for a new one", self->remote_);
    self->CloseIdle();
  });
}

void HttpSession::ForceClose() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    static constexpr const char* kPhaseNames[] = {"idle",     "reading headers", "reading the body",
                                                  "handling", "writing",         "closing"};
    spdlog::info(
        "http: {} closed at the drain deadline while {}{}", self->remote_,
        kPhaseNames[static_cast<int>(self->phase_)],
        self->request_id_.empty() ? std::string() : " (request id " + self->request_id_ + ")");
    self->phase_ = Phase::kClosing;
    self->handler_timer_.cancel();
    beast::error_code ec;
    self->stream_.socket().shutdown(net::socket_base::shutdown_both, ec);
    self->stream_.close();
  });
}

void HttpSession::OnStop() {
  // Requests being read or handled finish (their response says close);
  // a connection between requests has nothing in flight and goes now.
  if (phase_ == Phase::kIdle) CloseIdle();
}

// Closes a connection on which no byte of a request has come: there is
// nothing to answer and nothing unread, so no lingering close is needed. The
// pending read completes with an error and ends the session.
void HttpSession::CloseIdle() {
  phase_ = Phase::kClosing;
  beast::error_code ec;
  stream_.socket().shutdown(net::socket_base::shutdown_both, ec);
  stream_.close();
}

void HttpSession::WaitForRequest() {
  if (shared_->stopping) {
    Close();
    return;
  }
  request_id_.clear();
  method_.clear();
  target_.clear();
  if (buffer_.size() > 0) {
    // A pipelined request is already here.
    request_start_ = SteadyClock::now();
    header_deadline_ = request_start_ + shared_->options.header_timeout;
    ReadHeader();
    return;
  }
  phase_ = Phase::kIdle;
  if (first_request_) {
    header_deadline_ = accepted_ + shared_->options.header_timeout;
    stream_.expires_at(header_deadline_);
  } else {
    // Kept alive after a response: from now on a full budget may reclaim it.
    if (events_.on_idle) events_.on_idle(true);
    stream_.expires_after(shared_->options.idle_timeout);
  }
  stream_.async_read_some(
      buffer_.prepare(kReadChunkBytes),
      beast::bind_front_handler(&HttpSession::OnFirstBytes, shared_from_this()));
}

void HttpSession::OnFirstBytes(beast::error_code ec, std::size_t bytes) {
  if (ec) {
    // Nothing of a request arrived: a timeout, the client closing or Stop
    // closing us all end the connection without a response.
    if (ec == beast::error::timeout) {
      spdlog::debug("http: {} closed after {} without a request", remote_,
                    first_request_ ? "header_timeout" : "idle_timeout");
    }
    return;
  }
  if (!first_request_ && events_.on_idle && !events_.on_idle(false)) {
    // Reclaimed just as the client began a request; it sees the connection
    // close unanswered, as in any keep-alive race (RFC 9112 §9.3.1).
    CloseIdle();
    return;
  }
  buffer_.commit(bytes);
  request_start_ = SteadyClock::now();
  if (!first_request_) header_deadline_ = request_start_ + shared_->options.header_timeout;
  ReadHeader();
}

void HttpSession::ReadHeader() {
  phase_ = Phase::kHeader;
  first_request_ = false;
  parser_.emplace();
  parser_->header_limit(kHeaderLimitBytes);
  parser_->body_limit(shared_->options.body_limit_bytes);
  stream_.expires_at(header_deadline_);
  http::async_read_header(stream_, buffer_, *parser_,
                          beast::bind_front_handler(&HttpSession::OnHeader, shared_from_this()));
}

void HttpSession::OnHeader(beast::error_code ec, std::size_t) {
  if (ec) {
    OnReadError(ec, "headers");
    return;
  }
  if (!CheckHeader()) return;
  if (parser_->is_done()) {
    CallHandler();
    return;
  }
  phase_ = Phase::kBody;
  const Request& req = parser_->get();
  if (req.version() >= 11 && beast::iequals(req[http::field::expect], "100-continue")) {
    // curl sends this for large bodies and waits (1 s) for the go-ahead.
    // A body over the limit never gets here: its Content-Length already
    // failed the header read with 413.
    if (shared_->before_continue) {
      TakeRequestLine();
      if (std::optional<Response> refusal = shared_->before_continue(req, MakeContext())) {
        // The body stays unread: the connection cannot serve another
        // request, and the lingering close discards what still comes.
        Send(std::move(*refusal), true);
        return;
      }
    }
    continue_.emplace(http::status::continue_, 11);
    stream_.expires_after(shared_->options.write_timeout);
    http::async_write(
        stream_, *continue_,
        beast::bind_front_handler(&HttpSession::OnContinueWritten, shared_from_this()));
    return;
  }
  ReadBody();
}

void HttpSession::OnContinueWritten(beast::error_code ec, std::size_t) {
  continue_.reset();
  if (ec) return;  // the client is gone or too slow to read 25 bytes
  ReadBody();
}

void HttpSession::ReadBody() {
  stream_.expires_after(shared_->options.body_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&HttpSession::OnBody, shared_from_this()));
}

void HttpSession::OnBody(beast::error_code ec, std::size_t) {
  if (ec) {
    OnReadError(ec, "body");
    return;
  }
  CallHandler();
}

// Applies CheckFraming to the headers just read; on a violation sends its
// 400 or 415 and returns false. The request is not handed on: its framing
// is in doubt, so the connection closes without reading further.
bool HttpSession::CheckHeader() {
  std::optional<FramingError> error = CheckFraming(parser_->get());
  if (!error) return true;
  TakeRequestLine();
  spdlog::info("http: {} request {} refused: {}", remote_, request_id_, error->detail);
  Send(ServerProblem(error->status, error->detail), true);
  return false;
}

RequestContext HttpSession::MakeContext() const {
  return RequestContext{request_id_, remote_, SteadyClock::now(), transport_, credentials_};
}

// Decides what a failed read deserves. A response is sent only when the
// client is still there and made a mistake it should hear about.
void HttpSession::OnReadError(beast::error_code ec, const char* part) {
  TakeRequestLine();
  if (ec == beast::error::timeout) {
    // The stream has closed the socket already; a 408 cannot be sent.
    spdlog::info("http: {} {} not received in time; connection closed (request id {})", remote_,
                 part, request_id_);
    return;
  }
  if (ec == http::error::body_limit) {
    Send(ServerProblem(413, "the request body exceeds " +
                                std::to_string(shared_->options.body_limit_bytes) + " bytes"),
         true);
    return;
  }
  if (ec == http::error::header_limit) {
    Send(ServerProblem(
             431, "the request headers exceed " + std::to_string(kHeaderLimitBytes) + " bytes"),
         true);
    return;
  }
  if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message) {
    Send(ServerProblem(400, "malformed HTTP request: " + ec.message()), true);
    return;
  }
  // The client closed or reset the connection, or Stop closed it.
  spdlog::debug("http: {} connection ended while reading {}: {}", remote_, part, ec.message());
}

// Takes the request id, method and target from what the parser has seen,
// for the log and the response; works on partial requests too.
void HttpSession::TakeRequestLine() {
  if (!request_id_.empty()) return;
  if (parser_) {
    const Request& req = parser_->get();
    const beast::string_view id_field = req["X-Request-Id"];
    const std::string_view client_id(id_field.data(), id_field.size());
    if (IsValidRequestId(client_id)) request_id_ = std::string(client_id);
    method_ = std::string(req.method_string());
    target_ = std::string(req.target());
    version_ = req.version() == 10 ? 10 : 11;
    keep_alive_ = req.keep_alive();
  }
  if (request_id_.empty()) request_id_ = shared_->request_ids.Next();
}

void HttpSession::CallHandler() {
  phase_ = Phase::kHandling;
  TakeRequestLine();
  const RequestContext ctx = MakeContext();
  Request req = parser_->release();
  parser_.reset();

  const std::uint64_t generation = ++generation_;
  responded_ = std::make_shared<std::atomic<bool>>(false);
  handler_timer_.expires_after(shared_->options.handler_timeout);
  handler_timer_.async_wait(
      beast::bind_front_handler(&HttpSession::OnHandlerTimeout, shared_from_this(), generation));
  try {
    shared_->handler(std::move(req), ctx, MakeResponder(generation));
  } catch (const std::exception& e) {
    OnHandlerException(generation, e.what());
  } catch (...) {
    OnHandlerException(generation, "unknown exception");
  }
}

// The Responder of request `generation`. It holds the session only weakly:
// a handler that keeps its Responder must not keep a closed connection.
Responder HttpSession::MakeResponder(std::uint64_t generation) {
  return [weak = weak_from_this(), executor = stream_.get_executor(), once = responded_, generation,
          request_id = request_id_](Response res) {
    if (once->exchange(true)) {
      spdlog::warn("http: request {}: respond called more than once; response dropped", request_id);
      return;
    }
    net::post(executor, [weak, generation, res = std::move(res)]() mutable {
      if (auto self = weak.lock()) self->OnResponse(generation, std::move(res));
    });
  };
}

void HttpSession::OnHandlerException(std::uint64_t generation, const char* what) {
  if (responded_->exchange(true)) {
    spdlog::error("http: request {}: handler threw after responding: {}", request_id_, what);
    return;
  }
  spdlog::error("http: request {}: handler threw: {}", request_id_, what);
  // The request was read completely, so the connection is in a clean state
  // and may serve the next one.
  OnResponse(generation,
             MakeProblem(
                 500, "",
                 "internal error; the server log has the details under request id " + request_id_));
}

void HttpSession::OnHandlerTimeout(std::uint64_t generation, beast::error_code ec) {
  if (ec || generation != generation_ || phase_ != Phase::kHandling) return;
  spdlog::error("http: request {} ({} {}) got no response within {} s; closing the connection",
                request_id_, method_, target_, shared_->options.handler_timeout.count());
  // A late call of the Responder finds another phase and is dropped.
  Send(ServerProblem(500, "the request was not answered in time"), true);
}

void HttpSession::OnResponse(std::uint64_t generation, Response res) {
  if (generation != generation_ || phase_ != Phase::kHandling) return;
  handler_timer_.cancel();
  Send(std::move(res), false);
}

// Adds what every response carries and decides whether the connection
// stays open. May throw (prepare_payload refuses a body on a 204).
void HttpSession::Finalize(Response& res, bool force_close) {
  const bool keep_alive = !force_close && res.keep_alive() && keep_alive_ && !shared_->stopping;
  res.version(version_);
  res.keep_alive(keep_alive);
  res.set(http::field::server, kServerName);
  res.set("X-Request-Id", request_id_);
  res.prepare_payload();
  close_after_write_ = !keep_alive;
}

void HttpSession::Send(Response res, bool force_close) {
  try {
    Finalize(res, force_close);
  } catch (const std::exception& e) {
    spdlog::error("http: request {}: unusable response: {}", request_id_, e.what());
    res = ServerProblem(
        500, "internal error; the server log has the details under request id " + request_id_);
    Finalize(res, true);
  }
  phase_ = Phase::kWriting;
  response_.emplace(std::move(res));
  stream_.expires_after(shared_->options.write_timeout);
  http::async_write(stream_, *response_,
                    beast::bind_front_handler(&HttpSession::OnWritten, shared_from_this()));
}

void HttpSession::OnWritten(beast::error_code ec, std::size_t) {
  LogAccess(ec);
  response_.reset();
  if (ec) return;
  if (close_after_write_) {
    Close();
    return;
  }
  WaitForRequest();
}

// The access log line of the response just written, if its budget allows.
void HttpSession::LogAccess(beast::error_code ec) {
  const SteadyClock::time_point now = SteadyClock::now();
  const bool error = response_->result_int() >= 400;
  const AccessLogSampler::Verdict verdict =
      (error ? shared_->error_log : shared_->access_log).AdmitLogLine(now);
  if (!verdict.log) return;
  if (verdict.skipped > 0) {
    spdlog::info(
        "http: access log: {} {}responses not logged (at most {} lines a second: [log] "
        "access_log_per_s)",
        verdict.skipped, error ? "error " : "", shared_->options.access_log_per_second);
  }
  const double ms = std::chrono::duration<double, std::milli>(now - request_start_).count();
  spdlog::info("{} \"{} {}\" {} {} {:.1f}ms id={}{}", remote_, method_.empty() ? "-" : method_,
               target_.empty() ? "-" : target_, response_->result_int(), response_->body().size(),
               ms, request_id_, ec ? " write failed: " + ec.message() : std::string());
}

void HttpSession::Close() {
  phase_ = Phase::kClosing;
  LingeringClose(shared_from_this(), stream_, buffer_);
}

}  // namespace bplace::api
