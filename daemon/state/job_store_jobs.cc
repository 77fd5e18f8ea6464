// JobStore's tracked jobs: upserts from bjobs, MarkSeen, deletion, the
// look-ups, ListJobs' keyset pages, and retention (Prune). Opening, the
// schema's migration, the sync level and the submissions are in
// job_store.cc; docs in job_store.h.

#include "daemon/state/job_store.h"

#include <array>
#include <charconv>
#include <cstddef>
#include <utility>

#include "daemon/state/job_store_columns.h"

namespace bplace {

namespace {

constexpr int kMaxPageSize = 1000;

constexpr const char* kJobColumns =
    "j.job_id, j.array_index, j.user, j.queue, j.status, j.terminal, j.lsf_record, "
    "j.request_id, j.tag, j.labels, j.submitted_at_ns, j.updated_at_ns, j.last_seen_in_lsf_ns";

Result<TrackedJob> ReadJob(const SqliteStatement& row, const std::string& path) {
  TrackedJob job;
  job.job_id = row.Int(0);
  job.array_index = row.Int(1);
  job.user = row.Text(2);
  job.queue = row.Text(3);
  job.status = row.Text(4);
  job.terminal = row.Int(5) != 0;
  job.lsf_record = row.Text(6);
  job.request_id = row.OptionalText(7);
  job.tag = row.OptionalText(8);
  const std::string where =
      path + ": job " + std::to_string(job.job_id) + "[" + std::to_string(job.array_index) + "]";
  Result<std::map<std::string, std::string>> labels = LabelsFromJson(row.Text(9), where);
  if (!labels) return tl::unexpected(labels.error());
  job.labels = std::move(*labels);
  job.submitted_at = FromNanos(row.Int(10));
  job.updated_at = FromNanos(row.Int(11));
  job.last_seen_in_lsf = FromNanos(row.OptionalInt(12));
  return job;
}

// The cursor is "c1.<submitted_at_ns>.<job_id>.<array_index>" of the last
// row of a page: URL-safe as it is, versioned so that its form may change.
std::string MakeCursor(const TrackedJob& job) {
  return "c1." + std::to_string(ToNanos(job.submitted_at)) + "." + std::to_string(job.job_id) +
         "." + std::to_string(job.array_index);
}

std::optional<std::array<std::int64_t, 3>> ParseCursor(std::string_view cursor) {
  if (!cursor.starts_with("c1.")) return std::nullopt;
  cursor.remove_prefix(3);
  std::array<std::int64_t, 3> parts{};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const char* end = cursor.data() + cursor.size();
    const auto [next, error] = std::from_chars(cursor.data(), end, parts[i]);
    if (error != std::errc() || next == cursor.data()) return std::nullopt;
    cursor.remove_prefix(static_cast<std::size_t>(next - cursor.data()));
    const bool last = i + 1 == parts.size();
    if (last) return cursor.empty() ? std::optional(parts) : std::nullopt;
    if (!cursor.starts_with('.')) return std::nullopt;
    cursor.remove_prefix(1);
  }
  return std::nullopt;
}

// The statements of UpsertJobs, compiled once per call rather than per job.
struct JobWriter {
  SqliteStatement upsert;
  SqliteStatement delete_labels;
  SqliteStatement insert_label;
};

Result<JobWriter> PrepareJobWriter(SqliteDb& db) {
  Result<SqliteStatement> upsert = db.Prepare(
      "INSERT INTO tracked_jobs (job_id, array_index, user, queue, status, terminal, lsf_record,"
      " request_id, tag, labels, submitted_at_ns, updated_at_ns, last_seen_in_lsf_ns)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
      " ON CONFLICT (job_id, array_index) DO UPDATE SET"
      " user = excluded.user, queue = excluded.queue, status = excluded.status,"
      " terminal = excluded.terminal, lsf_record = excluded.lsf_record,"
      " request_id = COALESCE(excluded.request_id, request_id),"
      " tag = COALESCE(excluded.tag, tag),"
      " labels = CASE WHEN excluded.labels = '{}' THEN labels ELSE excluded.labels END,"
      " updated_at_ns = excluded.updated_at_ns,"
      " last_seen_in_lsf_ns = COALESCE(excluded.last_seen_in_lsf_ns, last_seen_in_lsf_ns)",
      "upsert job");
  if (!upsert) return tl::unexpected(upsert.error());
  Result<SqliteStatement> delete_labels = db.Prepare(
      "DELETE FROM job_labels WHERE job_id = ?1 AND array_index = ?2", "delete job labels");
  if (!delete_labels) return tl::unexpected(delete_labels.error());
  // The job's own submitted_at (the first insert's), not the one given now.
  Result<SqliteStatement> insert_label = db.Prepare(
      "INSERT INTO job_labels (job_id, array_index, label_key, label_value, submitted_at_ns)"
      " SELECT job_id, array_index, ?3, ?4, submitted_at_ns FROM tracked_jobs"
      " WHERE job_id = ?1 AND array_index = ?2",
      "insert job label");
  if (!insert_label) return tl::unexpected(insert_label.error());
  return JobWriter{std::move(*upsert), std::move(*delete_labels), std::move(*insert_label)};
}

// Rewrites the job_labels rows of `job` from its labels.
Result<void> WriteLabels(JobWriter& writer, const TrackedJob& job) {
  writer.delete_labels.Reset();
  writer.delete_labels.Bind(1, job.job_id).Bind(2, job.array_index);
  if (Result<void> done = writer.delete_labels.Run(); !done) return done;
  for (const auto& [key, value] : job.labels) {
    writer.insert_label.Reset();
    writer.insert_label.Bind(1, job.job_id)
        .Bind(2, job.array_index)
        .Bind(3, std::string_view(key))
        .Bind(4, std::string_view(value));
    if (Result<void> done = writer.insert_label.Run(); !done) return done;
  }
  return {};
}

Result<void> WriteJob(JobWriter& writer, const TrackedJob& job) {
  SqliteStatement& upsert = writer.upsert;
  upsert.Reset();
  std::optional<std::int64_t> last_seen;
  if (job.last_seen_in_lsf) last_seen = ToNanos(*job.last_seen_in_lsf);
  upsert.Bind(1, job.job_id)
      .Bind(2, job.array_index)
      .Bind(3, std::string_view(job.user))
      .Bind(4, std::string_view(job.queue))
      .Bind(5, std::string_view(job.status))
      .Bind(6, std::int64_t{job.terminal ? 1 : 0})
      .Bind(7, std::string_view(job.lsf_record))
      .Bind(8, job.request_id)
      .Bind(9, job.tag)
      .Bind(10, std::string_view(LabelsToJson(job.labels)))
      .Bind(11, ToNanos(job.submitted_at))
      .Bind(12, ToNanos(job.updated_at))
      .Bind(13, last_seen);
  if (Result<void> done = upsert.Run(); !done) return done;
  // No labels: a refresh from bjobs, which keeps the stored ones.
  if (job.labels.empty()) return {};
  return WriteLabels(writer, job);
}

}  // namespace

