#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/cluster/cluster_cache.h"
#include "daemon/cluster/inflight_ledger.h"
#include "daemon/options.h"
#include "daemon/placement/placement.h"
#include "daemon/placement/refusal_memory.h"
#include "daemon/submit/rate_limiter.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

// A job to place and submit, already validated by the API's decoder
// (docs/api.md "POST /v1/jobs"). Exactly one of command, argv and script is
// set.
struct JobRequest {
  std::optional<std::string> host;
  std::vector<std::string> queues;
  std::optional<std::string> command;            // LSF's command string, passed as is
  std::optional<std::vector<std::string>> argv;  // quoted by us into one command string
  std::optional<std::string> script;             // fed to bsub on stdin
  std::optional<std::string> job_name;
  // A job array's LSF index list ("1-100", "1-9:2,20"): bsub -J
  // "NAME[LIST]"; `array_elements` is its element count (1 without one).
  std::optional<std::string> array;
  std::int64_t array_elements = 1;
  std::optional<std::int64_t> slots;
  // The slots the script's `#BSUB -n` asks for (its max), when `slots` is
  // not given: placed and counted, never put on the command line.
  std::optional<std::int64_t> script_slots;
  // Each -R, in order (LSF 10.1 merges several -R options itself).
  std::vector<std::string> resources;
  // The values of the script's `#BSUB -R` lines, in order. When bplace puts
  // its own -R on the command line (require_ib with the lsload source),
  // bsub would drop the script's -R for it; these then go on the command
  // line too, where LSF merges several -R.
  std::vector<std::string> script_resources;
  // The value of the script's `#BSUB -J` line. With [submit]
  // tag_in_job_name bplace puts -J on the command line, which bsub lets
  // replace the line: the tagged name keeps this one.
  std::optional<std::string> script_job_name;
  std::optional<std::string> output;
  std::optional<std::string> error;
  std::optional<std::string> cwd;
  std::optional<std::string> walltime;
  std::optional<std::string> memory;
  std::optional<std::string> project;
  std::optional<std::string> app;
  std::vector<std::string> extra_args;
  // The submitter's context, which bsub hands to the job (LSF 10.1 bsub(1):
  // the job runs with the submitter's environment, working directory and
  // file creation mask): where bsub runs (relative -o, -e and -cwd paths
  // are relative to it), the environment it runs with ("NAME=value"), and
  // its umask. Unset: bsub runs in the caller's home (multi-user mode) or
  // the daemon's working directory, with the environment of
  // LsfInvoker::Spec/SpecAs and the daemon's umask.
  std::optional<std::string> workdir;
  std::optional<std::vector<std::string>> environment;
  std::optional<mode_t> umask;
  // Keep hosts with unhealthy InfiniBand out; unset: SubmitterOptions::require_ib.
  std::optional<bool> require_ib;
  // The client's tags of the job (a workflow's name, a step): GET /v1/jobs
  // lists and POST /v1/jobs:cancel cancels by them. Never passed to bsub.
  std::map<std::string, std::string> labels;

  // Slots of one job (or one array element): `slots`, else the script's
  // #BSUB -n, else 1.
  std::int64_t SlotsPerElement() const { return slots.value_or(script_slots.value_or(1)); }
};

// Who asks, and the tag that marks the job (-Jd bplace:<tag>).
struct SubmitContext {
  std::string user;
  std::string request_id;
  // Multi-user mode: bsub runs as this user (SpecAs); unset: as the daemon.
  std::optional<identity::UserIdentity> run_as;
  // The job's tag: bsub gets -Jd DescriptionTag(tag), so that a reply lost
  // to a timeout or a crash can be found in LSF. Empty: the request id.
  std::string tag = {};
  // Called with the pid of each bsub as it starts (CommandSpec::on_spawned),
  // so that a bsub that outlives a crashed daemon can be found.
  std::function<void(pid_t)> on_bsub_started = {};
};

// One bsub call.
struct SubmitAttempt {
  std::string queue;
  std::vector<std::string> argv;
  std::string outcome;  // submitted, queue_rejected, job_rejected, unavailable, timeout, failed
  std::string message;  // LSF's words
  std::chrono::milliseconds elapsed{0};
};

