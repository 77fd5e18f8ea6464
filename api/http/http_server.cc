#include "api/http/http_server.h"

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

#include "api/http/connection_budget.h"
#include "api/http/http_session.h"
#include "api/http/listening_socket.h"

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
// Connections being told 503 at once, over all listeners. Each holds an fd
// for at most the write and a one-second lingering close; beyond this many a
// flood is closed without a word, which costs the least.
constexpr std::size_t kMaxTurningAway = 64;

}  // namespace

struct HttpServer::State {
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

    AcceptLoop(std::unique_ptr<ListeningSocket> listening, std::size_t position)
        : socket(std::move(listening)),
          index(position),
          retry_timer(socket->acceptor().get_executor()) {}

    const std::unique_ptr<ListeningSocket> socket;
    const std::size_t index;  // in State::loops, and the listener's in State::budget
    net::steady_timer retry_timer;
    Phase phase = Phase::kIdle;
  };

  State(net::io_context& io, ServerOptions options, Handler handler, HeaderCheck before_continue,
        std::vector<std::unique_ptr<AcceptLoop>> accept_loops)
      : ioc(io),
        shared(std::make_shared<SessionShared>(std::move(options), std::move(handler),
                                               std::move(before_continue))),
        loops(std::move(accept_loops)),
        open_accept_loops(loops.size()),
        drain_timer(io),
        budget(BudgetLimits(shared->options), loops.size()) {}

  // The budgets `options` asks for (validated by Create).
  static ConnectionBudget::Limits BudgetLimits(const ServerOptions& options) {
    ConnectionBudget::Limits limits;
    limits.tcp_per_listener = static_cast<std::size_t>(options.max_connections);
    limits.unix_per_listener = static_cast<std::size_t>(options.max_unix_connections);
    limits.per_peer = static_cast<std::size_t>(options.max_connections_per_peer);
    return limits;
  }

  // Takes a place for a new connection from `peer` on `listener` (see
  // ConnectionBudget). A reclaimed session, if any, is in the reservation for
  // the caller to close outside the mutex. Thread-safe.
  ConnectionBudget::Reservation Reserve(const AcceptLoop& listener, const Peer& peer) {
    std::lock_guard<std::mutex> lock(mutex);
    ConnectionBudget::Reservation reservation =
        budget.Reserve(listener.index, listener.socket->address(), peer.transport, peer.address);
    if (reservation.id) counts_changed.notify_all();
    return reservation;
  }

  // Records the session that serves connection `id`. Thread-safe.
  void Attach(std::uint64_t id, const std::shared_ptr<HttpSession>& session) {
    std::lock_guard<std::mutex> lock(mutex);
    budget.Attach(id, session);
  }

  // SessionEvents::on_idle of connection `id`. Thread-safe.
  bool NoteIdle(std::uint64_t id, bool idle) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!budget.NoteIdle(id, idle)) return false;
    counts_changed.notify_all();
    return true;
  }

  // Forgets connection `id`, which has ended, and gives back its places
  // unless a newer connection has them already. Thread-safe.
  void EndSession(std::uint64_t id) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      budget.End(id);
    }
    OnCountsChanged();
  }

  // Takes one of kMaxTurningAway places for a 503; false when all are
  // taken. Thread-safe: the listeners accept concurrently.
  bool TryReserveRejecter() {
    std::size_t n = rejecters.load();
    while (n < kMaxTurningAway) {
      if (rejecters.compare_exchange_weak(n, n + 1)) return true;
    }
    return false;
  }

  // Follows every change of the sessions, `rejecters`, `open_accept_loops`
  // and `stopping`: wakes the waits for tests, and runs the drain callbacks
  // (posted to the io_context) once stopping and nothing is left: no accept
  // loop, no session (reclaimed ones included), no rejected connection still
  // lingering. The last call sees the final state. Thread-safe.
  void OnCountsChanged() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::mutex> lock(mutex);
      // Under the mutex, which a waiter holds from its check until it waits,
      // so that no change falls between the two unseen.
      counts_changed.notify_all();
      if (!shared->stopping || !budget.Empty() || rejecters != 0 || open_accept_loops != 0) {
        return;
      }
      callbacks.swap(drain_callbacks);
      drain_timer.cancel();  // drained: nothing is left for it to close
    }
    for (auto& callback : callbacks) net::post(ioc, std::move(callback));
  }

  // Starts the drain deadline (ServerOptions::drain_timeout) of the first
  // Stop: when it passes, every connection still open is closed. Under
  // `mutex`, which guards the timer (steady_timer is not thread-safe).
  void StartDrainDeadline(const std::shared_ptr<State>& self) {
    drain_timer.expires_after(shared->options.drain_timeout);
    drain_timer.async_wait([self](const boost::system::error_code& ec) {
      if (!ec) self->CloseAllAtDeadline();
    });
  }

  // The drain deadline passed: closes what is left. Thread-safe.
  void CloseAllAtDeadline() {
    std::vector<std::weak_ptr<HttpSession>> left;
    {
      std::lock_guard<std::mutex> lock(mutex);
      left = budget.Sessions();
    }
    if (left.empty()) return;
    spdlog::warn("http: drain deadline ({} s) passed; closing the {} connections left",
                 shared->options.drain_timeout.count(), left.size());
    // Outside the mutex, as in Stop.
    for (const auto& weak : left) {
      if (auto session = weak.lock()) session->ForceClose();
    }
  }

  // Logs that a connection was turned away, at most once per
  // kOverloadLogInterval over all listeners, with the number turned away
  // since the last line and why the latest was. Thread-safe.
  void NoteOverload(const std::string& why, const char* how) {
    std::lock_guard<std::mutex> lock(overload_mutex);
    ++overload_unlogged;
    const SteadyClock::time_point now = SteadyClock::now();
    if (now - last_overload_log < kOverloadLogInterval) return;
    spdlog::warn(
        "http: connection limits: turned away {} since the last report, the latest {} "
        "because {} and none was idle",
        overload_unlogged, how, why);
    overload_unlogged = 0;
    last_overload_log = now;
  }

  net::io_context& ioc;
  // Where new connections are served, in turn (SpreadConnections); empty:
  // `ioc`. Set before Start, read-only after.
  std::vector<net::io_context*> connection_contexts;
  std::atomic<std::size_t> next_context{0};
  // The context the next connection is served on.
  net::io_context& NextConnectionContext() {
    if (connection_contexts.empty()) return ioc;
    return *connection_contexts[next_context.fetch_add(1, std::memory_order_relaxed) %
                                connection_contexts.size()];
  }
  // Options, handler, request ids and the stopping flag.
  const std::shared_ptr<SessionShared> shared;
  const std::vector<std::unique_ptr<AcceptLoop>> loops;

  std::atomic<bool> started{false};
  std::atomic<std::size_t> rejecters{0};
  std::atomic<std::size_t> open_accept_loops;  // not kEnded yet
  net::steady_timer drain_timer;               // guarded by `mutex`

  std::mutex overload_mutex;  // guards the two below
  SteadyClock::time_point last_overload_log{};
  std::uint64_t overload_unlogged = 0;

  std::mutex mutex;  // guards the members below
  std::condition_variable counts_changed;
  // By AcceptLoop::index; its counts are read without the mutex.
  ConnectionBudget budget;
  std::vector<std::function<void()>> drain_callbacks;
};

