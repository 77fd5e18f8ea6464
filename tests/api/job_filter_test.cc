// The query of GET /v1/jobs and the page it selects (api/job_filter.h).

#include "api/job_filter.h"

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bplace::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

RouteParams Query(std::vector<std::pair<std::string, std::string>> query) {
  RouteParams params;
  params.query = std::move(query);
  return params;
}

Result<JobFilterQuery> Parse(std::vector<std::pair<std::string, std::string>> query,
                             bool sees_all = false) {
  return ParseJobFilter(Query(std::move(query)), "alice", sees_all);
}

SystemTime At(std::int64_t epoch_s) { return SystemTime(std::chrono::seconds(epoch_s)); }

TEST(ParseJobFilter, DefaultsToTheCallersJobsAHundredAtATime) {
  const auto filter = Parse({});
  ASSERT_TRUE(filter) << filter.error().message;
  EXPECT_EQ(filter->user, "alice");
  EXPECT_TRUE(filter->statuses.empty());
  EXPECT_EQ(filter->limit, 100u);
  EXPECT_FALSE(filter->label || filter->since || filter->after);
}

TEST(ParseJobFilter, ReadsEveryParameter) {
  const auto filter = Parse({{"status", "RUN,PEND,SUBMITTED"},
                             {"label", "run=a=b"},
                             {"since", "2026-12-01T10:00:00.250+01:00"},
                             {"limit", "1000"},
                             {"cursor", "5.6.7"},
                             {"wait_s", "30"}});
  ASSERT_TRUE(filter) << filter.error().message;
  EXPECT_EQ(filter->statuses, (std::set<std::string>{"RUN", "PEND", "SUBMITTED"}));
  EXPECT_EQ(filter->label, std::make_pair(std::string("run"), std::string("a=b")));
  EXPECT_EQ(filter->since, At(1796115600));  // 09:00:00Z; the fraction is dropped
  EXPECT_EQ(filter->limit, 1000u);
  EXPECT_EQ(filter->after, std::make_tuple(std::int64_t{5}, std::int64_t{6}, std::int64_t{7}));
}

TEST(ParseJobFilter, SinceTakesEpochSecondsAndUtc) {
  EXPECT_EQ(Parse({{"since", "1796119200"}})->since, At(1796119200));
  EXPECT_EQ(Parse({{"since", "2026-12-01T10:00:00Z"}})->since, At(1796119200));
  EXPECT_EQ(Parse({{"since", "2026-12-01T10:00:00-00:30"}})->since, At(1796121000));
}

TEST(ParseJobFilter, EachBadValueIsNamed) {
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{"status", "RUN,NOPE"}, "status: `NOPE` is not a job state"},
      {{"status", "RUN,"}, "status: `` is not a job state"},
      {{"label", "=x"}, "label: expected KEY=VALUE"},
      {{"label", "x"}, "label: expected KEY=VALUE"},
      {{"since", "2026-13-01T10:00:00Z"}, "since: expected an RFC 3339 time"},
      {{"since", "2026-12-01T10:00:00"}, "since: expected an RFC 3339 time"},
      {{"since", "yesterday"}, "since: expected an RFC 3339 time"},
      {{"limit", "0"}, "limit: expected 1 to 1000, got `0`"},
      {{"limit", "1001"}, "limit: expected 1 to 1000"},
      {{"limit", "ten"}, "limit: expected 1 to 1000"},
      {{"cursor", "5.6"}, "cursor: not a next_cursor of this daemon"},
      {{"cursor", "5.6.7x"}, "cursor: not a next_cursor of this daemon"},
      {{"queue", "normal"}, "queue: unknown query parameter"},
  };
  for (const auto& [param, message] : cases) {
    const auto filter = Parse({param});
    ASSERT_FALSE(filter) << param.first << "=" << param.second;
    EXPECT_EQ(filter.error().code, ErrorCode::kInvalidArgument);
    EXPECT_THAT(filter.error().message, HasSubstr(message)) << param.first << "=" << param.second;
  }
  EXPECT_EQ(Parse({{"limit", "5"}, {"limit", "6"}}).error().message, "limit: given more than once");
}

TEST(ParseJobFilter, OtherUsersJobsNeedToSeeAll) {
  EXPECT_EQ(Parse({{"user", "alice"}})->user, "alice");
  const auto refused = Parse({{"user", "bob"}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kPermissionDenied);
  EXPECT_FALSE(Parse({{"user", "all"}}));
  EXPECT_EQ(Parse({{"user", "bob"}}, true)->user, "bob");
  EXPECT_EQ(Parse({{"user", "all"}}, true)->user, "");  // every user
}

JobTable Table() {
  JobTable table;
  const auto add = [&](std::int64_t id, std::string user, std::string status, std::int64_t at,
                       bool by_bplace, std::map<std::string, std::string> labels = {}) {
    JobView view;
    view.lsf.job_id = std::to_string(id);
    view.lsf.user = std::move(user);
    view.lsf.status = std::move(status);
    view.submitted_by_bplace = by_bplace;
    view.submitted_at = At(at);
    view.labels = std::move(labels);
    table.jobs[JobKey{id, 0}] = std::make_shared<const JobView>(std::move(view));
  };
  add(1, "alice", "DONE", 100, true, {{"run", "a"}});
  add(2, "alice", "RUN", 200, true, {{"run", "b"}});
  add(3, "bob", "PEND", 300, true);
  add(4, "alice", "PEND", 400, false);  // not submitted through bplace
  add(5, "alice", "PEND", 500, true, {{"run", "a"}});
  return table;
}

std::vector<std::string> Ids(const json& page) {
  std::vector<std::string> ids;
  for (const json& job : page["jobs"]) ids.push_back(job["id"].get<std::string>());
  return ids;
}

TEST(JobPage, BplacesJobsOfTheFilterNewestFirst) {
  const JobTable table = Table();
  EXPECT_EQ(Ids(JobPage(table, *Parse({}), nullptr)), (std::vector<std::string>{"5", "2", "1"}));
  EXPECT_EQ(Ids(JobPage(table, *Parse({{"user", "all"}}, true), nullptr)),
            (std::vector<std::string>{"5", "3", "2", "1"}));
  EXPECT_EQ(Ids(JobPage(table, *Parse({{"status", "RUN,DONE"}}), nullptr)),
            (std::vector<std::string>{"2", "1"}));
  EXPECT_EQ(Ids(JobPage(table, *Parse({{"label", "run=a"}}), nullptr)),
            (std::vector<std::string>{"5", "1"}));
  EXPECT_EQ(Ids(JobPage(table, *Parse({{"since", "200"}}), nullptr)),
            (std::vector<std::string>{"5", "2"}));
}

TEST(JobPage, TheCursorOfAFullPageStartsTheNextOne) {
  const JobTable table = Table();
  const json first = JobPage(table, *Parse({{"limit", "2"}}), nullptr);
  EXPECT_EQ(Ids(first), (std::vector<std::string>{"5", "2"}));
  const std::string cursor = first["next_cursor"];
  ASSERT_FALSE(cursor.empty());
  const json second = JobPage(table, *Parse({{"limit", "2"}, {"cursor", cursor}}), nullptr);
  EXPECT_EQ(Ids(second), (std::vector<std::string>{"1"}));
  EXPECT_EQ(second["next_cursor"], "");                                             // the last page
  EXPECT_EQ(JobPage(table, *Parse({{"limit", "3"}}), nullptr)["next_cursor"], "");  // exactly full
}

}  // namespace
}  // namespace bplace::api