// --- Tracked jobs -----------------------------------------------------------

Result<void> JobStore::UpsertJobs(const std::vector<TrackedJob>& jobs) {
  for (const TrackedJob& job : jobs) {
    if (job.job_id <= 0 || job.array_index < 0) {
      return Fail(ErrorCode::kInvalidArgument, "bad job id " + std::to_string(job.job_id) + "[" +
                                                   std::to_string(job.array_index) + "]");
    }
  }
  std::lock_guard lock(mutex_);
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kNormal);
  if (!transaction) return tl::unexpected(transaction.error());
  Result<JobWriter> writer = PrepareJobWriter(db_);
  if (!writer) return tl::unexpected(writer.error());
  for (const TrackedJob& job : jobs) {
    if (Result<void> done = WriteJob(*writer, job); !done) return done;
  }
  return transaction->Commit();
}

Result<void> JobStore::MarkSeen(const std::vector<JobSeen>& seen) {
  std::lock_guard lock(mutex_);
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kNormal);
  if (!transaction) return tl::unexpected(transaction.error());
  Result<SqliteStatement> mark = db_.Prepare(
      "UPDATE tracked_jobs SET last_seen_in_lsf_ns = ?3, updated_at_ns = ?4"
      " WHERE job_id = ?1 AND array_index = ?2",
      "mark jobs seen");
  if (!mark) return tl::unexpected(mark.error());
  for (const JobSeen& job : seen) {
    mark->Reset();
    mark->Bind(1, job.job_id)
        .Bind(2, job.array_index)
        .Bind(3, ToNanos(job.last_seen_in_lsf))
        .Bind(4, ToNanos(job.updated_at));
    if (Result<void> done = mark->Run(); !done) return done;
  }
  return transaction->Commit();
}

