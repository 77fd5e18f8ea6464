#include "daemon/jobs/job_lookups.h"

#include <gtest/gtest.h>

namespace bplace {
namespace {

using namespace std::chrono_literals;
using Admission = JobLookups::Admission;

const SystemTime kNow = std::chrono::sys_days(std::chrono::year(2027) / 1 / 1);

JobLookupOptions Small() {
  JobLookupOptions options;
  options.max_in_flight_per_caller = 2;
  options.max_not_found_per_caller = 3;
  options.max_callers = 2;
  options.not_found_ttl = 60s;
  return options;
}

TEST(JobLookupsTest, AnIdLsfDoesNotKnowIsAnsweredFromMemoryForItsCallerOnly) {
  JobLookups lookups(Small());
  ASSERT_EQ(lookups.Begin("alice", {999, 0}, kNow).admission, Admission::kLookUp);
  lookups.Finish("alice", {999, 0}, true, kNow);
  const JobLookups::Verdict again = lookups.Begin("alice", {999, 0}, kNow + 10s);
  EXPECT_EQ(again.admission, Admission::kNotFound);
  EXPECT_EQ(again.since, kNow);
  EXPECT_EQ(lookups.Begin("bob", {999, 0}, kNow + 10s).admission, Admission::kLookUp);
  EXPECT_EQ(lookups.Begin("alice", {999, 0}, kNow + 60s).admission, Admission::kLookUp)
      << "LSF may know the id by now";
}

TEST(JobLookupsTest, EachCallerRemembersABoundedNumberOfUnknownIds) {
  JobLookups lookups(Small());
  for (std::int64_t id = 1; id <= 10; ++id) {
    ASSERT_EQ(lookups.Begin("alice", {id, 0}, kNow).admission, Admission::kLookUp) << id;
    lookups.Finish("alice", {id, 0}, true, kNow);
  }
  EXPECT_EQ(lookups.NotFoundEntries(), 3u);
  EXPECT_EQ(lookups.Begin("alice", {10, 0}, kNow).admission, Admission::kNotFound);
  EXPECT_EQ(lookups.Begin("alice", {1, 0}, kNow).admission, Admission::kLookUp)
      << "the oldest went";
}

TEST(JobLookupsTest, ACallerHasABoundedNumberOfLookupsInFlight) {
  JobLookups lookups(Small());
  EXPECT_EQ(lookups.Begin("alice", {1, 0}, kNow).admission, Admission::kLookUp);
  EXPECT_EQ(lookups.Begin("alice", {2, 0}, kNow).admission, Admission::kLookUp);
  EXPECT_EQ(lookups.Begin("alice", {3, 0}, kNow).admission, Admission::kTooMany);
  EXPECT_EQ(lookups.Begin("bob", {3, 0}, kNow).admission, Admission::kLookUp) << "per caller";
  lookups.Finish("alice", {1, 0}, false, kNow);
  EXPECT_EQ(lookups.Begin("alice", {3, 0}, kNow).admission, Admission::kLookUp);
}

TEST(JobLookupsTest, CallersAreBoundedAndTheOneIdleLongestGoes) {
  JobLookups lookups(Small());
  for (const char* caller : {"alice", "bob"}) {
    ASSERT_EQ(lookups.Begin(caller, {1, 0}, kNow).admission, Admission::kLookUp);
  }
  EXPECT_EQ(lookups.Begin("carol", {1, 0}, kNow).admission, Admission::kTooMany)
      << "both others have lookups in flight";
  lookups.Finish("alice", {1, 0}, true, kNow);
  EXPECT_EQ(lookups.Begin("carol", {1, 0}, kNow + 1s).admission, Admission::kLookUp);
  EXPECT_EQ(lookups.Callers(), 2u);
  EXPECT_EQ(lookups.NotFoundEntries(), 0u) << "alice went, with what she remembered";
}

}  // namespace
}  // namespace bplace
