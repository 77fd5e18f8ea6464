// ConnectionBudget (api/http/connection_budget.h): the places of the
// connections, without sockets or sessions.

#include "api/http/connection_budget.h"

#include <gtest/gtest.h>

namespace bplace::api {
namespace {

using Id = ConnectionBudget::Id;

ConnectionBudget::Limits Limits(std::size_t tcp, std::size_t unix_sockets, std::size_t per_peer) {
  ConnectionBudget::Limits limits;
  limits.tcp_per_listener = tcp;
  limits.unix_per_listener = unix_sockets;
  limits.per_peer = per_peer;
  return limits;
}

// A TCP connection from `peer` on listener `listener` (named "L<n>").
ConnectionBudget::Reservation Tcp(ConnectionBudget& budget, std::size_t listener,
                                  const std::string& peer) {
  return budget.Reserve(listener, "L" + std::to_string(listener), Transport::kTcp, peer);
}

TEST(ConnectionBudgetTest, AdmitsUpToTheListenersBudgetThenRefuses) {
  ConnectionBudget budget(Limits(2, 1, 0), 1);
  const auto first = Tcp(budget, 0, "10.0.0.1");
  const auto second = Tcp(budget, 0, "10.0.0.2");
  ASSERT_TRUE(first.id && second.id);
  EXPECT_NE(*first.id, *second.id);
  EXPECT_EQ(budget.Active(), 2u);

  const auto third = Tcp(budget, 0, "10.0.0.3");
  EXPECT_FALSE(third.id);
  EXPECT_FALSE(third.reclaimed);
  EXPECT_EQ(third.refusal, "the 2 connections of L0 are taken");
  const ConnectionCounts counts = budget.Counts(Transport::kTcp);
  EXPECT_EQ(counts.open, 2u);
  EXPECT_EQ(counts.accepted, 2u);
  EXPECT_EQ(counts.refused, 1u);
  EXPECT_EQ(counts.reclaimed, 0u);
}

TEST(ConnectionBudgetTest, ReclaimsTheConnectionIdleLongest) {
  ConnectionBudget budget(Limits(3, 1, 0), 1);
  const Id a = Tcp(budget, 0, "10.0.0.1").id.value();
  const Id b = Tcp(budget, 0, "10.0.0.2").id.value();
  const Id c = Tcp(budget, 0, "10.0.0.3").id.value();
  ASSERT_TRUE(budget.NoteIdle(b, true));
  ASSERT_TRUE(budget.NoteIdle(c, true));
  ASSERT_TRUE(budget.NoteIdle(a, true));  // idle last
  EXPECT_EQ(budget.Idle(), 3u);

  const auto next = Tcp(budget, 0, "10.0.0.4");
  ASSERT_TRUE(next.id);
  EXPECT_EQ(next.reclaimed, b);
  EXPECT_FALSE(next.victim);  // no session was attached
  EXPECT_EQ(budget.Active(), 3u);
  EXPECT_EQ(budget.Idle(), 2u);
  EXPECT_EQ(budget.Counts(Transport::kTcp).reclaimed, 1u);
  EXPECT_EQ(budget.Counts(Transport::kTcp).open, 3u);
  // The reclaimed connection has lost its place: it must close.
  EXPECT_FALSE(budget.NoteIdle(b, false));

  const auto after = Tcp(budget, 0, "10.0.0.5");
  EXPECT_EQ(after.reclaimed, c);
}

TEST(ConnectionBudgetTest, NeverReclaimsABusyConnection) {
  ConnectionBudget budget(Limits(2, 1, 0), 1);
  const Id a = Tcp(budget, 0, "10.0.0.1").id.value();
  const Id b = Tcp(budget, 0, "10.0.0.2").id.value();
  ASSERT_TRUE(budget.NoteIdle(a, true));
  ASSERT_TRUE(budget.NoteIdle(b, true));
  // Both get a next request: busy again.
  ASSERT_TRUE(budget.NoteIdle(a, false));
  ASSERT_TRUE(budget.NoteIdle(b, false));
  EXPECT_EQ(budget.Idle(), 0u);
  EXPECT_FALSE(Tcp(budget, 0, "10.0.0.3").id);
}

TEST(ConnectionBudgetTest, EachListenerHasItsOwnBudget) {
  ConnectionBudget budget(Limits(1, 1, 0), 2);
  const Id on_first = Tcp(budget, 0, "10.0.0.1").id.value();
  ASSERT_TRUE(budget.NoteIdle(on_first, true));
  // Listener 1 has room: nothing of listener 0 is reclaimed for it.
  const auto on_second = Tcp(budget, 1, "10.0.0.2");
  ASSERT_TRUE(on_second.id);
  EXPECT_FALSE(on_second.reclaimed);
  // Listener 1 full, its connection busy: refused, though listener 0 has an
  // idle connection.
  const auto refused = Tcp(budget, 1, "10.0.0.3");
  EXPECT_FALSE(refused.id);
  EXPECT_EQ(refused.refusal, "the 1 connections of L1 are taken");
}

TEST(ConnectionBudgetTest, UnixConnectionsHaveTheirOwnBudgetAndNoPeerCap) {
  ConnectionBudget budget(Limits(1, 2, 1), 2);
  ASSERT_TRUE(budget.Reserve(1, "unix:/s", Transport::kUnix, "").id);
  ASSERT_TRUE(budget.Reserve(1, "unix:/s", Transport::kUnix, "").id);
  const auto third = budget.Reserve(1, "unix:/s", Transport::kUnix, "");
  EXPECT_FALSE(third.id);
  EXPECT_EQ(third.refusal, "the 2 connections of unix:/s are taken");
  EXPECT_EQ(budget.Counts(Transport::kUnix).open, 2u);
  EXPECT_EQ(budget.Counts(Transport::kUnix).refused, 1u);
  EXPECT_EQ(budget.Counts(Transport::kTcp).open, 0u);
  EXPECT_EQ(budget.Counts(Transport::kTcp).refused, 0u);
}

TEST(ConnectionBudgetTest, CapsTheConnectionsOfOneAddressOverAllListeners) {
  ConnectionBudget budget(Limits(10, 1, 2), 2);
  const Id a1 = Tcp(budget, 0, "10.0.0.1").id.value();
  ASSERT_TRUE(Tcp(budget, 1, "10.0.0.1").id);
  const auto third = Tcp(budget, 0, "10.0.0.1");
  EXPECT_FALSE(third.id);
  EXPECT_EQ(third.refusal, "the cap of 2 connections from 10.0.0.1 is reached");
  // Another address is not capped by it.
  const Id b = Tcp(budget, 0, "10.0.0.2").id.value();

  // At the cap, only the address's own idle connection is reclaimed, even
  // when another address's has been idle longer.
  ASSERT_TRUE(budget.NoteIdle(b, true));
  ASSERT_TRUE(budget.NoteIdle(a1, true));
  const auto again = Tcp(budget, 1, "10.0.0.1");
  ASSERT_TRUE(again.id);
  EXPECT_EQ(again.reclaimed, a1);
}

TEST(ConnectionBudgetTest, EndGivesThePlaceBackOnce) {
  ConnectionBudget budget(Limits(1, 1, 1), 1);
  const Id a = Tcp(budget, 0, "10.0.0.1").id.value();
  ASSERT_TRUE(budget.NoteIdle(a, true));
  const Id b = Tcp(budget, 0, "10.0.0.1").id.value();  // reclaims a
  EXPECT_FALSE(budget.Empty());
  EXPECT_EQ(budget.Sessions().size(), 2u);  // a is still closing

  // The reclaimed one ending gives back nothing: b keeps the only place.
  budget.End(a);
  EXPECT_EQ(budget.Active(), 1u);
  EXPECT_FALSE(Tcp(budget, 0, "10.0.0.2").id);

  budget.End(b);
  budget.End(b);  // unknown now: ignored
  EXPECT_EQ(budget.Active(), 0u);
  EXPECT_TRUE(budget.Empty());
  EXPECT_EQ(budget.Counts(Transport::kTcp).open, 0u);
  EXPECT_TRUE(Tcp(budget, 0, "10.0.0.1").id);
}

}  // namespace
}  // namespace bplace::api