namespace {

using State = HttpServer::State;
using AcceptLoop = State::AcceptLoop;

// A connection no budget has room for: gets 503 with Retry-After at once (a
// client should get an answer, not a hang) and is closed. Reads nothing of
// the request except to drain it before closing.
// Thread safety: runs on the connection's strand only.
class Rejecter : public std::enable_shared_from_this<Rejecter> {
 public:
  Rejecter(Socket&& socket, std::shared_ptr<State> state, std::string why)
      : state_(std::move(state)), stream_(std::move(socket)), why_(std::move(why)) {}

  ~Rejecter() {
    state_->rejecters.fetch_sub(1);
    state_->OnCountsChanged();
  }

  void Run() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Write(); });
  }

 private:
  void Write() {
    response_ = ServerProblem(503, "too many connections: " + why_ + "; retry shortly");
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
  const std::string why_;
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

// Serves an accepted connection for which place `id` has been reserved.
void StartSession(const std::shared_ptr<State>& state, std::uint64_t id, Peer peer, Socket socket) {
  SessionEvents events;
  events.on_idle = [state, id](bool idle) { return state->NoteIdle(id, idle); };
  events.on_closed = [state, id] { state->EndSession(id); };
  auto session =
      std::make_shared<HttpSession>(std::move(socket), state->shared, std::move(peer), events);
  state->Attach(id, session);
  session->Run();
}

// Serves a new connection, reclaiming an idle one when its budget is full,
// or turns it away.
void AdmitConnection(const std::shared_ptr<State>& state, const AcceptLoop& loop, Socket socket) {
  std::optional<Peer> peer = loop.socket->IdentifyPeer(socket);
  if (!peer) {
    beast::error_code ignored;
    socket.close(ignored);
    return;
  }
  ConnectionBudget::Reservation place = state->Reserve(loop, *peer);
  // Outside the mutex: the last reference to the victim may go here, and its
  // destructor takes the mutex.
  if (place.victim) place.victim->Reclaim();
  place.victim.reset();
  std::string why = std::move(place.refusal);
  if (place.id) {
    StartSession(state, *place.id, std::move(*peer), std::move(socket));
  } else if (state->TryReserveRejecter()) {
    state->NoteOverload(why, "with 503");
    std::make_shared<Rejecter>(std::move(socket), state, std::move(why))->Run();
  } else {
    // Even the 503s are too many: a flood. Closing costs the least.
    state->NoteOverload(why, "closed without a response");
    beast::error_code ignored;
    socket.close(ignored);
  }
  state->OnCountsChanged();
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
  AdmitConnection(state, loop, std::move(socket));
  DoAccept(state, loop);
}

// On the listener's strand. `loop` is owned by `state`, which every pending
// operation keeps alive.
void DoAccept(const std::shared_ptr<State>& state, AcceptLoop& loop) {
  loop.phase = AcceptLoop::Phase::kAccepting;
  loop.socket->acceptor().async_accept(net::make_strand(state->NextConnectionContext()),
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
                                                       ServerOptions options, Handler handler,
                                                       HeaderCheck before_continue) {
  if (listeners.empty()) return Fail(ErrorCode::kInvalidArgument, "HTTP server: no listener");
  if (!handler) return Fail(ErrorCode::kInvalidArgument, "HTTP server: no handler");
  if (options.max_connections < 1 || options.max_unix_connections < 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "HTTP server: max_connections and max_unix_connections must be at least 1");
  }
  if (options.max_connections_per_peer < 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "HTTP server: max_connections_per_peer must be 0 (no cap) or more");
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
    loops.push_back(std::make_unique<AcceptLoop>(std::move(*listener), loops.size()));
  }
  auto state = std::make_shared<State>(ioc, std::move(options), std::move(handler),
                                       std::move(before_continue), std::move(loops));
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(state)));
}

