#include "daemon/cluster/job_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/nanos.h"
#include "lsf_adapter/lsf_time.h"

namespace bplace {
namespace {

std::optional<std::int64_t> Digits(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

std::optional<SystemTime> Time(const std::string& text, const BjobsAnswer& answer) {
  if (text.empty()) return std::nullopt;
  return lsf::ParseLsfTime(text, answer.now, answer.utc_offset_minutes);
}

// A caller's lookup of an id LSF has not listed (yet): neither submitted
// by bplace nor ever seen in bjobs.
bool IsLookup(const JobView& view) { return !view.submitted_by_bplace && !view.last_seen_in_lsf; }

// The row of a job LSF reported, on top of what bplace knew (`known`).
JobView Updated(const JobView* known, const lsf::JobRecord& record, const BjobsAnswer& answer) {
  JobView view = known ? *known : JobView{};
  view.lsf = record;
  view.submit_time = Time(record.submit_time, answer);
  view.start_time = Time(record.start_time, answer);
  view.finish_time = Time(record.finish_time, answer);
  if (view.start_time && !(known && known->start_time)) {
    view.start_seen_at = answer.now;
    if (known) view.start_not_before = known->last_seen_in_lsf;
  } else if (!view.start_time) {
    view.start_seen_at.reset();
    view.start_not_before.reset();
  }
  // The table form has no exit code; keep one a -l reading gave before.
  if (!record.exit_code && known && known->lsf.exit_code) view.lsf.exit_code = known->lsf.exit_code;
  view.terminal = lsf::IsTerminalJobStatus(record.status);
  view.last_seen_in_lsf = answer.now;
  view.misses = 0;
  view.missing_since.reset();
  view.left_lsf = false;
  view.left_lsf_at.reset();
  view.not_found = false;
  if (!view.submitted_at) view.submitted_at = view.submit_time ? view.submit_time : answer.now;
  view.updated_at = answer.now;
  return view;
}

// An asked job the answer did not list; nullopt when its row stays as it
// is (already missing long enough to be confirmed, or concluded). Its
// state is kept: a miss is no news about the job.
std::optional<JobView> Missed(const JobView& known, bool said_not_found,
                              const BjobsAnswer& answer) {
  JobView view = known;
  if (said_not_found && IsLookup(known)) {
    // The -json form answers each asked id with its own ERROR record: LSF's
    // word about this very id, which it has never listed to bplace.
    view.not_found = true;
    view.updated_at = answer.now;
    return view;
  }
  if (known.misses >= kMissesBeforeConfirming) return std::nullopt;
  ++view.misses;
  if (!view.missing_since) view.missing_since = answer.now;
  return view;
}

// A job a bjobs of its id alone said LSF does not know.
JobView Gone(const JobView& known, SystemTime now) {
  JobView view = known;
  if (IsLookup(known)) {
    view.not_found = true;
  } else {
    view.left_lsf = true;
    if (!view.left_lsf_at) view.left_lsf_at = now;
  }
  view.updated_at = now;
  return view;
}

std::optional<JobKey> KeyOfId(const std::string& id) {
  const auto parsed = lsf::ParseJobId(id);
  if (!parsed) return std::nullopt;
  const auto job_id = Digits(parsed->job_id);
  if (!job_id) return std::nullopt;
  return JobKey{*job_id, parsed->array_index};
}

std::string IdOf(const JobKey& key) {
  return key.array_index == 0
             ? std::to_string(key.job_id)
             : std::to_string(key.job_id) + "[" + std::to_string(key.array_index) + "]";
}

// When the lifetime of `view` began, or nullopt while it has none (a job
// bjobs lists, or one bplace submitted and waits to see).
std::optional<SystemTime> LifetimeStart(const JobView& view) {
  if (view.terminal || view.not_found) return view.updated_at;
  if (view.left_lsf) return view.left_lsf_at.value_or(view.updated_at);
  if (view.missing_since) return view.missing_since;
  if (IsLookup(view)) return view.submitted_at.value_or(view.updated_at);
  return std::nullopt;
}

}  // namespace

const JobView* JobTable::Find(const JobKey& key) const {
  const auto it = jobs.find(key);
  return it == jobs.end() ? nullptr : it->second.get();
}

std::vector<const JobView*> JobTable::Elements(std::int64_t job_id) const {
  std::vector<const JobView*> elements;
  for (auto it = jobs.lower_bound(JobKey{job_id, 1});
       it != jobs.end() && it->first.job_id == job_id; ++it) {
    elements.push_back(it->second.get());
  }
  return elements;
}

std::vector<std::string> JobTable::IdsToAsk() const {
  std::vector<std::string> ids;
  for (const auto& [key, view] : jobs) {
    if (view->terminal || view->not_found) continue;
    ids.push_back(IdOf(key));
  }
  return ids;
}

std::vector<std::string> JobTable::IdsToConfirm() const {
  std::vector<std::pair<SystemTime, std::string>> missing;
  for (const auto& [key, view] : jobs) {
    if (view->terminal || view->not_found || view->left_lsf || !view->missing_since) continue;
    if (view->misses < (IsLookup(*view) ? 1 : kMissesBeforeConfirming)) continue;
    missing.emplace_back(*view->missing_since, IdOf(key));
  }
  std::stable_sort(missing.begin(), missing.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> ids;
  for (auto& [since, id] : missing) ids.push_back(std::move(id));
  return ids;
}

std::vector<std::string> JobTable::IdsNeedingExitCode() const {
  std::vector<std::string> ids;
  for (const auto& [key, view] : jobs) {
    if (view->lsf.status != "EXIT" || view->lsf.exit_code || view->exit_checked) continue;
    ids.push_back(view->lsf.IdText());
  }
  return ids;
}

std::shared_ptr<const JobTable> WithExitCodes(const JobTable& before, const ExitCodes& exits) {
  auto after = std::make_shared<JobTable>(before);
  for (const std::string& id : exits.asked) {
    const auto parsed = lsf::ParseJobId(id);
    if (!parsed) continue;
    const JobKey key{std::stoll(parsed->job_id), parsed->array_index};
    const JobView* known = before.Find(key);
    if (known == nullptr) continue;
    JobView view = *known;
    view.exit_checked = true;
    if (const auto it = exits.codes.find(key); it != exits.codes.end() && it->second) {
      view.lsf.exit_code = it->second;
    }
    after->jobs[key] = std::make_shared<const JobView>(std::move(view));
  }
  return after;
}

std::string PrintedStatus(const JobView& job) {
  return job.lsf.status == kSubmittedStatus ? std::string("PEND") : job.lsf.status;
}

JobKey KeyOf(const lsf::JobId& id) { return JobKey{std::stoll(id.job_id), id.array_index}; }

std::optional<JobKey> KeyOf(const lsf::JobRecord& record) {
  const auto id = Digits(record.job_id);
  if (!id || record.array_index < 0) return std::nullopt;
  return JobKey{*id, record.array_index};
}

std::shared_ptr<const JobTable> MergeBjobs(const JobTable& before, const BjobsAnswer& answer) {
  auto after = std::make_shared<JobTable>(before);
  std::erase_if(after->jobs, [](const auto& item) { return item.second->not_found; });
  // Sorted once all are in (LSF lists them mostly in order): no node per job.
  std::vector<JobKey> reported;
  std::vector<JobKey> said_not_found;
  reported.reserve(answer.records.size());
  for (const lsf::JobRecord& record : answer.records) {
    const auto key = KeyOf(record);
    if (!key) continue;
    if (record.not_found) {
      said_not_found.push_back(*key);
      continue;
    }
    const JobView* known = before.Find(*key);
    // An element of an array asked for as a whole inherits the job's row.
    const JobView* parent = key->array_index > 0 ? before.Find(JobKey{key->job_id, 0}) : nullptr;
    // Only jobs we follow: the table form lists every job of the cluster.
    if (known == nullptr && parent == nullptr) continue;
    after->jobs[*key] =
        std::make_shared<const JobView>(Updated(known ? known : parent, record, answer));
    reported.push_back(*key);
    if (parent) after->jobs.erase(JobKey{key->job_id, 0});
  }
  std::sort(reported.begin(), reported.end());
  std::sort(said_not_found.begin(), said_not_found.end());
  const auto in = [](const std::vector<JobKey>& keys, const JobKey& key) {
    return std::binary_search(keys.begin(), keys.end(), key);
  };
  for (const std::string& id : answer.asked) {
    const auto key = KeyOfId(id);
    if (!key || in(reported, *key) || !after->jobs.contains(*key)) continue;
    if (key->array_index == 0 && !after->Elements(key->job_id).empty()) continue;
    if (auto missed = Missed(*after->jobs[*key], in(said_not_found, *key), answer)) {
      after->jobs[*key] = std::make_shared<const JobView>(std::move(*missed));
    }
  }
  for (const std::string& id : answer.confirmed_gone) {
    const auto key = KeyOfId(id);
    if (!key || in(reported, *key) || !after->jobs.contains(*key)) continue;
    const JobView& known = *after->jobs[*key];
    if (known.terminal || known.not_found || known.left_lsf) continue;
    after->jobs[*key] = std::make_shared<const JobView>(Gone(known, answer.now));
  }
  return after;
}

std::shared_ptr<const JobTable> WithoutOldJobs(const JobTable& before, SystemTime cutoff) {
  auto after = std::make_shared<JobTable>(before);
  std::erase_if(after->jobs, [cutoff](const auto& item) {
    const auto start = LifetimeStart(*item.second);
    return start && *start < cutoff;
  });
  return after;
}

std::shared_ptr<const JobTable> WithJob(const JobTable& before, JobKey key, JobView job) {
  auto after = std::make_shared<JobTable>(before);
  after->jobs[key] = std::make_shared<const JobView>(std::move(job));
  return after;
}

}  // namespace bplace

namespace bplace {
namespace {

using nlohmann::json;

json OptionalTime(const std::optional<SystemTime>& time) {
  return time ? json(ToNanos(*time)) : json();
}

// Every member of JobView but last_seen_in_lsf and updated_at, which a
// refresh that lists an unchanged job moves. A member added to JobView
// belongs here too.
auto StoredContent(const JobView& v) {
  return std::tie(v.lsf, v.submit_time, v.start_time, v.finish_time, v.start_seen_at,
                  v.start_not_before, v.terminal, v.submitted_by_bplace, v.request_id, v.tag,
                  v.idempotency_key, v.labels, v.requested_queue, v.submitted_at, v.predicted_start,
                  v.misses, v.missing_since, v.left_lsf, v.left_lsf_at, v.not_found,
                  v.exit_checked);
}

// The period of kStoredSeenPeriod that `time` falls in for the row of
// `key`: each key has its own phase (a multiplicative hash of it), so that
// the rows one refresh lists do not all start a period at once.
std::int64_t SeenPeriod(const JobKey& key, SystemTime time) {
  constexpr std::int64_t period =
      std::chrono::duration_cast<std::chrono::nanoseconds>(kStoredSeenPeriod).count();
  const std::uint64_t hash = static_cast<std::uint64_t>(key.job_id) * 2654435761u +
                             static_cast<std::uint64_t>(key.array_index);
  return (ToNanos(time) + static_cast<std::int64_t>(hash % period)) / period;
}

std::optional<SystemTime> ReadTime(const json& value) {
  if (!value.is_number_integer()) return std::nullopt;
  return FromNanos(value.get<std::int64_t>());
}

json RecordJson(const lsf::JobRecord& r) {
  json hosts = json::array();
  for (const lsf::ExecHost& host : r.exec_hosts) hosts.push_back({host.name, host.slots});
  return {{"job_id", r.job_id},
          {"array_index", r.array_index},
          {"user", r.user},
          {"status", r.status},
          {"exit_code", r.exit_code ? json(*r.exit_code) : json()},
          {"exit_reason", r.exit_reason},
          {"pend_reason", r.pend_reason},
          {"queue", r.queue},
          {"submit_time", r.submit_time},
          {"start_time", r.start_time},
          {"finish_time", r.finish_time},
          {"exec_hosts", hosts},
          {"slots", r.slots},
          {"job_name", r.job_name},
          {"job_description", r.job_description},
          {"from_host", r.from_host},
          {"project", r.project}};
}

lsf::JobRecord ReadRecord(const json& j) {
  lsf::JobRecord r;
  r.job_id = j.value("job_id", "");
  r.array_index = j.value("array_index", std::int64_t{0});
  r.user = j.value("user", "");
  r.status = j.value("status", "");
  if (j.contains("exit_code") && j["exit_code"].is_number_integer()) {
    r.exit_code = j["exit_code"].get<int>();
  }
  r.exit_reason = j.value("exit_reason", "");
  r.pend_reason = j.value("pend_reason", "");
  r.queue = j.value("queue", "");
  r.submit_time = j.value("submit_time", "");
  r.start_time = j.value("start_time", "");
  r.finish_time = j.value("finish_time", "");
  if (j.contains("exec_hosts") && j["exec_hosts"].is_array()) {
    for (const json& host : j["exec_hosts"]) {
      if (host.is_array() && host.size() == 2 && host[0].is_string() &&
          host[1].is_number_integer()) {
        r.exec_hosts.push_back({host[0].get<std::string>(), host[1].get<std::int64_t>()});
      }
    }
  }
  r.slots = j.value("slots", std::int64_t{0});
  r.job_name = j.value("job_name", "");
  r.job_description = j.value("job_description", "");
  r.from_host = j.value("from_host", "");
  r.project = j.value("project", "");
  return r;
}

json PredictionJson(const std::optional<StartPrediction>& prediction) {
  if (!prediction) return json();
  return {{"method", prediction->method},
          {"p50_s", prediction->p50_s ? json(*prediction->p50_s) : json()},
          {"bound_s", prediction->bound_s ? json(*prediction->bound_s) : json()},
          {"quantile", prediction->quantile},
          {"confidence", prediction->confidence},
          {"samples", prediction->samples},
          {"backlog", prediction->backlog ? json(*prediction->backlog) : json()}};
}

std::optional<std::int64_t> ReadSeconds(const json& value) {
  if (!value.is_number_integer()) return std::nullopt;
  return value.get<std::int64_t>();
}

std::optional<StartPrediction> ReadPrediction(const json& value) {
  if (!value.is_object() || !value.contains("method") || !value["method"].is_string()) {
    return std::nullopt;
  }
  StartPrediction prediction;
  prediction.method = value["method"].get<std::string>();
  prediction.p50_s = ReadSeconds(value.value("p50_s", json()));
  prediction.bound_s = ReadSeconds(value.value("bound_s", json()));
  const json quantile = value.value("quantile", json());
  const json confidence = value.value("confidence", json());
  prediction.quantile = quantile.is_number() ? quantile.get<double>() : 0.0;
  prediction.confidence = confidence.is_number() ? confidence.get<double>() : 0.0;
  prediction.samples = ReadSeconds(value.value("samples", json())).value_or(0);
  const json backlog = value.value("backlog", json());
  if (backlog.is_number() && std::isfinite(backlog.get<double>()) && backlog.get<double>() >= 0) {
    prediction.backlog = backlog.get<double>();
  }
  return prediction;
}

}  // namespace

StoreWrite StoreWriteFor(const JobKey& key, const JobView& before, const JobView& after) {
  if (&before == &after) return StoreWrite::kNothing;
  if (!before.last_seen_in_lsf || !after.last_seen_in_lsf ||
      StoredContent(before) != StoredContent(after)) {
    return StoreWrite::kRow;
  }
  if (before.last_seen_in_lsf == after.last_seen_in_lsf) {
    return before.updated_at == after.updated_at ? StoreWrite::kNothing : StoreWrite::kRow;
  }
  return SeenPeriod(key, *before.last_seen_in_lsf) == SeenPeriod(key, *after.last_seen_in_lsf)
             ? StoreWrite::kNothing
             : StoreWrite::kSeen;
}

TrackedJob ToTracked(const JobKey& key, const JobView& view) {
  TrackedJob row;
  row.job_id = key.job_id;
  row.array_index = key.array_index;
  row.user = view.lsf.user;
  row.queue = view.lsf.queue;
  row.status = view.lsf.status;
  row.terminal = view.terminal;
  const json record = {{"lsf", RecordJson(view.lsf)},
                       {"submit_time", OptionalTime(view.submit_time)},
                       {"start_time", OptionalTime(view.start_time)},
                       {"finish_time", OptionalTime(view.finish_time)},
                       {"start_seen_at", OptionalTime(view.start_seen_at)},
                       {"start_not_before", OptionalTime(view.start_not_before)},
                       {"submitted_by_bplace", view.submitted_by_bplace},
                       {"idempotency_key", view.idempotency_key},
                       {"requested_queue", view.requested_queue},
                       {"predicted_start", PredictionJson(view.predicted_start)},
                       {"left_lsf", view.left_lsf},
                       {"left_lsf_at", OptionalTime(view.left_lsf_at)},
                       {"misses", view.misses},
                       {"missing_since", OptionalTime(view.missing_since)},
                       {"not_found", view.not_found},
                       {"exit_checked", view.exit_checked}};
  row.lsf_record = record.dump(-1, ' ', false, json::error_handler_t::replace);
  if (!view.request_id.empty()) row.request_id = view.request_id;
  if (!view.tag.empty()) row.tag = view.tag;
  row.labels = view.labels;
  row.submitted_at = view.submitted_at.value_or(view.updated_at);
  row.updated_at = view.updated_at;
  row.last_seen_in_lsf = view.last_seen_in_lsf;
  return row;
}

Result<std::pair<JobKey, JobView>> FromTracked(const TrackedJob& row) {
  const json record = json::parse(row.lsf_record, nullptr, false);
  if (record.is_discarded() || !record.is_object() || !record.contains("lsf") ||
      !record["lsf"].is_object()) {
    return Fail(ErrorCode::kParseError,
                "job " + std::to_string(row.job_id) + ": unreadable record in the state store");
  }
  JobView view;
  view.lsf = ReadRecord(record["lsf"]);
  view.submit_time = ReadTime(record.value("submit_time", json()));
  view.start_time = ReadTime(record.value("start_time", json()));
  view.finish_time = ReadTime(record.value("finish_time", json()));
  view.start_seen_at = ReadTime(record.value("start_seen_at", json()));
  view.start_not_before = ReadTime(record.value("start_not_before", json()));
  view.terminal = row.terminal;
  view.submitted_by_bplace = record.value("submitted_by_bplace", false);
  view.request_id = row.request_id.value_or("");
  view.tag = row.tag.value_or("");
  view.idempotency_key = record.value("idempotency_key", "");
  view.labels = row.labels;
  view.requested_queue = record.value("requested_queue", "");
  view.predicted_start = ReadPrediction(record.value("predicted_start", json()));
  view.submitted_at = row.submitted_at;
  view.last_seen_in_lsf = row.last_seen_in_lsf;
  view.left_lsf = record.value("left_lsf", false);
  view.left_lsf_at = ReadTime(record.value("left_lsf_at", json()));
  const json misses = record.value("misses", json());
  view.misses =
      misses.is_number_integer() ? std::clamp(misses.get<int>(), 0, kMissesBeforeConfirming) : 0;
  view.missing_since = ReadTime(record.value("missing_since", json()));
  view.not_found = record.value("not_found", false);
  view.exit_checked = record.value("exit_checked", false);
  view.updated_at = row.updated_at;
  return std::make_pair(JobKey{row.job_id, row.array_index}, std::move(view));
}

}  // namespace bplace
