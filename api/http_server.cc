#include "api/http_server.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "api/listening_socket.h"
#include "api/problem.h"
#include "api/request_id.h"

#ifndef BPLACE_VERSION
#define BPLACE_VERSION "dev"
#endif

namespace bplace::api {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using Stream = beast::basic_stream<Protocol>;

namespace {

constexpr const char* kServerName = "bplaced/" BPLACE_VERSION;
constexpr std::uint32_t kHeaderLimitBytes = 16 * 1024;
constexpr std::size_t kReadChunkBytes = 4096;
// After an error response the client may still be sending (a body we refused,
// pipelined requests). Closing with unread data makes the kernel send RST,
// which can destroy our response in flight, so we read and discard for a
// while first ("lingering close", as Apache and nginx do). Bounded in time and
// bytes so a client cannot keep us busy.
constexpr auto kLingerTimeout = std::chrono::seconds(1);
constexpr std::size_t kLingerMaxBytes = 4 * 1024 * 1024;
// A failed accept (EMFILE, ENOBUFS) would fail again at once; back off
// instead of spinning.
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(100);
constexpr auto kOverloadLogInterval = std::chrono::seconds(1);

class Session;

// The accept loop of one listener.
// Thread safety: used on the listener's strand only (and in the destructor).
struct AcceptLoop {
  // What is outstanding on the listener.
  enum class Phase {
    kIdle,            // nothing: before Start, or while a completion runs
    kAccepting,       // an accept
    kWaitingToRetry,  // the retry timer after a failed accept
    kEnded,           // nothing, for good: the server is stopping
  };

  explicit AcceptLoop(std::unique_ptr<ListeningSocket> listening)
      : socket(std::move(listening)), retry_timer(socket->acceptor().get_executor()) {}

  const std::unique_ptr<ListeningSocket> socket;
  net::steady_timer retry_timer;
  Phase phase = Phase::kIdle;
};

}  // namespace

struct HttpServer::State {
  State(net::io_context& io, ServerOptions server_options, Handler request_handler,
        std::vector<std::unique_ptr<AcceptLoop>> accept_loops)
      : ioc(io),
        options(std::move(server_options)),
        handler(std::move(request_handler)),
        loops(std::move(accept_loops)),
        open_accept_loops(loops.size()) {}

  // Takes one of max_connections places counted by `counter` (sessions or
  // rejecters); false when all are taken. Thread-safe: the listeners accept
  // concurrently, and a load-then-add would let each of them take the last
  // place.
  bool TryReserve(std::atomic<std::size_t>& counter) {
    const auto limit = static_cast<std::size_t>(options.max_connections);
    std::size_t n = counter.load();
    while (n < limit) {
      if (counter.compare_exchange_weak(n, n + 1)) return true;
    }
    return false;
  }

  // Runs the drain callbacks (posted to the io_context) once stopping and
  // nothing is left: no accept loop, no session, no rejected connection
  // still lingering. Every change of those is followed by a call, so the last
  // one sees the final state. Thread-safe.
  void MaybeDrained() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!stopping || sessions != 0 || rejecters != 0 || open_accept_loops != 0) return;
      callbacks.swap(drain_callbacks);
    }
    for (auto& callback : callbacks) net::post(ioc, std::move(callback));
  }

  // Logs that a connection was turned away, at most once per
  // kOverloadLogInterval over all listeners, with the number turned away
  // since the last line. Thread-safe.
  void NoteOverload(const char* what) {
    std::lock_guard<std::mutex> lock(overload_mutex);
    ++overload_unlogged;
    const Clock::time_point now = Clock::now();
    if (now - last_overload_log < kOverloadLogInterval) return;
    spdlog::warn(
        "http: at the limit of {} connections: turned away {} since the last report, "
        "the latest {}",
        options.max_connections, overload_unlogged, what);
    overload_unlogged = 0;
    last_overload_log = now;
  }

  net::io_context& ioc;
  const ServerOptions options;
  const Handler handler;
  const std::vector<std::unique_ptr<AcceptLoop>> loops;
  RequestIdGenerator request_ids;

  std::atomic<bool> started{false};
  std::atomic<bool> stopping{false};
  std::atomic<std::size_t> sessions{0};
  std::atomic<std::size_t> rejecters{0};
  std::atomic<std::size_t> open_accept_loops;  // not kEnded yet

  std::mutex overload_mutex;  // guards the two below
  Clock::time_point last_overload_log{};
  std::uint64_t overload_unlogged = 0;

  std::mutex mutex;  // guards the members below
  std::unordered_map<std::uint64_t, std::weak_ptr<Session>> live_sessions;
  std::uint64_t next_session_id = 0;
  std::vector<std::function<void()>> drain_callbacks;
};

