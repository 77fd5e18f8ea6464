#pragma once

#include <string>

#include "api/auth.h"
#include "api/options.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "daemon/cluster/cluster_cache.h"
#include "daemon/cluster/inflight_ledger.h"
#include "daemon/daemon_metrics.h"
#include "daemon/jobs/job_canceller.h"
#include "daemon/jobs/job_tracker.h"
#include "daemon/options.h"
#include "daemon/placement/wait_coverage.h"
#include "daemon/placement/wait_model.h"
#include "daemon/submit/rate_limiter.h"
#include "daemon/submit/submission_service.h"
#include "daemon/submit/submitter.h"

namespace bplace::api {

class PlacementAnswerCache;

// What the route functions need from the daemon: its parts, and the API's
// options. The parts every route needs are references, given at
// construction, so that a Services without them does not compile; the
// optional ones are pointers whose null is a documented behaviour (the
// feature is off: a 503, a 404, no limit), not a missing check. The daemon
// sets every one (bplaced/wiring.cc); tests and embedders leave out what
// they do not exercise. The daemon owns the parts and builds this once
// before the server starts; it must outlive the router's handlers. Thread
// safety: read-only after start-up, so any number of io threads share one;
// every part it refers to is thread-safe itself.
struct Services {
  Services(ClusterCache& cache, Submitter& submitter, InflightLedger& ledger,
           SubmissionService& submissions, const Clock& clock)
      : cache(cache),
        submitter(submitter),
        ledger(ledger),
        submissions(submissions),
        clock(clock) {}

  ClusterCache& cache;     // the snapshot every read answers from
  Submitter& submitter;    // placements; its options() give the [ib] policy
  InflightLedger& ledger;  // the in-flight slots shown by reads
  // POST /v1/jobs's one path, exactly once with a state store (without a
  // journal every call is a new submission: tests).
  SubmissionService& submissions;
  // The one time source of the routes (ages, staleness, rate limits): the
  // RealClock the daemon's cache uses; a ManualClock in tests.
  const Clock& clock;

  // Who callers are; null: every request acts for `user` with every right
  // (tests and embedders without [auth]).
  const Authenticator* auth = nullptr;
  RateLimiter* limiter = nullptr;  // submissions per user; null: unlimited
  // The job routes (GET/DELETE /v1/jobs...): the jobs tier and bkill. Null:
  // those routes answer 503.
  JobTracker* tracker = nullptr;
  JobCanceller* canceller = nullptr;
  // The caller every request acts for without `auth`, and the user reads
  // name as "the daemon's" (service-account mode: the daemon's user).
  std::string user;
  ApiOptions options;
  std::string version;  // bplace's, for GET /v1/cluster
  // GET /metrics renders this registry; null: the route answers 404 as if
  // it did not exist (tests and embedders without metrics).
  const metrics::Registry* metrics = nullptr;
  // Counts placements (GET /v1/placement); null: not counted.
  DaemonMetrics* daemon_metrics = nullptr;
  // GET /v1/placement answers kept until an input changes
  // (api/placement_answer_cache.h); null: every answer is computed.
  PlacementAnswerCache* placement_answers = nullptr;
  // The wait predictor (GET /v1/queues/{name}/waits) and the coverage of
  // its bounds on bplace's jobs (bplace status, and the wait_s and
  // within_bound of a job: JobJson); null: the route answers 503, no
  // coverage is shown and a job's wait is bjobs' (RealisedWait).
  const WaitModel* waits = nullptr;
  const WaitCoverage* wait_coverage = nullptr;

  // Whether bsub runs as the caller ([auth] mode = "multi-user").
  bool multi_user() const { return auth != nullptr && auth->policy().mode == AuthMode::kMultiUser; }
  // The [ib] policy placements and submissions follow.
  IbPolicy ib() const { return submitter.options().ib; }
};

}  // namespace bplace::api
