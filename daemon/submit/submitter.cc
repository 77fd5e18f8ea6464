#include "daemon/submit/submitter.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "daemon/cluster/cluster_dialect.h"
#include "lsf_adapter/bsub_command.h"
#include "lsf_adapter/bsub_reply.h"
#include "lsf_adapter/openlava_bsub.h"

namespace bplace {
namespace {

// The job name bsub gets: the caller's (the field, else the script's
// `#BSUB -J`, which the command line's -J replaces), with the tag where
// SubmitterOptions::tag_in_job_name says so.
std::optional<std::string> JobNameFor(const JobRequest& job, const std::string& tag,
                                      bool tag_in_job_name) {
  if (!tag_in_job_name) return job.job_name;
  return TaggedJobName(job.job_name.value_or(job.script_job_name.value_or("")), tag);
}

lsf::BsubOptions OptionsFor(const JobRequest& job, const std::string& queue, const std::string& tag,
                            bool tag_in_job_name, const char* ib_select) {
  lsf::BsubOptions options;
  options.queue = queue;
  options.host = job.host;
  options.description = DescriptionTag(tag);
  options.job_name = JobNameFor(job, tag, tag_in_job_name);
  options.array = job.array;
  options.slots = job.slots;
  options.resources = job.resources;
  options.output = job.output;
  options.error = job.error;
  options.cwd = job.cwd;
  options.walltime = job.walltime;
  options.memory = job.memory;
  options.project = job.project;
  options.app = job.app;
  options.extra_args = job.extra_args;
  if (ib_select != nullptr) {
    options.daemon_resources = ib_select;
    // A command-line -R replaces the script's #BSUB -R: keep them.
    for (const std::string& resources : job.script_resources) {
      options.extra_args.push_back("-R");
      options.extra_args.push_back(resources);
    }
  }
  if (job.command) {
    options.command = job.command;
  } else if (job.argv) {
    options.command = lsf::JoinShellQuoted(*job.argv);
  } else {
    options.script_on_stdin = true;
  }
  return options;
}

// Hands the submitter's working directory, umask and environment to bsub
// (JobRequest::workdir, umask, environment). Without run_as (service-account
// mode) the child runs as the daemon itself, through the same fork path,
// which can enter a directory and set a umask where posix_spawn cannot.
void WithSubmitterContext(const JobRequest& job, const lsf::LsfInvoker& lsf,
                          lsf::CommandSpec& spec) {
  if (job.environment) spec.env = lsf.CallerEnvironment("bsub", *job.environment);
  if (!job.workdir && !job.umask) return;
  if (!spec.run_as) spec.run_as = lsf::RunAsSelf("", std::nullopt);
  if (job.workdir) spec.run_as->work_dir = *job.workdir;
  if (job.umask) spec.run_as->umask = job.umask;
}

// Runs bsub in `dir` (LSF 10.1's -cwd, taken off an OpenLava-family
// command line): relative to the submitter's directory as -cwd is.
void RunIn(const std::string& dir, const JobRequest& job, lsf::CommandSpec& spec) {
  if (!spec.run_as) spec.run_as = lsf::RunAsSelf("", std::nullopt);
  const bool relative = !dir.empty() && dir.front() != '/';
  const std::string base = job.workdir.value_or(spec.run_as->work_dir);
  spec.run_as->work_dir = relative && !base.empty() ? base + "/" + dir : dir;
}

}  // namespace

std::string DescriptionTag(const std::string& tag) { return "bplace:" + tag; }

std::string TaggedJobName(const std::string& name, const std::string& tag) {
  return (name.empty() ? "" : name + ".") + "bplace-" + tag;
}

namespace {

// LSF took the job: its id and the queue LSF names (an esub may rewrite -q).
Verdict SubmittedVerdict(const lsf::BsubReply& reply) {
  Verdict verdict;
  verdict.next = Verdict::Next::kSubmitted;
  verdict.outcome = "submitted";
  verdict.message = "Job <" + reply.job_id + "> is submitted to queue <" + reply.queue + ">";
  verdict.job_may_exist = true;
  verdict.job_id = reply.job_id;
  verdict.queue = reply.queue;
  return verdict;
}

}  // namespace

Verdict Judge(const Result<lsf::CommandResult>& result, const std::string& tag) {
  Verdict verdict;
  if (!result) {
    verdict.outcome = "failed";
    verdict.message = result.error().message;
    verdict.error =
        Error{ErrorCode::kUnavailable, "bsub could not be started: " + result.error().message};
    return verdict;
  }
  if (result->timed_out) {
    // The job may exist: never resubmit. The tag is in the description, or
    // in the job name ([submit] tag_in_job_name, a site esub that sets
    // every description): the hint shows both.
    verdict.outcome = "timeout";
    verdict.message = "no answer within " + std::to_string(result->elapsed.count()) + " ms";
    verdict.job_may_exist = true;
    verdict.error = Error{ErrorCode::kTimeout,
                          "bsub did not answer in time; the outcome is unknown and the job was "
                          "not resubmitted. Look for it with: bjobs -a -o \"jobid stat queue "
                          "job_name job_description\" | grep " +
                              tag};
    return verdict;
  }
  const lsf::BsubReply reply = lsf::ClassifyBsubReply(result->exit_code, result->out, result->err);
  verdict.message = reply.Explanation();
  switch (reply.scope) {
    case lsf::BsubScope::kNone:
      return SubmittedVerdict(reply);
    case lsf::BsubScope::kUserQueue:
    case lsf::BsubScope::kHostQueue:
      // Another queue may well accept it: LSF judged the queue, not the job.
      verdict.next = Verdict::Next::kTryNextQueue;
      verdict.outcome = "queue_rejected";
      if (RefusalMemory::Remembers(reply.cause)) verdict.remember = reply.cause;
      return verdict;
    case lsf::BsubScope::kJob:
      if (reply.cause == lsf::BsubCause::kEsub) {
        // A site esub may judge by queue: another queue may take the job.
        // If none does, the esub's refusal is the answer.
        verdict.next = Verdict::Next::kTryNextQueue;
        verdict.outcome = "esub_rejected";
        verdict.remember = lsf::BsubCause::kEsub;
        verdict.if_none_accepts =
            Error{ErrorCode::kRejected, "LSF rejected the job: " + verdict.message};
        return verdict;
      }
      if (reply.cause == lsf::BsubCause::kLimit) {
        // A pending-job threshold: no queue helps until pending jobs dispatch.
        verdict.outcome = "threshold";
        verdict.retry_after = kPendingThresholdRetryAfter;
        verdict.error = Error{ErrorCode::kRateLimited,
                              "LSF refused the job: " + verdict.message +
                                  " (too many pending jobs or slots); retry after " +
                                  std::to_string(kPendingThresholdRetryAfter.count()) + " s"};
        return verdict;
      }
      verdict.outcome = "job_rejected";
      verdict.error = Error{ErrorCode::kRejected, "LSF rejected the job: " + verdict.message};
      return verdict;
    case lsf::BsubScope::kLsfUnavailable:
      verdict.outcome = "unavailable";
      verdict.error = Error{ErrorCode::kUnavailable, "LSF is unavailable: " + verdict.message};
      return verdict;
    case lsf::BsubScope::kUnknown:
      break;
  }
  verdict.outcome = "failed";
  verdict.error = Error{ErrorCode::kCommandFailed,
                        "bsub exited with status " + std::to_string(result->exit_code) +
                            " and no recognisable reply: " + verdict.message};
  return verdict;
}

struct Submitter::Run {
  JobRequest job;
  SubmitContext context;
  std::function<void(SubmissionResult)> done;
  std::shared_ptr<const UserPermissions> permissions;
  std::unordered_set<std::string> tried;
  // The user's submission token was taken (before the first bsub).
  bool submission_admitted = false;
  // The answer if no queue accepts the job after an esub refused it.
  std::optional<Error> if_none_accepts;
  SubmissionResult result;

