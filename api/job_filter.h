#pragma once

// The query of GET /v1/jobs (docs/api.md "Jobs: following and cancelling")
// and the page of bplace's jobs it selects from the jobs tier's table. Pure.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "api/router.h"
#include "common/clock.h"
#include "common/result.h"
#include "daemon/cluster/job_table.h"

namespace bplace {
class WaitCoverage;
}  // namespace bplace

namespace bplace::api {

// What GET /v1/jobs asks for.
struct JobFilterQuery {
  std::string user;                // empty: every user
  std::set<std::string> statuses;  // LSF's words and SUBMITTED; empty: any
  std::optional<std::pair<std::string, std::string>> label;  // KEY=VALUE
  std::optional<SystemTime> since;                           // submitted at or after
  std::size_t limit = 100;                                   // 1..1000 jobs on a page
  // The next_cursor of the previous page: (submitted_at ns, job id, index)
  // of its last job; this page starts after it.
  std::optional<std::tuple<std::int64_t, std::int64_t, std::int64_t>> after;
};

// The query of GET /v1/jobs for a caller named `self`, who may list other
// users' jobs when `sees_all` (admin, or [auth] job_visibility = "all"):
// user=NAME|all (default `self`), status=S,S..., label=KEY=VALUE,
// since=RFC 3339 time ("2026-12-01T10:00:00Z", with an optional fraction and
// a "+01:00" offset) or epoch seconds, limit=1..1000, cursor=; wait_s is
// the route's and left alone. Errors: kInvalidArgument naming the parameter
// (unknown, given twice, or a bad value); kPermissionDenied for another
// user's jobs without `sees_all`.
Result<JobFilterQuery> ParseJobFilter(const RouteParams& params, const std::string& self,
                                      bool sees_all);

// The page of `table` that `filter` selects: jobs submitted through bplace,
// newest first (submission time, then job id and index, descending), as
// {"jobs": [JobJson...], "next_cursor": "" or the cursor of the next page}.
// `coverage` as JobJson takes it.
nlohmann::json JobPage(const JobTable& table, const JobFilterQuery& filter,
                       const WaitCoverage* coverage);

}  // namespace bplace::api