namespace {

using State = HttpServer::State;

// Builds a response the server produces itself (errors, 503 on overload):
// the request, if any, is not trusted to be readable, so the connection
// closes after it.
Response ServerProblem(unsigned status, std::string_view detail) {
  return MakeProblem(status, "", detail, {}, 11, false);
}

// One connection: reads requests one at a time (pipelined ones wait in the
// buffer), hands each to the Handler and writes its response before reading
// the next. Phases and their deadlines:
//   kIdle     waiting for the first byte of a request: header_timeout from
//             accept for the first request, idle_timeout for later ones;
//   kHeader   until the end of the headers: header_timeout from the first
//             byte (from accept for the first request);
//   kBody     body_timeout (after a 100 Continue if the client asked);
//   kHandling handler_timeout until the Responder is called;
//   kWriting  write_timeout;
//   kClosing  lingering close, kLingerTimeout.
// Thread safety: everything runs on the connection's strand; NotifyStop and
// the Responder may be called from any thread and post to it.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Socket&& socket, std::shared_ptr<State> state, Peer peer, std::uint64_t id)
      : state_(std::move(state)),
        stream_(std::move(socket)),
        handler_timer_(stream_.get_executor()),
        remote_(std::move(peer.remote)),
        transport_(peer.transport),
        credentials_(peer.credentials),
        id_(id),
        accepted_(Clock::now()) {}

