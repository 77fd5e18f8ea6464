#include "daemon/daemon_metrics.h"

#include <chrono>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/manual_clock.h"
#include "daemon/submit/rate_limiter.h"

namespace bplace {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

lsf::QueueLoad Queue(std::string name, std::int64_t pend, std::int64_t run, std::string status) {
  lsf::QueueLoad queue;
  queue.name = std::move(name);
  queue.pend = pend;
  queue.run = run;
  queue.status.text = std::move(status);
  return queue;
}

lsf::HostStatus Host(std::string name, std::string status) {
  lsf::HostStatus host;
  host.name = std::move(name);
  host.status = std::move(status);
  return host;
}

// The exposition of `families` alone.
std::string Render(std::vector<metrics::CollectedFamily> families) {
  metrics::Registry registry;
  registry.AddCollector([families = std::move(families)] { return families; });
  return registry.Render();
}

TEST(SnapshotFamiliesTest, ShowsQueuesHostsInflightAndAgesOfTheSnapshot) {
  ManualClock clock;
  ClusterSnapshot snapshot;
  auto load = std::make_shared<LoadState>();
  load->queues.emplace("short", Queue("short", 0, 8, "Open:Inact_Win"));
  load->queues.emplace("normal", Queue("normal", 12, 300, "Open:Active"));
  load->hosts = {Host("node1", "ok"), Host("node2", "unavail"), Host("node3", "ok")};
  snapshot.load = load;
  QueueHostCounts counts;
  counts.slots_by_ib[static_cast<int>(IbHealth::kUnknown)].free = 5;
  counts.slots_by_ib[static_cast<int>(IbHealth::kUnhealthy)].free = 2;
  snapshot.host_counts.emplace("normal", counts);
  snapshot.load_status.last_success = clock.SystemNow() - seconds(30);
  snapshot.topology_status.consecutive_failures = 2;

  const std::string text = Render(SnapshotFamilies(snapshot, {{"normal", 4}}, clock.SystemNow()));
  EXPECT_THAT(text, HasSubstr("bplace_queue_pending_slots{queue=\"normal\"} 12\n"
                              "bplace_queue_pending_slots{queue=\"short\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("bplace_queue_running_slots{queue=\"normal\"} 300\n"));
  EXPECT_THAT(text, HasSubstr("bplace_queue_free_slots{queue=\"normal\"} 7\n"
                              "bplace_queue_free_slots{queue=\"short\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("bplace_queue_inflight_slots{queue=\"normal\"} 4\n"
                              "bplace_queue_inflight_slots{queue=\"short\"} 0\n"));
  EXPECT_THAT(text,
              HasSubstr("bplace_queue_status{queue=\"short\",status=\"Open:Inact_Win\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_hosts{status=\"ok\",ib=\"unknown\"} 2\n"
                              "bplace_hosts{status=\"unavail\",ib=\"unknown\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_refresh_data_age_seconds{tier=\"load\"} 30\n"));
  // A tier that never succeeded has no age, but its failures show.
  EXPECT_THAT(text, Not(HasSubstr("bplace_refresh_data_age_seconds{tier=\"topology\"}")));
  EXPECT_THAT(text, HasSubstr("bplace_refresh_consecutive_failures{tier=\"topology\"} 2\n"));
}

TEST(SnapshotFamiliesTest, AnEmptySnapshotHasEmptyFamilies) {
  const std::string text = Render(SnapshotFamilies(ClusterSnapshot{}, {}, SystemTime{}));
  EXPECT_THAT(text, HasSubstr("# TYPE bplace_queue_pending_slots gauge\n# HELP"));
  EXPECT_THAT(text, Not(HasSubstr("queue=")));
}

TEST(DaemonMetricsTest, CountsRefreshRunsFromPublishedTierStatus) {
  metrics::Registry registry;
  DaemonMetrics metrics(registry);
  ClusterSnapshot before;
  ClusterSnapshot after = before;
  after.load_status.successes = 1;
  after.load_status.last_duration = std::chrono::milliseconds(250);
  metrics.OnPublish(before, after);
  ClusterSnapshot failed = after;
  failed.load_status.consecutive_failures = 1;
  failed.load_status.last_duration = std::chrono::milliseconds(20000);
  metrics.OnPublish(after, failed);
  metrics.OnPublish(failed, failed);  // a publish of other data: no run
  const std::string text = registry.Render();
  EXPECT_THAT(text, HasSubstr("bplace_refresh_runs_total{tier=\"load\",outcome=\"success\"} 1\n"
                              "bplace_refresh_runs_total{tier=\"load\",outcome=\"failure\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_refresh_runs_total{tier=\"jobs\",outcome=\"success\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("bplace_refresh_duration_seconds_bucket{tier=\"load\",le=\"0.25\"} "
                              "1\n"));
  EXPECT_THAT(text,
              HasSubstr("bplace_refresh_duration_seconds_bucket{tier=\"load\",le=\"10\"} 1\n"
                        "bplace_refresh_duration_seconds_bucket{tier=\"load\",le=\"30\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("bplace_refresh_duration_seconds_sum{tier=\"load\"} 20.25\n"));
}

TEST(DaemonMetricsTest, CountsPlacementsAndSubmissionsByOutcomeAndQueue) {
  metrics::Registry registry;
  DaemonMetrics metrics(registry);
  Placement placed;
  placed.candidates.emplace_back();
  placed.candidates.back().queue = "normal";
  metrics.CountPlacement(placed);
  metrics.CountPlacement(Placement{});
  metrics.CountPlacement(Fail(ErrorCode::kNotFound, "unknown host"));

  SubmissionResult submitted;
  submitted.queue = "short";
  metrics.CountSubmission(submitted);
  SubmissionResult refused;
  refused.error = Error{ErrorCode::kRejected, "Bad -R"};
  refused.attempts.push_back({"normal", {}, "job_rejected", "Bad -R", {}});
  metrics.CountSubmission(refused);

  const std::string text = registry.Render();
  EXPECT_THAT(text, HasSubstr("bplace_placements_total{outcome=\"placed\",queue=\"normal\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_placements_total{outcome=\"no_queue\",queue=\"\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("bplace_placements_total{outcome=\"not_found\",queue=\"\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("bplace_submissions_total{outcome=\"submitted\",queue=\"short\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("bplace_submissions_total{outcome=\"rejected\",queue=\"normal\"} 1\n"));
}

TEST(RateLimitFamiliesTest, ShowsTheLimiterRefusals) {
  RateLimiterOptions options;
  options.submit_burst = 1;
  options.submit_per_minute = 1;
  RateLimiter limiter(options);
  const RateLimiter::Clock::time_point now{};
  EXPECT_TRUE(limiter.AdmitSubmission("alice", now).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", now).allowed);
  EXPECT_FALSE(limiter.AdmitSubmission("alice", now).allowed);
  const std::string text = Render(RateLimitFamilies(&limiter));
  EXPECT_THAT(text, HasSubstr("# TYPE bplace_rate_limit_refusals_total counter\n"));
  EXPECT_THAT(text, HasSubstr("bplace_rate_limit_refusals_total{limit=\"submit_per_user\"} 2\n"
                              "bplace_rate_limit_refusals_total{limit=\"lsf_calls\"} 0\n"));
  EXPECT_THAT(text, Not(HasSubstr("alice")));
}

}  // namespace
}  // namespace bplace
