#include "api/http_server.h"

#include <atomic>
#include <charconv>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "api/problem.h"

#ifndef BPLACE_VERSION
#define BPLACE_VERSION "dev"
#endif

namespace bplace::api {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kServerName = "bplaced/" BPLACE_VERSION;
constexpr std::uint32_t kHeaderLimitBytes = 16 * 1024;
constexpr std::size_t kMaxRequestIdLength = 128;
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

std::string EndpointText(const tcp::endpoint& endpoint) {
  const net::ip::address address = endpoint.address();
  const std::string port = std::to_string(endpoint.port());
  if (address.is_v6()) return "[" + address.to_string() + "]:" + port;
  return address.to_string() + ":" + port;
}

bool IsValidRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

Result<tcp::endpoint> ParseListen(std::string_view listen) {
  const std::string quoted = "'" + std::string(listen) + "'";
  std::string_view host;
  std::string_view port;
  bool bracketed = false;
  if (!listen.empty() && listen.front() == '[') {
    const std::size_t close = listen.find(']');
    if (close == std::string_view::npos || close + 1 >= listen.size() || listen[close + 1] != ':') {
      return Fail(ErrorCode::kInvalidArgument,
                  "listen address " + quoted + ": expected [IPV6]:PORT");
    }
    host = listen.substr(1, close - 1);
    port = listen.substr(close + 2);
    bracketed = true;
  } else {
    const std::size_t colon = listen.rfind(':');
    if (colon == std::string_view::npos) {
      return Fail(ErrorCode::kInvalidArgument, "listen address " + quoted + ": expected HOST:PORT");
    }
    host = listen.substr(0, colon);
    port = listen.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return Fail(ErrorCode::kInvalidArgument,
                  "listen address " + quoted + ": write IPv6 addresses in brackets, [::1]:8080");
    }
  }
  if (host.empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                "listen address " + quoted + ": no host; use 0.0.0.0 or [::] for all addresses");
  }
  unsigned port_number = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), port_number);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() ||
      port_number > 65535) {
    return Fail(ErrorCode::kInvalidArgument,
                "listen address " + quoted + ": port must be a number from 0 to 65535");
  }
  net::ip::address address;
  if (!bracketed && host == "localhost") {
    // Never resolved: a login node's resolver may be slow or say something
    // surprising, and "localhost" is meant to keep the API on this machine.
    address = net::ip::address_v4::loopback();
  } else {
    beast::error_code ec;
    if (bracketed) {
      address = net::ip::make_address_v6(std::string(host), ec);
    } else {
      address = net::ip::make_address_v4(std::string(host), ec);
    }
    if (ec) {
      return Fail(ErrorCode::kInvalidArgument, "listen address " + quoted + ": '" +
                                                   std::string(host) +
                                                   "' is not a numeric IP address or localhost");
    }
  }
  return tcp::endpoint(address, static_cast<unsigned short>(port_number));
}

// The finaliser of splitmix64: a bijection on 64-bit values, so distinct
// counters give distinct ids, and consecutive ones look unrelated.
std::uint64_t Mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t RandomSeed() {
  try {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  } catch (const std::exception&) {
    return static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
  }
}

}  // namespace

struct HttpServer::State {
  State(net::io_context& io, ServerOptions server_options, Handler request_handler,
        tcp::acceptor listening, tcp::endpoint bound)
      : ioc(io),
        options(std::move(server_options)),
        handler(std::move(request_handler)),
        acceptor(std::move(listening)),
        local_endpoint(bound),
        accept_retry_timer(acceptor.get_executor()),
        id_seed(RandomSeed()) {}

  // Returns a fresh request id: 16 lowercase hex digits, unique in this
  // process. Thread-safe.
  std::string NewRequestId() {
    const std::uint64_t n = id_counter.fetch_add(1, std::memory_order_relaxed);
    char text[17];
    std::snprintf(text, sizeof text, "%016llx",
                  static_cast<unsigned long long>(Mix(id_seed + n * 0x9e3779b97f4a7c15ULL)));
    return text;
  }

