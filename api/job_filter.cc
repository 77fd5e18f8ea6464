#include "api/job_filter.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <sstream>
#include <vector>

#include "api/job_json.h"
#include "common/nanos.h"
#include "lsf_adapter/job_record.h"

namespace bplace::api {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxLimit = 1000;

std::optional<std::int64_t> Integer(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "2026-12-01T10:00:00Z", with optional fraction and a "+01:00" offset, or
// epoch seconds.
std::optional<SystemTime> ParseTime(std::string_view text) {
  if (auto epoch = Integer(text)) return SystemTime(std::chrono::seconds(*epoch));
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  const auto y = Integer(text.substr(0, 4)), mo = Integer(text.substr(5, 2)),
             d = Integer(text.substr(8, 2)), h = Integer(text.substr(11, 2)),
             mi = Integer(text.substr(14, 2)), sec = Integer(text.substr(17, 2));
  if (!y || !mo || !d || !h || !mi || !sec) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(int(*y)),
                                         std::chrono::month(unsigned(*mo)),
                                         std::chrono::day(unsigned(*d))};
  if (!date.ok() || *h > 23 || *mi > 59 || *sec > 60) return std::nullopt;
  std::string_view rest = text.substr(19);
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest.remove_prefix(1);
  }
  std::chrono::minutes offset{0};
  if (rest == "Z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    const auto oh = Integer(rest.substr(1, 2)), om = Integer(rest.substr(4, 2));
    if (!oh || !om) return std::nullopt;
    offset = std::chrono::minutes(*oh * 60 + *om) * (rest[0] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  return std::chrono::sys_days(date) + std::chrono::hours(*h) + std::chrono::minutes(*mi) +
         std::chrono::seconds(*sec) - offset;
}

bool KnownStatus(std::string_view status) {
  return status == kSubmittedStatus || lsf::JobStatusOf(status) != lsf::JobStatus::kUnrecognized;
}

}  // namespace

Result<JobFilterQuery> ParseJobFilter(const RouteParams& params, const std::string& self,
                                      bool sees_all) {
  JobFilterQuery filter;
  filter.user = self;
  if (auto known =
          params.OnlyQuery({"user", "status", "label", "since", "limit", "cursor", "wait_s"});
      !known) {
    return tl::unexpected(known.error());
  }
  std::set<std::string> seen;
  for (const auto& [key, value] : params.query) {
    if (!seen.insert(key).second)
      return Fail(ErrorCode::kInvalidArgument, key + ": given more than once");
    if (key == "user") {
      filter.user = value == "all" ? "" : value;
    } else if (key == "status") {
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const std::string status = value.substr(start, comma - start);
        if (!KnownStatus(status)) {
          return Fail(ErrorCode::kInvalidArgument,
                      "status: `" + status + "` is not a job state (PEND, RUN, DONE, EXIT, ...)");
        }
        filter.statuses.insert(status);
        start = comma + 1;
      }
    } else if (key == "label") {
      const std::size_t equals = value.find('=');
      if (equals == std::string::npos || equals == 0) {
        return Fail(ErrorCode::kInvalidArgument, "label: expected KEY=VALUE, got `" + value + "`");
      }
      filter.label = {value.substr(0, equals), value.substr(equals + 1)};
    } else if (key == "since") {
      filter.since = ParseTime(value);
      if (!filter.since) {
        return Fail(ErrorCode::kInvalidArgument,
                    "since: expected an RFC 3339 time or epoch seconds");
      }
    } else if (key == "limit") {
      const auto limit = Integer(value);
      if (!limit || *limit < 1 || *limit > std::int64_t(kMaxLimit)) {
        return Fail(ErrorCode::kInvalidArgument, "limit: expected 1 to 1000, got `" + value + "`");
      }
      filter.limit = std::size_t(*limit);
    } else if (key == "cursor") {
      std::int64_t a = 0, b = 0, c = 0;
      char dot1 = 0, dot2 = 0;
      std::istringstream in(value);
      if (!(in >> a >> dot1 >> b >> dot2 >> c) || dot1 != '.' || dot2 != '.' || !in.eof()) {
        return Fail(ErrorCode::kInvalidArgument, "cursor: not a next_cursor of this daemon");
      }
      filter.after = std::make_tuple(a, b, c);
    }  // wait_s: WaitParam
  }
  if (filter.user != self && !sees_all) {
    return tl::unexpected(Error{ErrorCode::kPermissionDenied,
                                "user: listing other users' jobs than yours (" + self +
                                    ") needs the `admin` scope ([auth] job_visibility = \"own\")"});
  }
  return filter;
}

json JobPage(const JobTable& table, const JobFilterQuery& filter, const WaitCoverage* coverage) {
  using Order = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::vector<std::pair<Order, const JobView*>> selected;
  for (const auto& [key, view] : table.jobs) {
    const JobView& job = *view;
    if (!job.submitted_by_bplace) continue;
    if (!filter.user.empty() && job.lsf.user != filter.user) continue;
    if (!filter.statuses.empty() && !filter.statuses.contains(job.lsf.status)) continue;
    if (filter.label) {
      const auto it = job.labels.find(filter.label->first);
      if (it == job.labels.end() || it->second != filter.label->second) continue;
    }
    const SystemTime at = job.submitted_at.value_or(job.updated_at);
    if (filter.since && at < *filter.since) continue;
    const Order order{ToNanos(at), key.job_id, key.array_index};
    if (filter.after && !(order < *filter.after)) continue;
    selected.emplace_back(order, &job);
  }
  std::sort(selected.begin(), selected.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  json jobs = json::array();
  std::string next;
  for (std::size_t i = 0; i < selected.size() && i < filter.limit; ++i) {
    jobs.push_back(JobJson(*selected[i].second, coverage));
    if (i + 1 == filter.limit && i + 1 < selected.size()) {
      const auto& [a, b, c] = selected[i].first;
      next = std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
    }
  }
  return {{"jobs", jobs}, {"next_cursor", next}};
}

}  // namespace bplace::api