// The end of a submission. `error` is empty when LSF took the job; then
// job_id and queue (as LSF reported it) are set. On kConflict `placement`
// holds every queue's reason.
struct SubmissionResult {
  std::optional<Error> error;
  std::string job_id;
  std::string queue;            // as LSF reported it (an esub may rewrite -q)
  std::string requested_queue;  // what bplace passed with -q
  std::optional<std::string> host;
  std::vector<std::string> bsub_argv;  // of the successful (or last) attempt
  std::string job_name;                // what bsub got with -J ("" without one)
  std::vector<SubmitAttempt> attempts;
  std::optional<Placement> placement;
  // kRateLimited: whole seconds until the bucket (the user's, the LSF-call
  // budget) has room again, or LSF's pending-job threshold may.
  std::chrono::seconds retry_after{0};
};

// The job description bsub gets (-Jd) for `tag`: "bplace:<tag>". Found by
// exact comparison of the whole description, never by a prefix or grep.
std::string DescriptionTag(const std::string& tag);

// The job name bsub gets (-J) with [submit] tag_in_job_name, for sites
// whose esub rewrites or drops -Jd: `name` (the caller's job name, without
// an array's "[1-10]") then ".bplace-<tag>", or "bplace-<tag>" when the
// caller named none (LSF would have named the job after its command).
// Found by CarriesTag (daemon/submit/caller_jobs.h).
std::string TaggedJobName(const std::string& name, const std::string& tag);

// What the submitter does after one bsub call: the pure judgement of its
// result (Judge), applied by one tail in Submitter.
struct Verdict {
  enum class Next {
    kSubmitted,     // LSF took the job: answer with it
    kTryNextQueue,  // LSF judged the queue (or host and queue): try the next one
    kStop,          // the request ends with `error`
  };
  Next next = Next::kStop;
  std::string outcome;  // the attempt's outcome: submitted, queue_rejected, ...
  std::string message;  // LSF's words (with an esub's own reason)
  std::optional<Error> error;
  // The job may exist in LSF (submitted, or bsub timed out): its slots stay
  // charged in the ledger until a load refresh can count it.
  bool job_may_exist = false;
  std::string job_id;
  std::string queue;  // as LSF reported it (kSubmitted)
  // Remember the refusal of this queue (RefusalMemory keeps it for a time
  // that fits the cause); kNone: nothing to remember.
  lsf::BsubCause remember = lsf::BsubCause::kNone;
  // kTryNextQueue after an esub refusal: the answer (kRejected) if no
  // queue tried later accepts the job.
  std::optional<Error> if_none_accepts;
  // kRateLimited: when to try again.
  std::chrono::seconds retry_after{0};
};

// How long a caller refused by a pending-job threshold is told to wait:
// LSF's default SUB_TRY_INTERVAL, the pace at which bsub itself would retry.
inline constexpr std::chrono::seconds kPendingThresholdRetryAfter{60};

// Judges one bsub call: the runner's
// error (bsub could not start) is 503-worthy kUnavailable; a timeout is
// kTimeout ("outcome unknown", never resubmitted; the detail names the
// `tag` to look for); otherwise the reply as lsf::ClassifyBsubReply reads
// it, by scope: user x queue and host x queue refusals try the next queue
// and are remembered by cause (RefusalMemory::Remembers); an esub's
// refusal does too (it may be about this queue), with kRejected as the
// answer if no other queue accepts; a pending-job threshold is
// kRateLimited (retry after kPendingThresholdRetryAfter); another job
// refusal is kRejected, LSF down is kUnavailable, anything else
// kCommandFailed. Pure.
Verdict Judge(const Result<lsf::CommandResult>& result, const std::string& tag);

// The -R strings that keep a job on hosts whose elim reports ib_ok 1, and
// (allow_unknown) also on hosts that report no ib_ok at all.
inline constexpr char kIbSelect[] = "select[ib_ok==1]";
inline constexpr char kIbSelectOrUnknown[] = "select[!defined(ib_ok) || ib_ok==1]";

