#include "daemon/cluster/inflight_ledger.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace {
namespace {

using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;
using namespace std::chrono_literals;
using LedgerClock = InflightLedger::Clock;

// A fixed origin: the ledger takes times as arguments, so tests never sleep.
const LedgerClock::time_point kT0 = LedgerClock::time_point{} + 1000s;

TEST(InflightLedgerTest, CountsReservedSlotsPerQueue) {
  InflightLedger ledger;
  EXPECT_THAT(ledger.Counts(), IsEmpty());
  ledger.Reserve("short", 2);
  ledger.Reserve("short", 3);
  ledger.Reserve("long", 1);
  EXPECT_THAT(ledger.Counts(), UnorderedElementsAre(Pair("short", 5), Pair("long", 1)));
}

TEST(InflightLedgerTest, GivesDistinctTickets) {
  InflightLedger ledger;
  const auto a = ledger.Reserve("q", 1);
  const auto b = ledger.Reserve("q", 1);
  EXPECT_NE(a, b);
}

TEST(InflightLedgerTest, KeepsSubmittedSlotsUntilLoadCountedAfterFinish) {
  InflightLedger ledger;
  const auto ticket = ledger.Reserve("q", 4);
  ledger.Finish(ticket, /*keep=*/true, kT0);
  EXPECT_THAT(ledger.Counts(), UnorderedElementsAre(Pair("q", 4)));
  // A bqueues that started before the job was submitted cannot show it.
  ledger.OnLoadCounted(kT0 - 1s);
  EXPECT_THAT(ledger.Counts(), UnorderedElementsAre(Pair("q", 4)));
  // One that started after does.
  ledger.OnLoadCounted(kT0 + 1s);
  EXPECT_THAT(ledger.Counts(), IsEmpty());
}

TEST(InflightLedgerTest, DropsOnlyEntriesFinishedBeforeTheCount) {
  InflightLedger ledger;
  const auto early = ledger.Reserve("a", 1);
  const auto late = ledger.Reserve("a", 10);
  const auto other = ledger.Reserve("b", 100);
  ledger.Finish(early, true, kT0);
  ledger.Finish(late, true, kT0 + 10s);
  ledger.Finish(other, true, kT0 + 2s);
  ledger.OnLoadCounted(kT0 + 5s);
  EXPECT_THAT(ledger.Counts(), UnorderedElementsAre(Pair("a", 10)));
}

TEST(InflightLedgerTest, DropsRefusedSubmissionAtOnce) {
  InflightLedger ledger;
  const auto kept = ledger.Reserve("q", 2);
  const auto refused = ledger.Reserve("q", 5);
  ledger.Finish(kept, true, kT0);
  ledger.Finish(refused, /*keep=*/false, kT0);
  EXPECT_THAT(ledger.Counts(), UnorderedElementsAre(Pair("q", 2)));
}

TEST(InflightLedgerTest, MovesSlotsToQueueLsfReported) {
  InflightLedger ledger;
  const auto rewritten = ledger.Reserve("short", 3);
  const auto same = ledger.Reserve("short", 1);
  ledger.Finish(rewritten, true, kT0, "long");
  ledger.Finish(same, true, kT0, "");
  EXPECT_THAT(ledger.Counts(), UnorderedElementsAre(Pair("short", 1), Pair("long", 3)));
}

TEST(InflightLedgerTest, UnfinishedEntriesSurviveRefreshes) {
  InflightLedger ledger;
  ledger.Reserve("q", 3);
  for (int i = 1; i <= 5; ++i) ledger.OnLoadCounted(kT0 + std::chrono::seconds(15 * i));
  EXPECT_THAT(ledger.Counts(), UnorderedElementsAre(Pair("q", 3)));
}

TEST(InflightLedgerTest, FinishOfUnknownTicketIsIgnored) {
  InflightLedger ledger;
  const auto ticket = ledger.Reserve("q", 1);
  ledger.Finish(ticket, false, kT0);
  ledger.Finish(ticket, true, kT0);  // twice
  ledger.Finish(12345, true, kT0);
  EXPECT_THAT(ledger.Counts(), IsEmpty());
}

TEST(InflightLedgerTest, TimedOutSubmissionStaysCountedUntilLaterRefresh) {
  // The submitter keeps a timed-out bsub (keep=true): the job may exist.
  InflightLedger ledger;
  const auto ticket = ledger.Reserve("q", 8);
  ledger.Finish(ticket, true, kT0 + 30s);
  ledger.OnLoadCounted(kT0 + 15s);
  EXPECT_THAT(ledger.Counts(), UnorderedElementsAre(Pair("q", 8)));
  ledger.OnLoadCounted(kT0 + 45s);
  EXPECT_THAT(ledger.Counts(), IsEmpty());
}

TEST(InflightLedgerTest, StaysConsistentUnderConcurrentUse) {
  InflightLedger ledger;
  constexpr int kThreads = 8;
  constexpr int kPerThread = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&ledger, t] {
      const std::string queue = "q" + std::to_string(t % 3);
      for (int i = 0; i < kPerThread; ++i) {
        const auto ticket = ledger.Reserve(queue, 1);
        // Every other reservation is refused; the rest are kept far in the
        // future so concurrent OnLoadCounted calls never drop them.
        ledger.Finish(ticket, i % 2 == 0, kT0 + 1000h);
        if (i % 100 == 0) {
          ledger.OnLoadCounted(kT0);
          (void)ledger.Counts();
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const auto counts = ledger.Counts();
  std::int64_t total = 0;
  for (const auto& [queue, slots] : counts) total += slots;
  EXPECT_EQ(total, kThreads * kPerThread / 2);
  // q0 is used by threads 0, 3, 6; q1 by 1, 4, 7; q2 by 2, 5.
  EXPECT_EQ(counts.at("q0"), 3 * kPerThread / 2);
  EXPECT_EQ(counts.at("q1"), 3 * kPerThread / 2);
  EXPECT_EQ(counts.at("q2"), 2 * kPerThread / 2);
  ledger.OnLoadCounted(kT0 + 2000h);
  EXPECT_THAT(ledger.Counts(), IsEmpty());
}

}  // namespace
}  // namespace bplace