  // Runs the drain callbacks (posted to the io_context) once stopping and
  // nothing is left: no pending accept, no session, no rejected connection
  // still lingering. Every change of those is followed by a call, so the last
  // one sees the final state. Thread-safe.
  void MaybeDrained() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!stopping || !accept_done || sessions != 0 || rejecters != 0) return;
      callbacks.swap(drain_callbacks);
    }
    for (auto& callback : callbacks) net::post(ioc, std::move(callback));
  }

  // Logs that a connection was turned away, at most once per
  // kOverloadLogInterval, with the number turned away since the last line.
  // Only on the acceptor's strand.
  void NoteOverload(const char* what) {
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
  tcp::acceptor acceptor;  // on its own strand; used only there after Create
  const tcp::endpoint local_endpoint;
  net::steady_timer accept_retry_timer;  // same strand as the acceptor
  const std::uint64_t id_seed;
  std::atomic<std::uint64_t> id_counter{0};

  std::atomic<bool> started{false};
  std::atomic<bool> stopping{false};
  std::atomic<std::size_t> sessions{0};
  std::atomic<std::size_t> rejecters{0};

  // Acceptor strand only.
  bool accept_pending = false;  // an accept or a retry wait is outstanding
  Clock::time_point last_overload_log{};
  std::uint64_t overload_unlogged = 0;

  std::mutex mutex;  // guards the members below
  std::unordered_map<std::uint64_t, std::weak_ptr<Session>> live_sessions;
  std::uint64_t next_session_id = 0;
  bool accept_done = false;  // the accept loop has ended for good
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
  Session(tcp::socket&& socket, std::shared_ptr<State> state, std::string remote, std::uint64_t id)
      : state_(std::move(state)),
        stream_(std::move(socket)),
        handler_timer_(stream_.get_executor()),
        remote_(std::move(remote)),
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
      stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
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
    if (request_id_.empty()) request_id_ = state_->NewRequestId();
  }

  void SendServerError(unsigned status, std::string_view detail) {
    Send(ServerProblem(status, detail), true);
  }

  void CallHandler() {
    phase_ = Phase::kHandling;
    TakeRequestLine();
    RequestContext ctx{request_id_, remote_, Clock::now()};
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
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
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
  beast::tcp_stream stream_;
  net::steady_timer handler_timer_;
  const std::string remote_;
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
  Rejecter(tcp::socket&& socket, std::shared_ptr<State> state)
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
    response_.set("X-Request-Id", state_->NewRequestId());
    response_.prepare_payload();
    stream_.expires_after(state_->options.write_timeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return;
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
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
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  Response response_;
  std::size_t lingered_bytes_ = 0;
};

void DoAccept(const std::shared_ptr<State>& state);

// On the acceptor's strand: the accept loop is over for good.
void EndAccepting(const std::shared_ptr<State>& state) {
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->accept_done = true;
  }
  state->MaybeDrained();
}

void StartSession(const std::shared_ptr<State>& state, tcp::socket socket) {
  beast::error_code ec;
  const tcp::endpoint peer = socket.remote_endpoint(ec);
  const std::string remote = ec ? std::string("?") : EndpointText(peer);
  state->sessions.fetch_add(1);
  std::uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    id = state->next_session_id++;
  }
  auto session = std::make_shared<Session>(std::move(socket), state, remote, id);
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->live_sessions.emplace(id, session);
  }
  session->Run();
}

void OnAccept(const std::shared_ptr<State>& state, beast::error_code ec, tcp::socket socket) {
  state->accept_pending = false;
  if (state->stopping || ec == net::error::operation_aborted) {
    // A connection accepted in the race with Stop is dropped: nothing of it
    // has been read, so no request is lost that the client thinks was taken.
    EndAccepting(state);
    return;
  }
  if (ec) {
    // At most one line per kAcceptRetryDelay.
    spdlog::error("http: accept on {} failed: {}", EndpointText(state->local_endpoint),
                  ec.message());
    state->accept_pending = true;
    state->accept_retry_timer.expires_after(kAcceptRetryDelay);
    state->accept_retry_timer.async_wait([state](beast::error_code) {
      state->accept_pending = false;
      if (state->stopping) {
        EndAccepting(state);
        return;
      }
      DoAccept(state);
    });
    return;
  }
  const auto limit = static_cast<std::size_t>(state->options.max_connections);
  if (state->sessions.load() < limit) {
    StartSession(state, std::move(socket));
  } else if (state->rejecters.load() < limit) {
    state->NoteOverload("with 503");
    state->rejecters.fetch_add(1);
    std::make_shared<Rejecter>(std::move(socket), state)->Run();
  } else {
    // Even the 503s are too many: a flood. Closing costs the least.
    state->NoteOverload("closed without a response");
    beast::error_code ignored;
    socket.close(ignored);
  }
  DoAccept(state);
}

