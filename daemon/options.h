#pragma once

// The options of the daemon's core, each with its default in one place (as
// LevelDB's Options). The config loader (config/config_loader.cc) fills
// them from the config file; config/bplaced.example.toml documents every
// key; nothing copies them field by field.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bplace {

// How often the cache asks LSF, and for whom ([lsf] in the config file).
struct CacheOptions {
  std::chrono::milliseconds load_interval{15000};       // lsf.load_refresh_s
  std::chrono::milliseconds topology_interval{300000};  // lsf.topology_refresh_s
  // After a job is submitted, a load refresh no sooner than this after the
  // last one began (lsf.load_refresh_after_submit_s; zero: never early), so
  // that PEND counts show this node's and the other login nodes' new jobs
  // within seconds instead of a load interval (docs/operations.md "Several
  // login nodes").
  std::chrono::milliseconds load_after_submit{2000};
  // Earliest a manual refresh (POST /v1/cache/refresh) may follow the last one.
  std::chrono::milliseconds min_manual_interval{5000};
  // After a failed refresh, retry after this, doubling, at most the interval.
  std::chrono::milliseconds retry_interval{5000};
  // The user whose permissions are fetched with every topology refresh (the
  // daemon's own user in service-account mode). Set at start-up.
  std::string prefetch_user;
  // Read hosts' InfiniBand health from the `ib_ok` load index every load
  // interval (`lsload -w -I ib_ok`; [ib] source = "lsload") in a tier of its
  // own: LIM may hang while mbatchd answers, and the queue counters must not
  // wait for the health data. Its failure keeps the previous health with
  // the error; verdicts older than 3 load intervals become unknown.
  bool ib_from_lsload = false;
};

// Where the daemon learns hosts' InfiniBand health: nowhere, the `ib_ok`
// load index of `lsload` (rdma_probe running as an LSF elim on every host),
// or rdma_probe run as a child process for the host the daemon runs on.
enum class IbSource { kNone, kLsload, kLocal };

// "none", "lsload" or "local", as the config file and GET /v1/ib name it.
const char* IbSourceName(IbSource source);

// How InfiniBand health gates placement ([ib] in the config file, the
// daemon's side; the probe's side is rdma::ProbeOptions).
struct IbPolicy {
  IbSource source = IbSource::kNone;
  // Keep hosts with unhealthy InfiniBand out; a request's `require_ib`
  // (POST /v1/jobs field, GET /v1/placement parameter) overrides it. This is
  // the one default every caller uses.
  bool require_ib = true;
  bool allow_unknown = true;  // hosts with no health data may be chosen (flagged)
  // `local`: the probe binary (absolute or on PATH) and how often it runs.
  std::string probe_path = "rdma_probe";
  std::chrono::seconds local_interval{60};
};

// How submissions are made ([submit], [placement] and [ib]).
struct SubmitterOptions {
  int max_attempts = 3;                      // bsub calls per request
  std::vector<std::string> excluded_queues;  // never placed into (listed, with a reason)
  IbPolicy ib;
  // How long a queue whose esub refused a user's job is not tried again for
  // that user ([submit] esub_refusal_memory_s). An esub's rules are not
  // visible to bplace, so only time tells when it may say yes.
  std::chrono::seconds esub_refusal_memory{600};
  // Also put each job's tag in its job name (TaggedJobName), for sites whose
  // esub rewrites or drops -Jd ([submit] tag_in_job_name): the reconciler
  // and the cross-node key check find a job by either (CarriesTag).
  bool tag_in_job_name = false;
};

// Exactly-once submission ([submit] check_lsf_for_key).
struct ExactlyOnceOptions {
  // Before the first bsub of an Idempotency-Key this daemon has not seen,
  // look in LSF for a job of the caller already tagged with the key's tag
  // (another login node's bplaced may have submitted it, docs/operations.md
  // "Several login nodes"): at most one `bjobs -a -u CALLER` per new keyed
  // submission, shared by the caller's checks that wait at once (TagCheck),
  // in whichever form the cluster's bjobs speaks (BjobsDialect). On by
  // default: with several login nodes a client's retry on another node must
  // not make a second job. Off only where one node serves the cluster.
  bool check_lsf_for_key = true;
};

