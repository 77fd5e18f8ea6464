#include "api/http/connection_budget.h"

#include <utility>

namespace bplace::api {

ConnectionBudget::ConnectionBudget(Limits limits, std::size_t listeners)
    : limits_(limits), listener_places_(listeners, 0) {}

ConnectionBudget::Reservation ConnectionBudget::Reserve(std::size_t listener,
                                                        std::string_view listener_address,
                                                        Transport transport,
                                                        const std::string& peer_address) {
  const bool tcp = transport == Transport::kTcp;
  const std::size_t budget = tcp ? limits_.tcp_per_listener : limits_.unix_per_listener;
  const std::size_t cap = tcp ? limits_.per_peer : 0;
  const bool listener_full = listener_places_[listener] >= budget;
  const auto from_peer = peer_places_.find(peer_address);
  const bool peer_full = cap > 0 && from_peer != peer_places_.end() && from_peer->second >= cap;
  Reservation reservation;
  if (listener_full || peer_full) {
    const auto oldest = OldestIdle(listener, listener_full, peer_address, peer_full);
    if (oldest == entries_.end()) {
      reservation.refusal = peer_full ? "the cap of " + std::to_string(cap) + " connections from " +
                                            peer_address + " is reached"
                                      : "the " + std::to_string(budget) + " connections of " +
                                            std::string(listener_address) + " are taken";
      ++Kind(tcp).refused;
      return reservation;
    }
    reservation.reclaimed = oldest->first;
    reservation.victim = oldest->second.session.lock();
    ++Kind(oldest->second.tcp).reclaimed;
    Release(oldest->second);
    oldest->second.reclaimed = true;
  }
  const Id id = next_id_++;
  Entry& entry = entries_[id];
  entry.listener = listener;
  entry.tcp = tcp;
  if (tcp) entry.peer = peer_address;
  ++listener_places_[listener];
  if (tcp) ++peer_places_[entry.peer];
  ++Kind(tcp).accepted;
  ++Kind(tcp).open;
  active_.fetch_add(1);
  reservation.id = id;
  return reservation;
}

std::unordered_map<ConnectionBudget::Id, ConnectionBudget::Entry>::iterator
ConnectionBudget::OldestIdle(std::size_t listener, bool listener_full,
                             const std::string& peer_address, bool peer_full) {
  auto oldest = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    const Entry& e = it->second;
    if (e.idle_rank == 0 || e.reclaimed) continue;
    if (listener_full && e.listener != listener) continue;
    if (peer_full && (!e.tcp || e.peer != peer_address)) continue;
    if (oldest == entries_.end() || e.idle_rank < oldest->second.idle_rank) oldest = it;
  }
  return oldest;
}

void ConnectionBudget::Release(const Entry& entry) {
  --listener_places_[entry.listener];
  --Kind(entry.tcp).open;
  if (entry.tcp) {
    const auto it = peer_places_.find(entry.peer);
    if (it != peer_places_.end() && --it->second == 0) peer_places_.erase(it);
  }
  active_.fetch_sub(1);
}

void ConnectionBudget::Attach(Id id, const std::shared_ptr<HttpSession>& session) {
  const auto it = entries_.find(id);
  if (it != entries_.end()) it->second.session = session;
}

bool ConnectionBudget::NoteIdle(Id id, bool idle) {
  const auto it = entries_.find(id);
  if (it == entries_.end() || it->second.reclaimed) return false;
  it->second.idle_rank = idle ? next_idle_rank_++ : 0;
  return true;
}

void ConnectionBudget::End(Id id) {
  const auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (!it->second.reclaimed) Release(it->second);
  entries_.erase(it);
}

bool ConnectionBudget::Empty() const { return entries_.empty(); }

std::size_t ConnectionBudget::Idle() const {
  std::size_t idle = 0;
  for (const auto& [id, entry] : entries_) {
    if (entry.idle_rank != 0 && !entry.reclaimed) ++idle;
  }
  return idle;
}

std::vector<std::weak_ptr<HttpSession>> ConnectionBudget::Sessions() const {
  std::vector<std::weak_ptr<HttpSession>> sessions;
  sessions.reserve(entries_.size());
  for (const auto& [id, entry] : entries_) sessions.push_back(entry.session);
  return sessions;
}

ConnectionCounts ConnectionBudget::Counts(Transport transport) const {
  const KindCounts& kind = Kind(transport == Transport::kTcp);
  return {kind.open.load(), kind.accepted.load(), kind.refused.load(), kind.reclaimed.load()};
}

}  // namespace bplace::api
