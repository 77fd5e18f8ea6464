#include "daemon/state/job_store_schema.h"

#include <iterator>

namespace bplace {

namespace {

// Times are integer nanoseconds since the Unix epoch (columns *_ns), exact
// round trips of SystemTime. job_labels repeats its job's submitted_at_ns,
// which never changes, so that the label index hands out rows in ListJobs'
// order and a page stops after `limit` rows instead of sorting every match.
constexpr const char* kSteps[] = {
    R"sql(
CREATE TABLE submissions (
  caller          TEXT    NOT NULL,
  idempotency_key TEXT,
  request_id      TEXT    NOT NULL UNIQUE,
  body_sha256     TEXT    NOT NULL,
  tag             TEXT    NOT NULL UNIQUE,
  labels          TEXT    NOT NULL DEFAULT '{}',
  state           TEXT    NOT NULL
                  CHECK (state IN ('pending', 'submitted', 'failed', 'unknown')),
  job_id          INTEGER,
  http_status     INTEGER,
  response_body   TEXT,
  bsub_pid        INTEGER,
  created_at_ns   INTEGER NOT NULL,
  updated_at_ns   INTEGER NOT NULL,
  UNIQUE (caller, idempotency_key)
);
CREATE INDEX submissions_open ON submissions (created_at_ns)
  WHERE state IN ('pending', 'unknown');
CREATE INDEX submissions_finished ON submissions (updated_at_ns)
  WHERE state IN ('submitted', 'failed');

CREATE TABLE tracked_jobs (
  job_id              INTEGER NOT NULL CHECK (job_id > 0),
  array_index         INTEGER NOT NULL CHECK (array_index >= 0),
  user                TEXT    NOT NULL,
  queue               TEXT    NOT NULL,
  status              TEXT    NOT NULL,
  terminal            INTEGER NOT NULL CHECK (terminal IN (0, 1)),
  lsf_record          TEXT    NOT NULL,
  request_id          TEXT,
  tag                 TEXT,
  labels              TEXT    NOT NULL DEFAULT '{}',
  submitted_at_ns     INTEGER NOT NULL,
  updated_at_ns       INTEGER NOT NULL,
  last_seen_in_lsf_ns INTEGER,
  PRIMARY KEY (job_id, array_index)
);
CREATE INDEX tracked_jobs_newest ON tracked_jobs (submitted_at_ns, job_id, array_index);
CREATE INDEX tracked_jobs_by_user ON tracked_jobs (user, submitted_at_ns, job_id, array_index);
CREATE INDEX tracked_jobs_active ON tracked_jobs (job_id, array_index) WHERE terminal = 0;
CREATE INDEX tracked_jobs_prunable ON tracked_jobs (updated_at_ns) WHERE terminal = 1;

CREATE TABLE job_labels (
  job_id          INTEGER NOT NULL,
  array_index     INTEGER NOT NULL,
  label_key       TEXT    NOT NULL,
  label_value     TEXT    NOT NULL,
  submitted_at_ns INTEGER NOT NULL,
  PRIMARY KEY (job_id, array_index, label_key),
  FOREIGN KEY (job_id, array_index) REFERENCES tracked_jobs (job_id, array_index)
    ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX job_labels_by_label
  ON job_labels (label_key, label_value, submitted_at_ns, job_id, array_index);
)sql",
};
static_assert(std::size(kSteps) == kJobStoreSchemaVersion, "one step per schema version");

}  // namespace

std::span<const char* const> JobStoreMigrations() { return kSteps; }

}  // namespace bplace