Result<std::unique_ptr<HttpServer>> HttpServer::Create(net::io_context& ioc,
                                                       std::string_view listen,
                                                       ServerOptions options, Handler handler,
                                                       HeaderCheck before_continue) {
  ListenerSpec spec;
  spec.address = std::string(listen);
  std::vector<ListenerSpec> listeners;
  listeners.push_back(std::move(spec));
  return Create(ioc, std::move(listeners), std::move(options), std::move(handler),
                std::move(before_continue));
}

void HttpServer::SpreadConnections(std::vector<net::io_context*> contexts) {
  state_->connection_contexts = std::move(contexts);
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
    sessions = state_->budget.Sessions();
    if (first) state_->StartDrainDeadline(state_);
  }
  if (first) CloseAcceptors(state_);
  // Outside the mutex: the last reference to a session may be dropped here,
  // and its destructor takes the mutex.
  for (const auto& weak : sessions) {
    if (auto session = weak.lock()) session->NotifyStop();
  }
  state_->OnCountsChanged();
}

std::size_t HttpServer::ActiveConnections() const { return state_->budget.Active(); }

ConnectionCounts HttpServer::Connections(Transport transport) const {
  return state_->budget.Counts(transport);
}

bool HttpServer::WaitForActiveConnections(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(state_->mutex);
  return state_->counts_changed.wait_for(lock, timeout,
                                         [this, n] { return state_->budget.Active() == n; });
}

bool HttpServer::WaitForIdleConnections(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(state_->mutex);
  return state_->counts_changed.wait_for(lock, timeout,
                                         [this, n] { return state_->budget.Idle() == n; });
}

}  // namespace bplace::api