// What a dry-run placement for one user is computed from besides the
// request, as numbers that grow with every change of an input: equal stamps
// mean DryRun gives the same answer for the same request (before the time
// limit of StampedPlacement::valid_until). Copyable; compare with ==.
struct PlacementStamp {
  std::uint64_t snapshot_generation = 0;  // ClusterSnapshot::generation
  std::uint64_t policy_generation = 0;    // counts Submitter::SetOptions calls
  std::uint64_t ledger_version = 0;       // InflightLedger::version
  std::uint64_t refusal_version = 0;      // RefusalMemory::version
  std::uint64_t wait_generation = 0;      // WaitModel::generation (0 without a model)
  // LSF's permission answer for the user (ClusterCache::Permissions), null
  // when none is cached. Held, so that an equal pointer is the same answer
  // (its address cannot be reused while a stamp holds it).
  std::shared_ptr<const UserPermissions> permissions;

  bool operator==(const PlacementStamp&) const = default;
};

// A dry run with what it was computed from (Submitter::DryRunStamped).
struct StampedPlacement {
  Result<Placement> placement;
  // The snapshot placed against: the answer's ages and IB source come from it.
  std::shared_ptr<const ClusterSnapshot> snapshot;
  // Each input's version as read together with (or before) its content, so
  // the content is never older than the stamp.
  PlacementStamp stamp;
  SystemTime placed_at{};  // the wall time the refusals were judged at
  // The earliest time at which a remembered refusal in the answer ends by
  // time alone (RefusalMemory::ReadStamp); nullopt: none does.
  std::optional<SystemTime> valid_until;
};

// Places jobs and submits them with bsub (docs/design.md "Submit"): tries the
// ranked queues in order, at most max_attempts bsub calls; a queue-specific
// rejection is remembered and the next queue tried; a job-specific one ends
// the request; a timeout ends it with "outcome unknown" and is never retried
// (the job may exist). In-flight slots are counted in the ledger from the
// moment a queue is chosen. The user's submission token ([limits]
// submit_burst) is taken only when the first bsub is about to run: a
// request answered without one (no queue, bad request) costs nothing.
// A job array takes as many tokens as it has elements; one larger than the
// bucket (submit_burst) ends with kInvalidArgument before anything runs.
// Placement judges one element's slots against the queues' limits (LSF
// checks -n per element); the ledger charges elements x slots, since every
// element pends at once. Thread-safe.
class Submitter {
 public:
  // All references must outlive the submitter. `limiter` holds the users'
  // submission buckets and the global budget of LSF calls caused by
  // requests (bsub, bqueues -u); null: unlimited.
  Submitter(lsf::CommandRunner& runner, const lsf::LsfInvoker& lsf, ClusterCache& cache,
            InflightLedger& ledger, RefusalMemory& memory, Clock& clock, SubmitterOptions options,
            RateLimiter* limiter = nullptr);

  // The options in force (a copy: SetOptions may replace them meanwhile).
  SubmitterOptions options() const { return policy_.load()->options; }

  // Replaces the options for every placement and bsub that starts after it
  // (SIGHUP: [placement] exclude_queues, [ib] require_ib and allow_unknown);
  // a submission already running takes them from its next attempt on. The
  // caller keeps what must not change at run time (ib.source, which the
  // cache's tiers were built for; max_attempts, which the HTTP handler
  // deadline was sized for) as it was. Thread-safe, never blocks.
  void SetOptions(SubmitterOptions options);

  // The wait model every placement reads candidates' expected starts from
  // (PlacementContext::waits); null (the default): none. Set it before the
  // first placement; `waits` must outlive the submitter.
  void SetWaitModel(const WaitModel* waits) { waits_ = waits; }

  // Ranks queues for `request` from the cached snapshot without running any
  // LSF command. Uses LSF's permission answer for the user when cached,
  // otherwise the USERS lines. Errors as Place().
  Result<Placement> DryRun(const PlacementRequest& request) const;

  // DryRun, with the snapshot it used and the stamp of its inputs: an answer
  // computed once stays the answer while Stamp(request.user) equals its
  // stamp, and the wall clock is in [placed_at, valid_until).
  StampedPlacement DryRunStamped(const PlacementRequest& request) const;

  // The current stamp of the inputs of `user`'s dry runs, without placing:
  // a few atomic loads and one look-up of the user's permissions. Never
  // blocks on LSF.
  PlacementStamp Stamp(const std::string& user) const;

