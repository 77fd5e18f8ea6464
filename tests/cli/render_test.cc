#include "cli/render.h"

#include <gtest/gtest.h>

namespace bplace::cli {
namespace {

using nlohmann::json;

TEST(ProblemLine, DetailThenTitleThenStatus) {
  EXPECT_EQ(ProblemLine(R"({"title":"Not Found","status":404,"detail":"no host x"})", 404),
            "no host x");
  EXPECT_EQ(ProblemLine(R"({"title":"Not Found","status":404})", 404), "Not Found");
  EXPECT_EQ(ProblemLine("<html>", 502), "HTTP 502");
}

TEST(RenderSubmitted, SpeaksAsBsub) {
  EXPECT_EQ(RenderSubmitted({{"job_id", "123"}, {"queue", "normal"}}),
            "Job <123> is submitted to queue <normal>.\n");
}

TEST(RenderKilled, SpeaksAsBkill) {
  const KilledLines lines = RenderKilled(
      {{"results",
        {{{"id", "7"}, {"outcome", "terminating"}, {"message", "Job <7> is being terminated"}},
         {{"id", "8"}, {"outcome", "already_finished"}, {"message", "RUN"}},
         {{"id", "9"}, {"outcome", "permission_denied"}, {"message", "job of bob"}}}}});
  EXPECT_EQ(lines.out, "Job <7> is being terminated\n");
  // LSF's words only: never a state that contradicts them.
  EXPECT_EQ(lines.err,
            "Job <8>: Job has already finished\n"
            "Job <9>: job of bob\n");
}

TEST(RenderPlacement, ListsEveryExcludedQueueWithCodeAndReason) {
  const json placement = {{"user", "alice"},
                          {"host", "node1"},
                          {"chosen", nullptr},
                          {"candidates", json::array()},
                          {"excluded",
                           {{{"queue", "q1"}, {"code", "queue_closed"}, {"reason", "closed"}},
                            {{"queue", "q2"},
                             {"code", "rejected_by_lsf"},
                             {"reason", "refused"},
                             {"until_refresh", "topology"}}}}};
  const std::string out = RenderPlacement(placement, 200);
  EXPECT_EQ(out.rfind("No queue can take the job (for alice on node1)\n", 0), 0u) << out;
  EXPECT_NE(out.find("q1     queue_closed     closed\n"), std::string::npos) << out;
  EXPECT_NE(out.find("refused (until the next topology refresh)"), std::string::npos) << out;
}

TEST(RenderStatus, SickHostsAreThoseWithoutNewWorkOrWithUnhealthyIb) {
  const json hosts = {{"hosts",
                       {{{"host", "a"},
                         {"status", "ok"},
                         {"takes_new_work", true},
                         {"ib", {{"health", "healthy"}}}},
                        {{"host", "b"},
                         {"status", "unavail"},
                         {"takes_new_work", false},
                         {"ib", {{"health", "unknown"}}}},
                        {{"host", "c"},
                         {"status", "ok"},
                         {"takes_new_work", true},
                         {"ib", {{"health", "unhealthy"}, {"reasons", {"port 1 down"}}}}}}}};
  const std::string out = RenderStatus(
      {{{"cluster_name", "x"}, {"ready", true}}, hosts, json::object(), json::object()}, 100);
  EXPECT_NE(out.find("Sick hosts (2 of 3"), std::string::npos) << out;
  EXPECT_NE(out.find("b     unavail  unknown"), std::string::npos) << out;
  EXPECT_NE(out.find("unhealthy (port 1 down)"), std::string::npos) << out;
  EXPECT_EQ(out.find("\na "), std::string::npos) << out;
}

TEST(RenderStatus, ShowsTheIbAndJobsTiersAgesAndErrors) {
  StatusAnswers answers{{{"load", {{"age_s", 3}}}},
                        json::object(),
                        {{"source", "lsload"},
                         {"as_of", "2026-12-01T17:00:10.000Z"},
                         {"age_s", 5.0},
                         {"source_as_of", "2026-12-01T16:59:10.000Z"},
                         {"source_error", "lsload: LIM is down"}},
                        {{"age_s", 12}, {"jobs_error", nullptr}}};
  const std::string out = RenderStatus(answers, 200);
  EXPECT_NE(out.find("ib (lsload)  1m05s  -         lsload: LIM is down\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("jobs         12s    -         -\n"), std::string::npos) << out;
  answers.ib["source"] = "none";
  EXPECT_EQ(RenderStatus(answers, 200).find("ib ("), std::string::npos);
}

TEST(RenderStatus, SaysHowTheWaitBoundsFared) {
  StatusAnswers answers{{{"wait_predictions",
                          {{"learned", 1210},
                           {"predictions", 47},
                           {"within_bound", 45},
                           {"coverage", 45.0 / 47.0},
                           {"quantile", 0.95}}}},
                        json::object(),
                        json::object(),
                        json::object()};
  EXPECT_NE(RenderStatus(answers, 200)
                .find("Wait bounds: 45 of 47 jobs bplace submitted started within their 95% "
                      "bound (coverage 0.96); 1210 waits learned\n"),
            std::string::npos)
      << RenderStatus(answers, 200);
  answers.cluster["wait_predictions"] = nullptr;  // a daemon without a predictor
  EXPECT_EQ(RenderStatus(answers, 200).find("Wait bounds"), std::string::npos);
}

TEST(RenderPlacement, SaysWhenTheChosenQueueStartsTheJobInWords) {
  const json placement = {
      {"chosen", "short"},
      {"user", "alice"},
      {"host", nullptr},
      {"candidates",
       {{{"queue", "short"},
         {"expected_start",
          {{"summary", "~4 min, 95% bound 20 min"}, {"method", "class_history"}}}}}},
      {"excluded", json::array()}};
  const std::string out = RenderPlacement(placement, 200);
  EXPECT_EQ(out.rfind("Chosen: short (for alice): ~4 min, 95% bound 20 min\n", 0), 0u) << out;
  EXPECT_NE(out.find("EXPECTED_START"), std::string::npos) << out;
}

TEST(RenderJob, SaysWhatItsPlacementExpectedAndHowLongItWaited) {
  json job = {
      {"id", "42"},
      {"status", "RUN"},
      {"expected_start", {{"summary", "~4 min, 95% bound 20 min"}, {"method", "class_history"}}},
      {"wait_s", 310},
      {"within_bound", true}};
  std::string out = RenderJob(job, 200);
  EXPECT_NE(out.find("expected_start  ~4 min, 95% bound 20 min\n"), std::string::npos) << out;
  EXPECT_NE(out.find("wait            5m10s (within the bound)\n"), std::string::npos) << out;
  job["within_bound"] = false;
  EXPECT_NE(RenderJob(job, 200).find("(beyond the bound)"), std::string::npos);
  // A job bplace did not place: neither a prediction nor a verdict.
  job["expected_start"] = nullptr;
  job["within_bound"] = nullptr;
  out = RenderJob(job, 200);
  EXPECT_EQ(out.find("expected_start"), std::string::npos) << out;
  EXPECT_NE(out.find("wait        5m10s\n"), std::string::npos) << out;
}

TEST(RenderQueueWaits, ListsEachSizeInWordsThenTheRecentWaits) {
  const json waits = {
      {"queue", "normal"},
      {"recent_waits_s", {30, 90}},
      {"estimates",
       {{{"slots", "1"},
         {"expected_start",
          {{"summary", "~1 min, 95% bound 5 min"}, {"method", "class_history"}, {"samples", 80}}}},
        {{"slots", "2-4"},
         {"expected_start",
          {{"summary", "no waits seen in this queue yet"},
           {"method", "no_history"},
           {"samples", 0}}}}}}};
  const std::string out = RenderQueueWaits(waits, 200);
  EXPECT_NE(out.find("1      ~1 min, 95% bound 5 min"), std::string::npos) << out;
  EXPECT_NE(out.find("Recent waits (s, newest first): 30 90\n"), std::string::npos) << out;
}

TEST(FormatAge, SecondsMinutesHours) {
  EXPECT_EQ(FormatAge(json()), "-");
  EXPECT_EQ(FormatAge(4.4), "4s");
  EXPECT_EQ(FormatAge(130), "2m10s");
  EXPECT_EQ(FormatAge(3 * 3600 + 5 * 60 + 9), "3h05m");
}

}  // namespace
}  // namespace bplace::cli