// The token buckets of [limits]: protection of the daemon and of mbatchd.
// Only requests that reach bsub take a submission token. The defaults let
// a workflow engine submit a burst of 250 jobs and then 5 a second per
// user, while all callers together cause at most 500 LSF commands at once
// and 20 a second: well under what one mbatchd takes (LSF's own lsfproxyd
// rate limiter exists for sites whose users burst thousands), and the
// per-user buckets keep one user from spending the shared budget alone.
struct RateLimiterOptions {
  double submit_per_minute = 300;      // per user: token bucket refill rate
  int submit_burst = 250;              // per user: bucket size
  double lsf_calls_per_minute = 1200;  // all callers: LSF commands a request causes
  int lsf_calls_burst = 500;
};

// What callers' lookups of job ids bplace does not follow may cost
// (daemon/jobs/job_lookups.h). Not in the config file: the bounds hold a flood
// of lookups to about 1024 x 256 remembered ids (some 20 MB at most),
// while an ordinary client never meets them.
struct JobLookupOptions {
  // Lookups one caller may have waiting for the jobs tier at once; beyond
  // them 429. A workflow engine asks about its own jobs, which bplace
  // follows already; lookups are for ids bplace does not follow.
  std::size_t max_in_flight_per_caller = 64;
  // Ids LSF does not know, remembered per caller (the oldest go first), and
  // for how long: an id may become known (LSF gives ids in order), so a
  // "not found" is not kept for long.
  std::size_t max_not_found_per_caller = 256;
  std::chrono::seconds not_found_ttl{60};
  // Callers remembered at once; the one idle longest goes first.
  std::size_t max_callers = 1024;
};

// Where the wait predictor learns from (docs/design.md "Wait prediction").
struct WaitFeedOptions {
  // LSF's event log ([lsf] events_file). Empty: LSB_SHAREDIR/<cluster>/
  // logdir/lsb.events, LSB_SHAREDIR from LSF_ENVDIR/lsf.conf and the
  // cluster from lsid; "none": not read (the jobs tier's own jobs teach).
  std::string events_file;
};

// How the jobs tier runs ([jobs] in the config file).
struct JobTrackerOptions {
  // One bjobs for every followed job, per interval, however many callers
  // poll: with the default, mbatchd sees 6 jobs queries a minute.
  std::chrono::milliseconds interval{10000};
  // Finished jobs are kept (in memory and in the state store) this long
  // after they last changed, then forgotten; so are jobs LSF no longer
  // knows, counted from when that was found (JobTable's WithoutOldJobs
  // gives every row its lifetime).
  std::chrono::hours retention{24 * 7};
  JobLookupOptions lookups;
};

// Where bplaced keeps its durable state ([state] in the config file): the
// intents and answers of submissions and the jobs it follows (SQLite,
// daemon/state/job_store.h). The directory must exist, belong to the daemon's
// user (or root) and not be writable by group or others; systemd's
// StateDirectory=bplace makes it so.
struct StateOptions {
  std::string dir = "/var/lib/bplace";
};

// Where the audit trail of submission decisions goes (daemon/state/audit_log.h): JSON
// lines in a file of its own, rotated by size. Not the journal: journald
// rate-limits a service's messages all together, so a flood of reads would
// drop audit records with its access lines.
struct AuditOptions {
  // The file; empty: audit.log in the [state] dir (the daemon's own,
  // writable by it, kept across restarts and upgrades). Elsewhere, keep it
  // in a directory only the daemon's user can enter: a file a rotation
  // opens gets mode 0600 right after it is created, not before.
  std::string file;
  // A file about to pass this size is rotated: audit.log becomes
  // audit.1.log, .1 becomes .2, ... up to max_files; the oldest goes.
  // Defaults: 100 MiB × 10, about 200,000 records a file at ~500 bytes
  // each, 2 million in all; ship the files to the site's log store to
  // keep more.
  std::uint64_t max_file_bytes = 100ULL * 1024 * 1024;
  std::size_t max_files = 10;
};

}  // namespace bplace