  // How many placements (Place calls: dry runs and submissions' choices)
  // this submitter has computed since it was made; for tests and benchmarks
  // of answers served without one.
  std::uint64_t placements_computed() const {
    return placements_computed_.load(std::memory_order_relaxed);
  }

  // Submits `job` for `context.user`. Returns at once; `done` is called once,
  // on a runner thread, with the result. A throw while handling bsub's reply
  // ends the request with kInternal (the job may exist; its slots stay
  // charged) instead of escaping onto the runner's thread.
  void Submit(JobRequest job, SubmitContext context, std::function<void(SubmissionResult)> done);

  // Called with every submission's end, before its `done`, on the thread
  // that finishes it (for metrics: DaemonMetrics::CountSubmission). Set it
  // before the first Submit; it must be thread-safe, quick and not throw.
  void SetOnFinished(std::function<void(const SubmissionResult&)> on_finished) {
    on_finished_ = std::move(on_finished);
  }

 private:
  struct Run;
  // The queue chosen for one attempt, its in-flight charge, and whether the
  // IB gate applies.
  struct Choice {
    std::string queue;
    InflightLedger::Ticket ticket = 0;
    bool require_ib = false;
  };
  // Ranks the queues and reserves the best one; nullopt (with the result's
  // error set) when the request ends here.
  std::optional<Choice> Choose(Run& run);
  // A bsub to run and the job name it gives the job ("" for none), made
  // from one reading of the policy: the run's result records the name bsub
  // got.
  struct BsubCall {
    lsf::CommandSpec spec;
    std::string job_name;
  };
  // The bsub to run for `run` in `choice`'s queue, spelled for the
  // cluster's dialect (DialectOf: on an OpenLava-family cluster, -cwd, -M
  // and -R respelled by lsf::RespellBsubForOpenlava). Errors: what that
  // cluster's bsub cannot take (kRejected) or a bad amount
  // (kInvalidArgument): nothing was run.
  Result<BsubCall> BsubSpec(const Run& run, const Choice& choice) const;
  // Places `request` from the current inputs; with `stamped`, records there
  // the snapshot, the versions read and the time limit (not the placement
  // nor the permissions, which the caller sets).
  Result<Placement> PlaceLocked(const PlacementRequest& request,
                                const std::unordered_set<std::string>* permitted,
                                const std::unordered_set<std::string>& tried,
                                StampedPlacement* stamped = nullptr) const;
  // Takes one call from the LSF budget; false (with the error set) when empty.
  bool AdmitLsfCall(Run& run);
  // Takes the user's submission token before the first bsub; false (with
  // the error set) when the user's bucket is empty.
  bool AdmitSubmission(Run& run);
  void Attempt(std::shared_ptr<Run> run);
  // Applies the verdict of one bsub call; continues or finishes the run.
  void Apply(std::shared_ptr<Run> run, InflightLedger::Ticket ticket, SubmitAttempt attempt,
             Verdict verdict);
  void Finish(std::shared_ptr<Run> run);

  lsf::CommandRunner& runner_;
  const lsf::LsfInvoker& lsf_;
  ClusterCache& cache_;
  InflightLedger& ledger_;
  RefusalMemory& memory_;
  Clock& clock_;
  // The options and their exclusions as a set, replaced whole by SetOptions
  // so that one placement never mixes two versions.
  struct Policy {
    Policy(SubmitterOptions from, std::uint64_t generation);
    SubmitterOptions options;
    std::unordered_set<std::string> excluded_queues;  // options.excluded_queues
    std::uint64_t generation = 0;                     // PlacementStamp::policy_generation
  };
  std::atomic<std::shared_ptr<const Policy>> policy_;
  std::atomic<std::uint64_t> policy_generations_{0};  // the last Policy::generation given
  mutable std::atomic<std::uint64_t> placements_computed_{0};
  RateLimiter* const limiter_;
  const WaitModel* waits_ = nullptr;
  std::function<void(const SubmissionResult&)> on_finished_;  // may be empty
  // Makes "rank with the current in-flight counts, then reserve the winner"
  // one step, so concurrent requests see each other's reservations.
  mutable std::mutex place_mutex_;
};

}  // namespace bplace