  ~Session() {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->live_sessions.erase(id_);
    }
    state_->sessions.fetch_sub(1);
    state_->MaybeDrained();
  }

  // Starts serving on the connection's strand.
  void Run() {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&Session::WaitForRequest, shared_from_this()));
  }

  // Tells the session the server is stopping. Thread-safe.
  void NotifyStop() {
    net::post(stream_.get_executor(), [self = shared_from_this()] { self->OnStop(); });
  }

 private:
  enum class Phase { kIdle, kHeader, kBody, kHandling, kWriting, kClosing };

  void OnStop() {
    // Requests being read or handled finish (their response says close);
    // a connection between requests has nothing in flight and goes now.
    if (phase_ == Phase::kIdle) {
      phase_ = Phase::kClosing;
      beast::error_code ec;
      stream_.socket().shutdown(net::socket_base::shutdown_both, ec);
      stream_.close();
    }
  }

  void WaitForRequest() {
    if (state_->stopping) {
      Close();
      return;
    }
    request_id_.clear();
    method_.clear();
    target_.clear();
    if (buffer_.size() > 0) {
      // A pipelined request is already here.
      request_start_ = Clock::now();
      header_deadline_ = request_start_ + state_->options.header_timeout;
      ReadHeader();
      return;
    }
    phase_ = Phase::kIdle;
    if (first_request_) {
      header_deadline_ = accepted_ + state_->options.header_timeout;
      stream_.expires_at(header_deadline_);
    } else {
      stream_.expires_after(state_->options.idle_timeout);
    }
    stream_.async_read_some(buffer_.prepare(kReadChunkBytes),
                            beast::bind_front_handler(&Session::OnFirstBytes, shared_from_this()));
  }

  void OnFirstBytes(beast::error_code ec, std::size_t bytes) {
    if (ec) {
      // Nothing of a request arrived: a timeout, the client closing or Stop
      // closing us all end the connection without a response.
      if (ec == beast::error::timeout) {
        spdlog::debug("http: {} closed after {} without a request", remote_,
                      first_request_ ? "header_timeout" : "idle_timeout");
      }
      return;
    }
    buffer_.commit(bytes);
    request_start_ = Clock::now();
    if (!first_request_) header_deadline_ = request_start_ + state_->options.header_timeout;
    ReadHeader();
  }

  void ReadHeader() {
    phase_ = Phase::kHeader;
    first_request_ = false;
    parser_.emplace();
    parser_->header_limit(kHeaderLimitBytes);
    parser_->body_limit(state_->options.body_limit_bytes);
    stream_.expires_at(header_deadline_);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, std::size_t) {
    if (ec) {
      OnReadError(ec, "headers");
      return;
    }
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
      continue_.emplace(http::status::continue_, 11);
      stream_.expires_after(state_->options.write_timeout);
      http::async_write(stream_, *continue_,
                        beast::bind_front_handler(&Session::OnContinueWritten, shared_from_this()));
      return;
    }
    ReadBody();
  }

  void OnContinueWritten(beast::error_code ec, std::size_t) {
    continue_.reset();
    if (ec) return;  // the client is gone or too slow to read 25 bytes
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(state_->options.body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnBody, shared_from_this()));
  }

  void OnBody(beast::error_code ec, std::size_t) {
    if (ec) {
      OnReadError(ec, "body");
      return;
    }
    CallHandler();
  }

  // Decides what a failed read deserves. A response is sent only when the
  // client is still there and made a mistake it should hear about.
  void OnReadError(beast::error_code ec, const char* part) {
    TakeRequestLine();
    if (ec == beast::error::timeout) {
      // The stream has closed the socket already; a 408 cannot be sent.
      spdlog::info("http: {} {} not received in time; connection closed (request id {})", remote_,
                   part, request_id_);
      return;
    }
    if (ec == http::error::body_limit) {
      SendServerError(413, "the request body exceeds " +
                               std::to_string(state_->options.body_limit_bytes) + " bytes");
      return;
    }
    if (ec == http::error::header_limit) {
      SendServerError(431,
                      "the request headers exceed " + std::to_string(kHeaderLimitBytes) + " bytes");
      return;
    }
    if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      SendServerError(400, "malformed HTTP request: " + ec.message());
      return;
    }
    // The client closed or reset the connection, or Stop closed it.
    spdlog::debug("http: {} connection ended while reading {}: {}", remote_, part, ec.message());
  }

  // Takes the request id, method and target from what the parser has seen,
  // for the log and the response; works on partial requests too.
  void TakeRequestLine() {
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
    if (request_id_.empty()) request_id_ = state_->request_ids.Next();
  }

  void SendServerError(unsigned status, std::string_view detail) {
    Send(ServerProblem(status, detail), true);
  }

  void CallHandler() {
    phase_ = Phase::kHandling;
    TakeRequestLine();
    RequestContext ctx{request_id_, remote_, Clock::now(), transport_, credentials_};
    Request req = parser_->release();
    parser_.reset();

    const std::uint64_t generation = ++generation_;
    responded_ = std::make_shared<std::atomic<bool>>(false);
    handler_timer_.expires_after(state_->options.handler_timeout);
    handler_timer_.async_wait(
        beast::bind_front_handler(&Session::OnHandlerTimeout, shared_from_this(), generation));

    Responder respond = [weak = weak_from_this(), executor = stream_.get_executor(),
                         once = responded_, generation, request_id = request_id_](Response res) {
      if (once->exchange(true)) {
        spdlog::warn("http: request {}: respond called more than once; response dropped",
                     request_id);
        return;
      }
      net::post(executor, [weak, generation, res = std::move(res)]() mutable {
        if (auto self = weak.lock()) self->OnResponse(generation, std::move(res));
      });
    };
    try {
      state_->handler(std::move(req), ctx, std::move(respond));
    } catch (const std::exception& e) {
      OnHandlerException(generation, e.what());
    } catch (...) {
      OnHandlerException(generation, "unknown exception");
    }
  }

  void OnHandlerException(std::uint64_t generation, const char* what) {
    if (responded_->exchange(true)) {
      spdlog::error("http: request {}: handler threw after responding: {}", request_id_, what);
      return;
    }
    spdlog::error("http: request {}: handler threw: {}", request_id_, what);
    // The request was read completely, so the connection is in a clean state
    // and may serve the next one.
    OnResponse(generation,
               MakeProblem(500, "",
                           "internal error; the server log has the details under request id " +
                               request_id_));
  }

  void OnHandlerTimeout(std::uint64_t generation, beast::error_code ec) {
    if (ec || generation != generation_ || phase_ != Phase::kHandling) return;
    spdlog::error("http: request {} ({} {}) got no response within {} s; closing the connection",
                  request_id_, method_, target_, state_->options.handler_timeout.count());
    // A late call of the Responder finds another phase and is dropped.
    Send(ServerProblem(500, "the request was not answered in time"), true);
  }

  void OnResponse(std::uint64_t generation, Response res) {
    if (generation != generation_ || phase_ != Phase::kHandling) return;
    handler_timer_.cancel();
    Send(std::move(res), false);
  }

  // Adds what every response carries and decides whether the connection
  // stays open. May throw (prepare_payload refuses a body on a 204).
  void Finalize(Response& res, bool force_close) {
    const bool keep_alive = !force_close && res.keep_alive() && keep_alive_ && !state_->stopping;
    res.version(version_);
    res.keep_alive(keep_alive);
    res.set(http::field::server, kServerName);
    res.set("X-Request-Id", request_id_);
    res.prepare_payload();
    close_after_write_ = !keep_alive;
  }

  void Send(Response res, bool force_close) {
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
    stream_.expires_after(state_->options.write_timeout);
    http::async_write(stream_, *response_,
                      beast::bind_front_handler(&Session::OnWritten, shared_from_this()));
  }

  void OnWritten(beast::error_code ec, std::size_t) {
    const double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - request_start_).count();
    spdlog::info("{} \"{} {}\" {} {} {:.1f}ms id={}{}", remote_, method_.empty() ? "-" : method_,
                 target_.empty() ? "-" : target_, response_->result_int(), response_->body().size(),
                 ms, request_id_, ec ? " write failed: " + ec.message() : std::string());
    response_.reset();
    if (ec) return;
    if (close_after_write_) {
      Close();
      return;
    }
    WaitForRequest();
  }

  // Ends the connection: FIN to the client, then discard what it still
  // sends until it closes too (see kLingerTimeout).
  void Close() {
    phase_ = Phase::kClosing;
    beast::error_code ec;
    stream_.socket().shutdown(net::socket_base::shutdown_send, ec);
    if (ec) {
      stream_.close();
      return;
    }
    buffer_.consume(buffer_.size());
    stream_.expires_after(kLingerTimeout);
    Linger({}, 0);
  }

  void Linger(beast::error_code ec, std::size_t bytes) {
    lingered_bytes_ += bytes;
    if (ec || lingered_bytes_ > kLingerMaxBytes) {
      stream_.close();
      return;
    }
    stream_.async_read_some(buffer_.prepare(kReadChunkBytes),
                            beast::bind_front_handler(&Session::Linger, shared_from_this()));
  }

  const std::shared_ptr<State> state_;
  Stream stream_;
  net::steady_timer handler_timer_;
  const std::string remote_;
  const Transport transport_;
  const std::optional<PeerCredentials> credentials_;
  const std::uint64_t id_;
  const Clock::time_point accepted_;

  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  std::optional<Response> response_;
  Phase phase_ = Phase::kIdle;
  bool first_request_ = true;
  Clock::time_point header_deadline_;
  std::uint64_t generation_ = 0;
  std::shared_ptr<std::atomic<bool>> responded_;
  bool close_after_write_ = false;
  std::size_t lingered_bytes_ = 0;

  // The request being served.
  Clock::time_point request_start_;
  std::string request_id_;
  std::string method_;
  std::string target_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
};

