#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/http/message.h"

namespace bplace::api {

class HttpSession;

// What the listeners of one kind (TCP or Unix) have done since the server
// was created, for GET /metrics.
struct ConnectionCounts {
  std::uint64_t open = 0;       // being served now (ActiveConnections, of this kind)
  std::uint64_t accepted = 0;   // given a place in a budget
  std::uint64_t refused = 0;    // turned away (503, or closed in a flood): budget full
  std::uint64_t reclaimed = 0;  // idle ones closed to make room for a new one
};

// The connection budgets of an HttpServer, so that no client can lock the
// others out: each listener serves at most its budget of connections at once
// (one size for TCP listeners, one for Unix ones), and the TCP connections
// from one remote address are capped together over all TCP listeners. A new
// connection that finds its listener's budget or its address's cap full takes
// the place of the connection idle longest (kept alive after a response, no
// byte of a next request yet) within that budget, as nginx and Envoy do; only
// when none is idle is it refused. Connections reading or answering a request
// are never reclaimed.
//
// Bookkeeping only: it closes nothing and sends nothing. The server closes
// the reclaimed session it is handed and answers a refused connection (503).
//
// Thread safety: none for the bookkeeping; HttpServer calls it under its
// mutex. Active and Counts are lock-free and may be called from any thread.
class ConnectionBudget {
 public:
  // A connection's place, from Reserve until End.
  using Id = std::uint64_t;

  struct Limits {
    std::size_t tcp_per_listener = 1;   // >= 1 (ServerOptions::max_connections)
    std::size_t unix_per_listener = 1;  // >= 1 (ServerOptions::max_unix_connections)
    // TCP connections from one address over all listeners; 0: no cap
    // (ServerOptions::max_connections_per_peer).
    std::size_t per_peer = 0;
  };

  // What Reserve decided.
  struct Reservation {
    // The new connection's place; nullopt when it was refused.
    std::optional<Id> id;
    // The connection whose place it took, when a budget was full.
    std::optional<Id> reclaimed;
    // ... and that connection's session, when Attach gave one and it is still
    // alive: the caller closes it (outside its mutex: the last reference may
    // go with it).
    std::shared_ptr<HttpSession> victim;
    // Refused: which budget is full, for the 503 and the log ("the 512
    // connections of 127.0.0.1:8080 are taken", "the cap of 128 connections
    // from 10.0.0.7 is reached").
    std::string refusal;
  };

  // `listeners`: how many listeners the server has (indexes 0..listeners-1).
  ConnectionBudget(Limits limits, std::size_t listeners);

  ConnectionBudget(const ConnectionBudget&) = delete;
  ConnectionBudget& operator=(const ConnectionBudget&) = delete;

  // Takes a place for a new connection on listener `listener` (named
  // `listener_address` in a refusal) from `peer_address` (the remote address
  // without the port; counted against the per-peer cap for TCP only).
  // Reclaims the place of the connection idle longest when a budget is full;
  // refuses, counting it, when none is idle.
  Reservation Reserve(std::size_t listener, std::string_view listener_address, Transport transport,
                      const std::string& peer_address);

  // Records the session that serves connection `id` (handed back as a victim
  // when its place is reclaimed). Unknown ids are ignored.
  void Attach(Id id, const std::shared_ptr<HttpSession>& session);

  // Connection `id` went idle (`idle`: waiting for its next request; it may
  // then be reclaimed) or busy again (a request's first byte arrived).
  // Returns false when its place is gone (reclaimed, or unknown): the
  // connection must close.
  bool NoteIdle(Id id, bool idle);

  // Connection `id` has ended: forgets it, and gives back its places unless
  // they were reclaimed for a newer one. Unknown ids are ignored.
  void End(Id id);

  // No connection is left, reclaimed ones still closing included.
  bool Empty() const;

  // Connections idle now, which a full budget would reclaim.
  std::size_t Idle() const;

  // The sessions of every connection left (reclaimed ones included), for the
  // server's drain.
  std::vector<std::weak_ptr<HttpSession>> Sessions() const;

  // Connections holding a place now (reclaimed ones do not). Lock-free.
  std::size_t Active() const { return active_.load(); }

  // The counts of the connections over `transport`. Lock-free; the four are
  // read one after the other, so they may be a connection apart.
  ConnectionCounts Counts(Transport transport) const;

 private:
  // A connection, as the budgets see it.
  struct Entry {
    std::weak_ptr<HttpSession> session;  // empty until Attach
    std::size_t listener = 0;
    std::string peer;  // the remote address for TCP; "" for Unix
    bool tcp = false;
    // 0 while a request is being read, handled or answered (and before the
    // first); else when it went idle, as a rank: smaller is idle longer.
    std::uint64_t idle_rank = 0;
    // Its place was given to a newer connection; it is closing and counts no
    // more.
    bool reclaimed = false;
  };

  struct KindCounts {
    std::atomic<std::uint64_t> open{0};
    std::atomic<std::uint64_t> accepted{0};
    std::atomic<std::uint64_t> refused{0};
    std::atomic<std::uint64_t> reclaimed{0};
  };

  KindCounts& Kind(bool tcp) { return tcp ? tcp_counts_ : unix_counts_; }
  const KindCounts& Kind(bool tcp) const { return tcp ? tcp_counts_ : unix_counts_; }

  // The idle connection to reclaim for a new one on `listener` from
  // `peer_address`: the one idle longest within the full budgets; end() when
  // none is idle.
  std::unordered_map<Id, Entry>::iterator OldestIdle(std::size_t listener, bool listener_full,
                                                     const std::string& peer_address,
                                                     bool peer_full);

  // Gives back the places `entry` holds.
  void Release(const Entry& entry);

  const Limits limits_;
  KindCounts tcp_counts_;
  KindCounts unix_counts_;
  std::atomic<std::size_t> active_{0};
  std::unordered_map<Id, Entry> entries_;
  std::vector<std::size_t> listener_places_;                  // by listener
  std::unordered_map<std::string, std::size_t> peer_places_;  // TCP, by address
  Id next_id_ = 0;
  std::uint64_t next_idle_rank_ = 1;
};

}  // namespace bplace::api
