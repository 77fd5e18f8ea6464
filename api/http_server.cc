#include "api/http_server.h"

#include <atomic>
#include <condition_variable>
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
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/write.hpp>

#include "api/http_session.h"
#include "api/listening_socket.h"

namespace bplace::api {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

namespace {

// A failed accept (EMFILE, ENOBUFS) would fail again at once; back off
// instead of spinning.
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(100);
constexpr auto kOverloadLogInterval = std::chrono::seconds(1);

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
  State(net::io_context& io, ServerOptions options, Handler handler,
        std::vector<std::unique_ptr<AcceptLoop>> accept_loops)
      : ioc(io),
        shared(std::make_shared<SessionShared>(std::move(options), std::move(handler))),
        loops(std::move(accept_loops)),
        open_accept_loops(loops.size()) {}

  // Takes one of max_connections places counted by `counter` (sessions or
  // rejecters); false when all are taken. Thread-safe: the listeners accept
  // concurrently, and a load-then-add would let each of them take the last
  // place.
  bool TryReserve(std::atomic<std::size_t>& counter) {
    const auto limit = static_cast<std::size_t>(shared->options.max_connections);
    std::size_t n = counter.load();
    while (n < limit) {
      if (counter.compare_exchange_weak(n, n + 1)) return true;
    }
    return false;
  }

  // Gives back a place taken with TryReserve(sessions). Thread-safe.
  void ReleaseSessionPlace() {
    sessions.fetch_sub(1);
    OnCountsChanged();
  }

  // Forgets session `id`, which has ended, and gives back its place.
  // Thread-safe.
  void EndSession(std::uint64_t id) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      live_sessions.erase(id);
    }
    ReleaseSessionPlace();
  }

  // Follows every change of `sessions`, `rejecters`, `open_accept_loops` and
  // `stopping`: wakes WaitForActiveConnections, and runs the drain callbacks
  // (posted to the io_context) once stopping and nothing is left: no accept
  // loop, no session, no rejected connection still lingering. The last call
  // sees the final state. Thread-safe.
  void OnCountsChanged() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::mutex> lock(mutex);
      // Under the mutex, which a waiter holds from its check until it waits,
      // so that no change falls between the two unseen.
      counts_changed.notify_all();
      if (!shared->stopping || sessions != 0 || rejecters != 0 || open_accept_loops != 0) return;
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
    const SteadyClock::time_point now = SteadyClock::now();
    if (now - last_overload_log < kOverloadLogInterval) return;
    spdlog::warn(
        "http: at the limit of {} connections: turned away {} since the last report, "
        "the latest {}",
        shared->options.max_connections, overload_unlogged, what);
    overload_unlogged = 0;
    last_overload_log = now;
  }

  net::io_context& ioc;
  // Options, handler, request ids and the stopping flag.
  const std::shared_ptr<SessionShared> shared;
  const std::vector<std::unique_ptr<AcceptLoop>> loops;

  std::atomic<bool> started{false};
  std::atomic<std::size_t> sessions{0};
  std::atomic<std::size_t> rejecters{0};
  std::atomic<std::size_t> open_accept_loops;  // not kEnded yet

  std::mutex overload_mutex;  // guards the two below
  SteadyClock::time_point last_overload_log{};
  std::uint64_t overload_unlogged = 0;

  std::mutex mutex;  // guards the members below
  std::condition_variable counts_changed;
  std::unordered_map<std::uint64_t, std::weak_ptr<HttpSession>> live_sessions;
  std::uint64_t next_session_id = 0;
  std::vector<std::function<void()>> drain_callbacks;
};

namespace {

using State = HttpServer::State;

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
    state_->OnCountsChanged();
  }

  void Run() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Write(); });
  }

 private:
  void Write() {
    response_ = ServerProblem(503, "the server is at its connection limit; retry shortly");
    response_.set(http::field::retry_after, "1");
    response_.set(http::field::server, kServerName);
    response_.set("X-Request-Id", state_->shared->request_ids.Next());
    response_.prepare_payload();
    stream_.expires_after(state_->shared->options.write_timeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return;
                        LingeringClose(self, self->stream_, self->buffer_);
                      });
  }

  const std::shared_ptr<State> state_;
  Stream stream_;
  beast::flat_buffer buffer_;
  Response response_;
};

void DoAccept(const std::shared_ptr<State>& state, AcceptLoop& loop);

// On the listener's strand: its accept loop is over for good.
void EndAccepting(const std::shared_ptr<State>& state, AcceptLoop& loop) {
  if (loop.phase == AcceptLoop::Phase::kEnded) return;
  loop.phase = AcceptLoop::Phase::kEnded;
  state->open_accept_loops.fetch_sub(1);
  state->OnCountsChanged();
}

// Serves an accepted connection for which a place has been reserved in
// State::sessions.
void StartSession(const std::shared_ptr<State>& state, const ListeningSocket& listener,
                  Socket socket) {
  std::optional<Peer> peer = listener.IdentifyPeer(socket);
  if (!peer) {
    beast::error_code ignored;
    socket.close(ignored);
    state->ReleaseSessionPlace();
    return;
  }
  std::uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    id = state->next_session_id++;
  }
  auto session = std::make_shared<HttpSession>(std::move(socket), state->shared, std::move(*peer),
                                               [state, id] { state->EndSession(id); });
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
    state->OnCountsChanged();
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
    if (state->shared->stopping) {
      EndAccepting(state, loop);
      return;
    }
    DoAccept(state, loop);
  });
}

void OnAccept(const std::shared_ptr<State>& state, AcceptLoop& loop, beast::error_code ec,
              Socket socket) {
  loop.phase = AcceptLoop::Phase::kIdle;
  if (state->shared->stopping || ec == net::error::operation_aborted) {
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
  if (!state_->shared->stopping.exchange(true)) CloseAcceptors(state_);
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
  if (state_->shared->stopping || state_->started.exchange(true)) return;
  for (const auto& loop : state_->loops) {
    net::post(loop->socket->acceptor().get_executor(), [state = state_, &each = *loop] {
      if (state->shared->stopping) return;  // CloseAcceptor ends the loop
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
  const bool first = !state_->shared->stopping.exchange(true);
  std::vector<std::weak_ptr<HttpSession>> sessions;
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
  state_->OnCountsChanged();
}

std::size_t HttpServer::ActiveConnections() const { return state_->sessions.load(); }

bool HttpServer::WaitForActiveConnections(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(state_->mutex);
  return state_->counts_changed.wait_for(lock, timeout,
                                         [this, n] { return state_->sessions.load() == n; });
}

}  // namespace bplace::api