// A connection over max_connections: gets 503 with Retry-After at once (a
// client should get an answer, not a hang) and is closed. Reads nothing of
// the request except to drain it before closing.
// Thread safety: runs on the connection's strand only.
class Rejecter : public std::enable_shared_from_this<Rejecter> {
 public:
  Rejecter(Socket&& socket, std::shared_ptr<State> state)
      : state_(std::move(state)), stream_(std::move(socket)) {}

  ~Rejecter() {
    state_->rejecters.fetch_sub(1);
    state_->MaybeDrained();
  }

  void Run() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Write(); });
  }

 private:
  void Write() {
    response_ = ServerProblem(503, "the server is at its connection limit; retry shortly");
    response_.set(http::field::retry_after, "1");
    response_.set(http::field::server, kServerName);
    response_.set("X-Request-Id", state_->request_ids.Next());
    response_.prepare_payload();
    stream_.expires_after(state_->options.write_timeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return;
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(net::socket_base::shutdown_send, ignored);
                        self->stream_.expires_after(kLingerTimeout);
                        self->Linger({}, 0);
                      });
  }

  void Linger(beast::error_code ec, std::size_t bytes) {
    lingered_bytes_ += bytes;
    if (ec || lingered_bytes_ > kLingerMaxBytes) {
      stream_.close();
      return;
    }
    stream_.async_read_some(buffer_.prepare(kReadChunkBytes),
                            beast::bind_front_handler(&Rejecter::Linger, shared_from_this()));
  }

  const std::shared_ptr<State> state_;
  Stream stream_;
  beast::flat_buffer buffer_;
  Response response_;
  std::size_t lingered_bytes_ = 0;
};