void DoAccept(const std::shared_ptr<State>& state) {
  state->accept_pending = true;
  state->acceptor.async_accept(net::make_strand(state->ioc),
                               [state](beast::error_code ec, tcp::socket socket) {
                                 OnAccept(state, ec, std::move(socket));
                               });
}

// On the acceptor's strand.
void CloseAcceptor(const std::shared_ptr<State>& state) {
  beast::error_code ignored;
  state->acceptor.close(ignored);
  state->accept_retry_timer.cancel();
  // A pending accept or retry wait ends the loop when it completes; without
  // one the loop is over now.
  if (!state->accept_pending) EndAccepting(state);
}

}  // namespace

HttpServer::HttpServer(std::shared_ptr<State> state) : state_(std::move(state)) {}

HttpServer::~HttpServer() {
  if (!state_->stopping.exchange(true)) {
    net::post(state_->acceptor.get_executor(), [state = state_] { CloseAcceptor(state); });
  }
}

Result<std::unique_ptr<HttpServer>> HttpServer::Create(net::io_context& ioc,
                                                       std::string_view listen,
                                                       ServerOptions options, Handler handler) {
  auto endpoint = ParseListen(listen);
  if (!endpoint) return tl::unexpected(endpoint.error());
  if (!handler) return Fail(ErrorCode::kInvalidArgument, "HTTP server: no handler");
  if (options.max_connections < 1) {
    return Fail(ErrorCode::kInvalidArgument, "HTTP server: max_connections must be at least 1");
  }
  const std::string where(listen);
  tcp::acceptor acceptor(net::make_strand(ioc));
  beast::error_code ec;
  acceptor.open(endpoint->protocol(), ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "socket for " + where + ": " + ec.message());
  // Lets a restarted daemon bind while old connections sit in TIME_WAIT. On
  // Linux it does not allow two listeners on one port.
  acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "setsockopt SO_REUSEADDR: " + ec.message());
  acceptor.bind(*endpoint, ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "bind " + where + ": " + ec.message());
  acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "listen " + where + ": " + ec.message());
  const tcp::endpoint bound = acceptor.local_endpoint(ec);
  if (ec) return Fail(ErrorCode::kUnavailable, "getsockname " + where + ": " + ec.message());
  auto state = std::make_shared<State>(ioc, std::move(options), std::move(handler),
                                       std::move(acceptor), bound);
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(state)));
}

void HttpServer::Start() {
  if (state_->stopping || state_->started.exchange(true)) return;
  net::post(state_->acceptor.get_executor(), [state = state_] {
    if (state->stopping) return;  // CloseAcceptor ends the loop
    DoAccept(state);
  });
}

tcp::endpoint HttpServer::LocalEndpoint() const { return state_->local_endpoint; }

void HttpServer::Stop(std::function<void()> on_drained) {
  const bool first = !state_->stopping.exchange(true);
  std::vector<std::weak_ptr<Session>> sessions;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (on_drained) state_->drain_callbacks.push_back(std::move(on_drained));
    for (const auto& [id, session] : state_->live_sessions) sessions.push_back(session);
  }
  if (first) {
    net::post(state_->acceptor.get_executor(), [state = state_] { CloseAcceptor(state); });
  }
  // Outside the mutex: the last reference to a session may be dropped here,
  // and its destructor takes the mutex.
  for (const auto& weak : sessions) {
    if (auto session = weak.lock()) session->NotifyStop();
  }
  state_->MaybeDrained();
}

std::size_t HttpServer::ActiveConnections() const { return state_->sessions.load(); }

}  // namespace bplace::api