Result<std::size_t> JobStore::DeleteJobs(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& keys) {
  std::lock_guard lock(mutex_);
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kNormal);
  if (!transaction) return tl::unexpected(transaction.error());
  Result<SqliteStatement> remove =
      db_.Prepare("DELETE FROM tracked_jobs WHERE job_id = ?1 AND array_index = ?2", "delete jobs");
  if (!remove) return tl::unexpected(remove.error());
  std::size_t removed = 0;
  for (const auto& [job_id, array_index] : keys) {
    remove->Reset();
    remove->Bind(1, job_id).Bind(2, array_index);
    if (Result<void> done = remove->Run(); !done) return tl::unexpected(done.error());
    removed += static_cast<std::size_t>(db_.Changes());
  }
  if (Result<void> committed = transaction->Commit(); !committed) {
    return tl::unexpected(committed.error());
  }
  return removed;
}

Result<std::vector<TrackedJob>> JobStore::SelectJobs(std::string_view from_where_order,
                                                     const std::vector<SqlValue>& params) {
  const std::string sql =
      std::string("SELECT ") + kJobColumns + " " + std::string(from_where_order);
  Result<SqliteStatement> select = db_.Prepare(sql, "read jobs");
  if (!select) return tl::unexpected(select.error());
  BindAll(*select, params);
  std::vector<TrackedJob> jobs;
  for (;;) {
    const Result<bool> row = select->Step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) return jobs;
    Result<TrackedJob> job = ReadJob(*select, path_);
    if (!job) return tl::unexpected(job.error());
    jobs.push_back(std::move(*job));
  }
}

Result<std::vector<TrackedJob>> JobStore::ActiveJobs() {
  std::lock_guard lock(mutex_);
  return SelectJobs("FROM tracked_jobs j WHERE j.terminal = 0 ORDER BY j.job_id, j.array_index",
                    {});
}

Result<std::optional<TrackedJob>> JobStore::FindJob(std::int64_t job_id, std::int64_t array_index) {
  std::lock_guard lock(mutex_);
  Result<std::vector<TrackedJob>> jobs = SelectJobs(
      "FROM tracked_jobs j WHERE j.job_id = ?1 AND j.array_index = ?2", {job_id, array_index});
  if (!jobs) return tl::unexpected(jobs.error());
  if (jobs->empty()) return std::optional<TrackedJob>();
  return std::optional<TrackedJob>(std::move(jobs->front()));
}

Result<std::vector<TrackedJob>> JobStore::FindArrayJob(std::int64_t job_id) {
  std::lock_guard lock(mutex_);
  return SelectJobs("FROM tracked_jobs j WHERE j.job_id = ?1 ORDER BY j.array_index", {job_id});
}