void DoAccept(const std::shared_ptr<State>& state, AcceptLoop& loop);

// On the listener's strand: its accept loop is over for good.
void EndAccepting(const std::shared_ptr<State>& state, AcceptLoop& loop) {
  if (loop.phase == AcceptLoop::Phase::kEnded) return;
  loop.phase = AcceptLoop::Phase::kEnded;
  state->open_accept_loops.fetch_sub(1);
  state->MaybeDrained();
}

// Serves an accepted connection for which a place has been reserved in
// State::sessions.
void StartSession(const std::shared_ptr<State>& state, const ListeningSocket& listener,
                  Socket socket) {
  std::optional<Peer> peer = listener.IdentifyPeer(socket);
  if (!peer) {
    beast::error_code ignored;
    socket.close(ignored);
    state->sessions.fetch_sub(1);
    state->MaybeDrained();
    return;
  }
  std::uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    id = state->next_session_id++;
  }
  auto session = std::make_shared<Session>(std::move(socket), state, std::move(*peer), id);
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->live_sessions.emplace(id, session);
  }
  session->Run();
}

// Serves a new connection, or turns it away when max_connections are being
// served already.
void Admit(const std::shared_ptr<State>& state, const ListeningSocket& listener, Socket socket) {
  if (state->TryReserve(state->sessions)) {
    StartSession(state, listener, std::move(socket));
  } else if (state->TryReserve(state->rejecters)) {
    state->NoteOverload("with 503");
    std::make_shared<Rejecter>(std::move(socket), state)->Run();
  } else {
    // Even the 503s are too many: a flood. Closing costs the least.
    state->NoteOverload("closed without a response");
    beast::error_code ignored;
    socket.close(ignored);
  }
}

// A failed accept (EMFILE, ENOBUFS) would fail again at once: waits
// kAcceptRetryDelay before the next, which also limits the log to one line
// per kAcceptRetryDelay and listener.
void RetryAcceptLater(const std::shared_ptr<State>& state, AcceptLoop& loop) {
  loop.phase = AcceptLoop::Phase::kWaitingToRetry;
  loop.retry_timer.expires_after(kAcceptRetryDelay);
  loop.retry_timer.async_wait([state, &loop](beast::error_code) {
    loop.phase = AcceptLoop::Phase::kIdle;
    if (state->stopping) {
      EndAccepting(state, loop);
      return;
    }
    DoAccept(state, loop);
  });
}

void OnAccept(const std::shared_ptr<State>& state, AcceptLoop& loop, beast::error_code ec,
              Socket socket) {
  loop.phase = AcceptLoop::Phase::kIdle;
  if (state->stopping || ec == net::error::operation_aborted) {
    // A connection accepted in the race with Stop is dropped: nothing of it
    // has been read, so no request is lost that the client thinks was taken.
    EndAccepting(state, loop);
    return;
  }
  if (ec) {
    spdlog::error("http: accept on {} failed: {}", loop.socket->address(), ec.message());
    RetryAcceptLater(state, loop);
    return;
  }
  Admit(state, *loop.socket, std::move(socket));
  DoAccept(state, loop);
}

// On the listener's strand. `loop` is owned by `state`, which every pending
// operation keeps alive.
void DoAccept(const std::shared_ptr<State>& state, AcceptLoop& loop) {
  loop.phase = AcceptLoop::Phase::kAccepting;
  loop.socket->acceptor().async_accept(net::make_strand(state->ioc),
                                       [state, &loop](beast::error_code ec, Socket socket) {
                                         OnAccept(state, loop, ec, std::move(socket));
                                       });
}