  // The error that ends a run no queue accepted: the esub's refusal when
  // every attempt was one, else `otherwise`.
  Error NoneAccepted(Error otherwise) const {
    const bool all_esub =
        !result.attempts.empty() &&
        std::all_of(result.attempts.begin(), result.attempts.end(),
                    [](const SubmitAttempt& a) { return a.outcome == "esub_rejected"; });
    return all_esub && if_none_accepts ? *if_none_accepts : std::move(otherwise);
  }
};

Submitter::Submitter(lsf::CommandRunner& runner, const lsf::LsfInvoker& lsf, ClusterCache& cache,
                     InflightLedger& ledger, RefusalMemory& memory, Clock& clock,
                     SubmitterOptions options, RateLimiter* limiter)
    : runner_(runner),
      lsf_(lsf),
      cache_(cache),
      ledger_(ledger),
      memory_(memory),
      clock_(clock),
      policy_(std::make_shared<const Policy>(std::move(options), 0)),
      limiter_(limiter) {}

Submitter::Policy::Policy(SubmitterOptions from, std::uint64_t generation)
    : options(std::move(from)),
      excluded_queues(options.excluded_queues.begin(), options.excluded_queues.end()),
      generation(generation) {}

void Submitter::SetOptions(SubmitterOptions options) {
  policy_.store(std::make_shared<const Policy>(std::move(options), ++policy_generations_));
}

Result<Placement> Submitter::PlaceLocked(const PlacementRequest& request,
                                         const std::unordered_set<std::string>* permitted,
                                         const std::unordered_set<std::string>& tried,
                                         StampedPlacement* stamped) const {
  // Each version is read with its content (or the content is the object
  // itself), never after it: the content is then at least as new as the
  // stamp, and an answer whose stamp still matches later is current.
  const auto snapshot = cache_.Current();
  PlacementStamp stamp;
  // Read before the model is: a wait learned meanwhile makes the stamp
  // older than the answer, never newer.
  stamp.wait_generation = waits_ != nullptr ? waits_->generation() : 0;
  const auto inflight = ledger_.Counts(&stamp.ledger_version);
  const SystemTime now = clock_.SystemNow();
  RefusalMemory::ReadStamp refusals_read;
  auto rejections = memory_.Refusals(*snapshot, now, request.user, request.host, &refusals_read);
  for (const std::string& queue : tried) {
    // Tried in this request: the attempt says why it failed, whether or not
    // that is remembered.
    rejections.insert_or_assign(
        queue, RememberedRefusal{"already tried for this request (see attempts)", "tried", {}, {}});
  }
  const auto rewrites = memory_.Rewrites(*snapshot);
  PlacementContext context;
  context.permitted_queues = permitted;
  context.inflight_slots = &inflight;
  context.rejections = &rejections;
  context.rewrites = &rewrites;
  const std::shared_ptr<const Policy> policy = policy_.load();
  context.excluded_queues = &policy->excluded_queues;
  context.allow_unknown_ib = policy->options.ib.allow_unknown;
  context.waits = waits_;
  if (stamped != nullptr) {
    stamp.snapshot_generation = snapshot->generation;
    stamp.policy_generation = policy->generation;
    stamp.refusal_version = refusals_read.version;
    stamped->stamp = std::move(stamp);
    stamped->snapshot = snapshot;
    stamped->placed_at = now;
    stamped->valid_until = refusals_read.valid_until;
  }
  placements_computed_.fetch_add(1, std::memory_order_relaxed);
  return Place(*snapshot, context, request);
}

Result<Placement> Submitter::DryRun(const PlacementRequest& request) const {
  const auto permissions = cache_.Permissions(request.user);
  std::lock_guard lock(place_mutex_);
  return PlaceLocked(request, permissions ? &permissions->queues : nullptr, {});
}

StampedPlacement Submitter::DryRunStamped(const PlacementRequest& request) const {
  StampedPlacement stamped;
  auto permissions = cache_.Permissions(request.user);
  {
    std::lock_guard lock(place_mutex_);
    stamped.placement =
        PlaceLocked(request, permissions ? &permissions->queues : nullptr, {}, &stamped);
  }
  stamped.stamp.permissions = std::move(permissions);
  return stamped;
}

PlacementStamp Submitter::Stamp(const std::string& user) const {
  PlacementStamp stamp;
  stamp.snapshot_generation = cache_.Current()->generation;
  stamp.policy_generation = policy_.load()->generation;
  stamp.ledger_version = ledger_.version();
  stamp.refusal_version = memory_.version();
  stamp.wait_generation = waits_ != nullptr ? waits_->generation() : 0;
  stamp.permissions = cache_.Permissions(user);
  return stamp;
}

void Submitter::Submit(JobRequest job, SubmitContext context,
                       std::function<void(SubmissionResult)> done) {
  auto run = std::make_shared<Run>();
  run->job = std::move(job);
  run->context = std::move(context);
  if (run->context.tag.empty()) run->context.tag = run->context.request_id;
  run->done = std::move(done);
  run->result.host = run->job.host;
  if (limiter_ != nullptr && run->job.array_elements > limiter_->SubmitBurst()) {
    // The bucket can never hold that many tokens: a 429 would never end.
    run->result.error =
        Error{ErrorCode::kInvalidArgument,
              "array: " + std::to_string(run->job.array_elements) +
                  " elements, more than [limits] submit_burst (" +
                  std::to_string(limiter_->SubmitBurst()) +
                  "), the most submissions one user may make at once; split the array"};
    Finish(std::move(run));
    return;
  }
  run->permissions = cache_.Permissions(run->context.user);
  if (run->permissions) {
    Attempt(std::move(run));
    return;
  }
  // LSF's own answer decides who may use a queue; ask once per user and
  // topology interval, then place.
  if (!AdmitLsfCall(*run)) {
    Finish(std::move(run));
    return;
  }
  const std::string user = run->context.user;
  cache_.FetchPermissions(user, [this, run](Result<std::shared_ptr<const UserPermissions>> got) {
    if (!got) {
      run->result.error = got.error();
      Finish(run);
      return;
    }
    run->permissions = *got;
    Attempt(run);
  });
}

bool Submitter::AdmitSubmission(Run& run) {
  if (limiter_ == nullptr || run.submission_admitted) return true;
  // A job array is as many submissions as it has elements.
  const std::int64_t cost = run.job.array_elements;
  const RateLimiter::Decision decision =
      limiter_->AdmitSubmission(run.context.user, clock_.SteadyNow(), cost);
  if (decision.allowed) {
    run.submission_admitted = true;
    return true;
  }
  run.result.retry_after = decision.retry_after;
  run.result.error = Error{
      ErrorCode::kRateLimited,
      "more than [limits] submit_burst submissions by " + run.context.user + " in a short time" +
          (cost > 1 ? " (this array counts " + std::to_string(cost) + ")" : std::string()) +
          "; retry after " + std::to_string(decision.retry_after.count()) + " s"};
  return false;
}

bool Submitter::AdmitLsfCall(Run& run) {
  if (limiter_ == nullptr) return true;
  const RateLimiter::Decision decision = limiter_->AdmitLsfCall(clock_.SteadyNow());
  if (decision.allowed) return true;
  run.result.retry_after = decision.retry_after;
  run.result.error =
      Error{ErrorCode::kRateLimited,
            "the budget of LSF calls for requests ([limits] lsf_calls_per_minute) is used up; "
            "retry after " +
                std::to_string(decision.retry_after.count()) + " s"};
  return false;
}

std::optional<Submitter::Choice> Submitter::Choose(Run& run) {
  SubmissionResult& result = run.result;
  const std::shared_ptr<const Policy> policy = policy_.load();
  if (static_cast<int>(result.attempts.size()) >= policy->options.max_attempts) {
    result.error =
        run.NoneAccepted(Error{ErrorCode::kConflict, "no queue accepted the job in " +
                                                         std::to_string(result.attempts.size()) +
                                                         " attempts (submit.max_attempts)"});
    return std::nullopt;
  }
  PlacementRequest request;
  request.user = run.context.user;
  request.host = run.job.host;
  request.queues = run.job.queues;
  request.slots = run.job.SlotsPerElement();
  request.require_ib = run.job.require_ib.value_or(policy->options.ib.require_ib);
  std::lock_guard lock(place_mutex_);
  auto placement = PlaceLocked(request, &run.permissions->queues, run.tried);
  if (!placement) {
    result.error = placement.error();
    return std::nullopt;
  }
  if (placement->candidates.empty()) {
    result.error = run.NoneAccepted(
        Error{ErrorCode::kConflict,
              result.attempts.empty()
                  ? "no queue may take this job; see `excluded` for every queue's reason"
                  : "no queue accepted the job; see `attempts` and `excluded`"});
    result.placement = std::move(*placement);
    return std::nullopt;
  }
  const Candidate& best = placement->candidates.front();
  Choice choice{best.queue, 0, request.require_ib};
  // Charge the queue the job will wait in (known esub rewrite), so the next
  // placement sees it at once.
  // An array's elements all pend at once: PEND grows by elements x slots.
  choice.ticket = ledger_.Reserve(best.lands_in.empty() ? best.queue : best.lands_in,
                                  run.job.array_elements * run.job.SlotsPerElement());
  result.placement = std::move(*placement);
  return choice;
}

Result<Submitter::BsubCall> Submitter::BsubSpec(const Run& run, const Choice& choice) const {
  const std::shared_ptr<const Policy> policy = policy_.load();
  const SubmitterOptions& submit = policy->options;
  const IbPolicy& ib = submit.ib;
  const char* ib_select = choice.require_ib && ib.source == IbSource::kLsload
                              ? (ib.allow_unknown ? kIbSelectOrUnknown : kIbSelect)
                              : nullptr;
  lsf::BsubOptions options =
      OptionsFor(run.job, choice.queue, run.context.tag, submit.tag_in_job_name, ib_select);
  std::optional<std::string> run_in;
  std::optional<std::string> script = run.job.script;
  const ClusterDialect dialect = DialectOf(*cache_.Current(), lsf_);
  if (dialect.family == lsf::LsfFamily::kOpenlava) {
    if (!dialect.units) return tl::unexpected(dialect.units.error());
    auto respelled = lsf::RespellBsubForOpenlava(std::move(options), *dialect.units);
    if (!respelled) return tl::unexpected(respelled.error());
    if (script) {
      // Its #BSUB lines reach volclava's bsub as well (docs/lsf-front-door.md
      // "OpenLava-family clusters").
      auto respelled_script = lsf::RespellScriptForOpenlava(*script, *dialect.units, *respelled);
      if (!respelled_script) return tl::unexpected(respelled_script.error());
      script = std::move(*respelled_script);
    }
    options = std::move(respelled->options);
    run_in = std::move(respelled->run_in);
  }
  lsf::CommandSpec spec = run.context.run_as
                              ? lsf_.SpecAs(*run.context.run_as, "bsub", {}, std::move(script))
                              : lsf_.Spec("bsub", {}, std::move(script));
  spec.argv = lsf::BuildBsubArgv(lsf_.Path("bsub"), options);
  WithSubmitterContext(run.job, lsf_, spec);
  if (run_in) RunIn(*run_in, run.job, spec);
  spec.on_spawned = run.context.on_bsub_started;
  return BsubCall{std::move(spec), options.job_name.value_or("")};
}

void Submitter::Attempt(std::shared_ptr<Run> run) {
  std::optional<Choice> choice = Choose(*run);
  if (!choice) {
    Finish(std::move(run));
    return;
  }
  run->tried.insert(choice->queue);
  if (!AdmitSubmission(*run) || !AdmitLsfCall(*run)) {
    ledger_.Finish(choice->ticket, false, clock_.SteadyNow());
    Finish(std::move(run));
    return;
  }
  auto built = BsubSpec(*run, *choice);
  if (!built) {
    ledger_.Finish(choice->ticket, false, clock_.SteadyNow());
    run->result.error = std::move(built.error());
    Finish(std::move(run));
    return;
  }
  lsf::CommandSpec spec = std::move(built->spec);
  run->result.requested_queue = choice->queue;
  run->result.bsub_argv = spec.argv;
  run->result.job_name = std::move(built->job_name);
  SubmitAttempt attempt;
  attempt.queue = choice->queue;
  attempt.argv = spec.argv;
  runner_.Run(std::move(spec), [this, run, ticket = choice->ticket, attempt = std::move(attempt)](
                                   Result<lsf::CommandResult> outcome) mutable {
    const std::string tag = DescriptionTag(run->context.tag);
    Verdict verdict;
    try {
      verdict = Judge(outcome, tag);
      attempt.elapsed = outcome ? outcome->elapsed : std::chrono::milliseconds(0);
    } catch (const std::exception& e) {
      // The exception boundary of a bsub callback: the job may exist.
      verdict = Verdict{};
      verdict.outcome = "failed";
      verdict.message = e.what();
      verdict.job_may_exist = true;
      verdict.error = Error{ErrorCode::kInternal,
                            std::string("internal error reading bsub's reply (") + e.what() +
                                "); the job may have been submitted: look for " + tag};
    }
    Apply(std::move(run), ticket, std::move(attempt), std::move(verdict));
  });
}

void Submitter::Apply(std::shared_ptr<Run> run, InflightLedger::Ticket ticket,
                      SubmitAttempt attempt, Verdict verdict) {
  SubmissionResult& result = run->result;
  const auto snapshot = cache_.Current();
  if (verdict.next == Verdict::Next::kSubmitted && !verdict.queue.empty() &&
      verdict.queue != attempt.queue) {
    spdlog::info("request_id={}: LSF put the job in queue {} instead of {} (esub rewrite?)",
                 run->context.request_id, verdict.queue, attempt.queue);
    memory_.RememberRewrite(*snapshot, attempt.queue, verdict.queue);
  }
  ledger_.Finish(ticket, verdict.job_may_exist, clock_.SteadyNow(), verdict.queue);
  // LSF's PEND counts will show the job (and other login nodes' jobs) at
  // the next load refresh: soon, while submissions arrive.
  if (verdict.job_may_exist) cache_.AfterSubmission();
  if (verdict.remember != lsf::BsubCause::kNone) {
    memory_.RememberRefusal(*snapshot, clock_.SystemNow(), run->context.user, attempt.queue,
                            run->job.host, verdict.remember, verdict.message);
  }
  attempt.outcome = verdict.outcome;
  attempt.message = verdict.message;
  result.attempts.push_back(std::move(attempt));
  switch (verdict.next) {
    case Verdict::Next::kTryNextQueue:
      if (verdict.if_none_accepts) run->if_none_accepts = std::move(verdict.if_none_accepts);
      Attempt(std::move(run));
      return;
    case Verdict::Next::kSubmitted:
      result.job_id = verdict.job_id;
      result.queue = verdict.queue;
      break;
    case Verdict::Next::kStop:
      result.error = std::move(verdict.error);
      result.retry_after = verdict.retry_after;
      break;
  }
  Finish(std::move(run));
}

void Submitter::Finish(std::shared_ptr<Run> run) {
  const SubmissionResult& result = run->result;
  if (result.error) {
    spdlog::info("submit request_id={} user={} outcome=failed code={} attempts={} error=\"{}\"",
                 run->context.request_id, run->context.user, ErrorCodeName(result.error->code),
                 result.attempts.size(), result.error->message);
  } else {
    spdlog::info("submit request_id={} user={} outcome=submitted job_id={} queue={} host={}",
                 run->context.request_id, run->context.user, result.job_id, result.queue,
                 result.host.value_or("-"));
  }
  if (on_finished_) on_finished_(result);
  run->done(std::move(run->result));
}

}  // namespace bplace