Result<JobPage> JobStore::ListJobs(const JobFilter& filter) {
  if (filter.limit < 1 || filter.limit > kMaxPageSize) {
    return Fail(ErrorCode::kInvalidArgument, "limit " + std::to_string(filter.limit) +
                                                 " is outside 1.." + std::to_string(kMaxPageSize));
  }
  std::optional<std::array<std::int64_t, 3>> after;
  if (!filter.cursor.empty()) {
    after = ParseCursor(filter.cursor);
    if (!after) return Fail(ErrorCode::kInvalidArgument, "malformed cursor");
  }
  // With a label the label index gives the order (its copy of the keys);
  // otherwise tracked_jobs_by_user or tracked_jobs_newest does.
  const std::string k = filter.label ? "l." : "j.";
  std::string sql = filter.label ? "FROM job_labels l JOIN tracked_jobs j"
                                   " ON j.job_id = l.job_id AND j.array_index = l.array_index"
                                   " WHERE l.label_key = ? AND l.label_value = ?"
                                 : "FROM tracked_jobs j WHERE 1";
  std::vector<SqlValue> params;
  if (filter.label) params = {filter.label->first, filter.label->second};
  if (!filter.user.empty()) {
    sql += " AND j.user = ?";
    params.emplace_back(filter.user);
  }
  if (!filter.statuses.empty()) {
    const char* separator = " AND j.status IN (?";
    for (const std::string& status : filter.statuses) {
      sql += std::exchange(separator, ", ?");
      params.emplace_back(status);
    }
    sql += ")";
  }
  if (filter.since) {
    sql += " AND " + k + "submitted_at_ns >= ?";
    params.emplace_back(ToNanos(*filter.since));
  }
  if (after) {
    sql += " AND (" + k + "submitted_at_ns, " + k + "job_id, " + k + "array_index) < (?, ?, ?)";
    params.insert(params.end(), after->begin(), after->end());
  }
  sql += " ORDER BY " + k + "submitted_at_ns DESC, " + k + "job_id DESC, " + k +
         "array_index DESC LIMIT ?";
  params.emplace_back(std::int64_t{filter.limit} + 1);  // one more: is there a next page?
  std::lock_guard lock(mutex_);
  Result<std::vector<TrackedJob>> jobs = SelectJobs(sql, params);
  if (!jobs) return tl::unexpected(jobs.error());
  JobPage page;
  if (jobs->size() > static_cast<std::size_t>(filter.limit)) {
    jobs->pop_back();
    page.next_cursor = MakeCursor(jobs->back());
  }
  page.jobs = std::move(*jobs);
  return page;
}

// In batches, each its own transaction: deleting tens of thousands of rows
// (and their labels) takes seconds, and a Begin must not wait that long.
Result<std::size_t> JobStore::Prune(SystemTime older_than) {
  std::size_t removed = 0;
  for (const char* sql :
       {"DELETE FROM tracked_jobs WHERE rowid IN (SELECT rowid FROM tracked_jobs"
        " WHERE terminal = 1 AND updated_at_ns < ?1 LIMIT ?2)",
        "DELETE FROM submissions WHERE rowid IN (SELECT rowid FROM submissions"
        " WHERE state IN ('submitted', 'failed') AND updated_at_ns < ?1 LIMIT ?2)"}) {
    for (;;) {
      const Result<std::size_t> batch = PruneBatch(sql, older_than);
      if (!batch) return batch;
      removed += *batch;
      if (*batch < kPruneBatch) break;
    }
  }
  return removed;
}

Result<std::size_t> JobStore::PruneBatch(const char* sql, SystemTime older_than) {
  std::lock_guard lock(mutex_);
  Result<SqliteTransaction> transaction = BeginWrite(Sync::kNormal);
  if (!transaction) return tl::unexpected(transaction.error());
  Result<SqliteStatement> remove = db_.Prepare(sql, "prune");
  if (!remove) return tl::unexpected(remove.error());
  remove->Bind(1, ToNanos(older_than)).Bind(2, static_cast<std::int64_t>(kPruneBatch));
  if (Result<void> done = remove->Run(); !done) return tl::unexpected(done.error());
  // Changes() counts the rows of the statement, not the labels cascaded.
  const auto removed = static_cast<std::size_t>(db_.Changes());
  if (Result<void> committed = transaction->Commit(); !committed) {
    return tl::unexpected(committed.error());
  }
  return removed;
}

}  // namespace bplace