// On the listener's strand.
void CloseAcceptor(const std::shared_ptr<State>& state, AcceptLoop& loop) {
  // Not listening any more: a client connecting now gets ECONNREFUSED either
  // way, and a successor daemon finds the path free at once.
  loop.socket->Close();
  loop.retry_timer.cancel();
  // A pending accept or retry wait ends the loop when it completes; without
  // one the loop is over now.
  if (loop.phase == AcceptLoop::Phase::kIdle) EndAccepting(state, loop);
}

void CloseAcceptors(const std::shared_ptr<State>& state) {
  for (const auto& loop : state->loops) {
    net::post(loop->socket->acceptor().get_executor(),
              [state, &each = *loop] { CloseAcceptor(state, each); });
  }
}

}  // namespace

HttpServer::HttpServer(std::shared_ptr<State> state) : state_(std::move(state)) {}

HttpServer::~HttpServer() {
  if (!state_->stopping.exchange(true)) CloseAcceptors(state_);
}

Result<std::unique_ptr<HttpServer>> HttpServer::Create(net::io_context& ioc,
                                                       std::vector<ListenerSpec> listeners,
                                                       ServerOptions options, Handler handler) {
  if (listeners.empty()) return Fail(ErrorCode::kInvalidArgument, "HTTP server: no listener");
  if (!handler) return Fail(ErrorCode::kInvalidArgument, "HTTP server: no handler");
  if (options.max_connections < 1) {
    return Fail(ErrorCode::kInvalidArgument, "HTTP server: max_connections must be at least 1");
  }
  std::vector<std::unique_ptr<AcceptLoop>> loops;
  for (const ListenerSpec& spec : listeners) {
    auto listener = ListeningSocket::Open(ioc, spec);
    if (!listener) {
      // Inherited fds stay the caller's, as promised; the others close with
      // `loops`, and socket files created so far go with them.
      for (const auto& done : loops) done->socket->ReleaseIfInherited();
      return tl::unexpected(listener.error());
    }
    loops.push_back(std::make_unique<AcceptLoop>(std::move(*listener)));
  }
  auto state =
      std::make_shared<State>(ioc, std::move(options), std::move(handler), std::move(loops));
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(state)));
}

Result<std::unique_ptr<HttpServer>> HttpServer::Create(net::io_context& ioc,
                                                       std::string_view listen,
                                                       ServerOptions options, Handler handler) {
  ListenerSpec spec;
  spec.address = std::string(listen);
  std::vector<ListenerSpec> listeners;
  listeners.push_back(std::move(spec));
  return Create(ioc, std::move(listeners), std::move(options), std::move(handler));
}

void HttpServer::Start() {
  if (state_->stopping || state_->started.exchange(true)) return;
  for (const auto& loop : state_->loops) {
    net::post(loop->socket->acceptor().get_executor(), [state = state_, &each = *loop] {
      if (state->stopping) return;  // CloseAcceptor ends the loop
      DoAccept(state, each);
    });
  }
}

tcp::endpoint HttpServer::LocalEndpoint() const {
  for (const auto& loop : state_->loops) {
    if (loop->socket->tcp_endpoint()) return *loop->socket->tcp_endpoint();
  }
  return {};
}

std::vector<std::string> HttpServer::BoundAddresses() const {
  std::vector<std::string> addresses;
  for (const auto& loop : state_->loops) addresses.push_back(loop->socket->address());
  return addresses;
}

void HttpServer::Stop(std::function<void()> on_drained) {
  const bool first = !state_->stopping.exchange(true);
  std::vector<std::weak_ptr<Session>> sessions;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (on_drained) state_->drain_callbacks.push_back(std::move(on_drained));
    for (const auto& [id, session] : state_->live_sessions) sessions.push_back(session);
  }
  if (first) CloseAcceptors(state_);
  // Outside the mutex: the last reference to a session may be dropped here,
  // and its destructor takes the mutex.
  for (const auto& weak : sessions) {
    if (auto session = weak.lock()) session->NotifyStop();
  }
  state_->MaybeDrained();
}

std::size_t HttpServer::ActiveConnections() const { return state_->sessions.load(); }

}  // namespace bplace::api
