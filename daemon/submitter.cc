#include "daemon/submitter.h"

#include <spdlog/spdlog.h>

#include "lsf_adapter/bsub_command.h"
#include "lsf_adapter/bsub_reply.h"

namespace bplace {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Rejections that say something about this user and queue beyond the one
// job, so placement should skip the queue until the topology is re-read.
// Host-specific refusals ("Host or host group is not used by the queue",
// "Bad host name ...") are left out: they would wrongly hide the queue for
// jobs aimed at other hosts.
bool WorthRemembering(const std::string& message) {
  return message.find("User cannot use the queue") != std::string::npos ||
         message.find("No such queue") != std::string::npos ||
         message.find("Queue has been closed") != std::string::npos ||
         message.find("queue windows are closed") != std::string::npos;
}

lsf::BsubOptions OptionsFor(const JobRequest& job, const std::string& queue,
                            const std::string& request_id, const char* ib_select) {
  lsf::BsubOptions options;
  options.queue = queue;
  options.host = job.host;
  options.description = "bplace:" + request_id;
  options.job_name = job.job_name;
  options.slots = job.slots;
  options.resources = job.resources;
  if (ib_select != nullptr) options.daemon_resources = ib_select;
  options.output = job.output;
  options.error = job.error;
  options.cwd = job.cwd;
  options.walltime = job.walltime;
  options.memory = job.memory;
  options.project = job.project;
  options.app = job.app;
  options.extra_args = job.extra_args;
  if (job.command) {
    options.command = job.command;
  } else if (job.argv) {
    options.command = lsf::JoinShellQuoted(*job.argv);
  } else {
    options.script_on_stdin = true;
  }
  return options;
}

}  // namespace

struct Submitter::Run {
  JobRequest job;
  SubmitContext context;
  std::function<void(SubmissionResult)> done;
  std::shared_ptr<const UserPermissions> permissions;
  std::unordered_set<std::string> tried;
  SubmissionResult result;
};

Submitter::Submitter(lsf::CommandRunner& runner, const lsf::LsfInvoker& lsf, ClusterCache& cache,
                     InflightLedger& ledger, SubmitterOptions options)
    : runner_(runner), lsf_(lsf), cache_(cache), ledger_(ledger), options_(std::move(options)) {}

Result<Placement> Submitter::PlaceLocked(const PlacementRequest& request,
                                         const std::unordered_set<std::string>* permitted,
                                         const std::unordered_set<std::string>& tried) const {
  const auto snapshot = cache_.Current();
  const auto inflight = ledger_.Counts();
  auto rejections = cache_.Rejections(request.user);
  for (const std::string& queue : tried) {
    rejections.emplace(queue, "already tried for this request (see attempts)");
  }
  const auto rewrites = cache_.Rewrites();
  PlacementContext context;
  context.permitted_queues = permitted;
  context.inflight_slots = &inflight;
  context.rejections = &rejections;
  context.rewrites = &rewrites;
  context.excluded_queues = &options_.excluded_queues;
  context.allow_unknown_ib = options_.allow_unknown_ib;
  return Place(*snapshot, context, request);
}

Result<Placement> Submitter::DryRun(const PlacementRequest& request) const {
  const auto permissions = cache_.Permissions(request.user);
  std::lock_guard lock(place_mutex_);
  return PlaceLocked(request, permissions ? &permissions->queues : nullptr, {});
}

void Submitter::Submit(JobRequest job, SubmitContext context,
                       std::function<void(SubmissionResult)> done) {
  auto run = std::make_shared<Run>();
  run->job = std::move(job);
  run->context = std::move(context);
  run->done = std::move(done);
  run->result.host = run->job.host;
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

bool Submitter::AdmitLsfCall(Run& run) {
  if (options_.limiter == nullptr) return true;
  const RateLimiter::Decision decision = options_.limiter->AdmitLsfCall(SteadyClock::now());
  if (decision.allowed) return true;
  run.result.retry_after = decision.retry_after;
  run.result.error =
      Error{ErrorCode::kRateLimited,
            "the budget of LSF calls for requests ([limits] lsf_calls_per_minute) is used up; "
            "retry after " +
                std::to_string(decision.retry_after.count()) + " s"};
  return false;
}

void Submitter::Attempt(std::shared_ptr<Run> run) {
  SubmissionResult& result = run->result;
  if (static_cast<int>(result.attempts.size()) >= options_.max_attempts) {
    result.error = Error{ErrorCode::kConflict, "no queue accepted the job in " +
                                                   std::to_string(result.attempts.size()) +
                                                   " attempts (submit.max_attempts)"};
    Finish(std::move(run));
    return;
  }
  PlacementRequest request;
  request.user = run->context.user;
  request.host = run->job.host;
  request.queues = run->job.queues;
  request.require_ib = run->job.require_ib.value_or(options_.require_ib);
  std::string queue;
  InflightLedger::Ticket ticket = 0;
  const std::int64_t slots = run->job.slots.value_or(1);
  {
    std::lock_guard lock(place_mutex_);
    auto placement = PlaceLocked(request, &run->permissions->queues, run->tried);
    if (!placement) {
      result.error = placement.error();
      Finish(std::move(run));
      return;
    }
    if (placement->candidates.empty()) {
      result.error =
          Error{ErrorCode::kConflict,
                result.attempts.empty()
                    ? "no queue may take this job; see `excluded` for every queue's reason"
                    : "no queue accepted the job; see `attempts` and `excluded`"};
      result.placement = std::move(*placement);
      Finish(std::move(run));
      return;
    }
    const Candidate& best = placement->candidates.front();
    queue = best.queue;
    // Charge the queue the job will wait in (known esub rewrite), so the
    // next placement sees it at once.
    ticket = ledger_.Reserve(best.lands_in.empty() ? queue : best.lands_in, slots);
    result.placement = std::move(*placement);
  }
  run->tried.insert(queue);

  if (!AdmitLsfCall(*run)) {
    ledger_.Finish(ticket, false, SteadyClock::now());
    Finish(std::move(run));
    return;
  }
  const lsf::BsubOptions options =
      OptionsFor(run->job, queue, run->context.request_id,
                 request.require_ib && options_.ib_select
                     ? (options_.allow_unknown_ib ? kIbSelectOrUnknown : kIbSelect)
                     : nullptr);
  lsf::CommandSpec spec = run->context.run_as
                              ? lsf_.SpecAs(*run->context.run_as, "bsub", {}, run->job.script)
                              : lsf_.Spec("bsub", {}, run->job.script);
  spec.argv = lsf::BuildBsubArgv(lsf_.Path("bsub"), options);
  result.requested_queue = queue;
  result.bsub_argv = spec.argv;
  SubmitAttempt attempt;
  attempt.queue = queue;
  attempt.argv = spec.argv;

  runner_.Run(std::move(spec), [this, run, ticket, attempt = std::move(attempt)](
                                   Result<lsf::CommandResult> outcome) mutable {
    SubmissionResult& result = run->result;
    const auto now = SteadyClock::now();
    if (!outcome) {
      ledger_.Finish(ticket, false, now);
      attempt.outcome = "failed";
      attempt.message = outcome.error().message;
      result.attempts.push_back(std::move(attempt));
      result.error =
          Error{ErrorCode::kUnavailable, "bsub could not be started: " + outcome.error().message};
      Finish(std::move(run));
      return;
    }
    attempt.elapsed = outcome->elapsed;
    if (outcome->timed_out) {
      // The job may exist: never resubmit. Its slots stay counted until a
      // refresh can show it.
      ledger_.Finish(ticket, true, now);
      attempt.outcome = "timeout";
      attempt.message = "no answer within " + std::to_string(outcome->elapsed.count()) + " ms";
      result.attempts.push_back(std::move(attempt));
      result.error = Error{ErrorCode::kTimeout,
                           "bsub did not answer in time; the outcome is unknown and the job was "
                           "not resubmitted. Look for it with: bjobs -a -o \"jobid stat queue "
                           "job_description\" | grep bplace:" +
                               run->context.request_id};
      Finish(std::move(run));
      return;
    }
    const lsf::BsubReply reply =
        lsf::ClassifyBsubReply(outcome->exit_code, outcome->out, outcome->err);
    attempt.message = reply.message;
    switch (reply.outcome) {
      case lsf::BsubOutcome::kSubmitted:
        if (!reply.queue.empty() && reply.queue != attempt.queue) {
          spdlog::info("request_id={}: LSF put the job in queue {} instead of {} (esub rewrite?)",
                       run->context.request_id, reply.queue, attempt.queue);
          cache_.RememberRewrite(attempt.queue, reply.queue);
        }
        ledger_.Finish(ticket, true, now, reply.queue);
        attempt.outcome = "submitted";
        attempt.message = "Job <" + reply.job_id + "> is submitted to queue <" + reply.queue + ">";
        result.attempts.push_back(std::move(attempt));
        result.job_id = reply.job_id;
        result.queue = reply.queue;
        Finish(std::move(run));
        return;
      case lsf::BsubOutcome::kQueueRejected: {
        // Another queue may well accept it: LSF judged the queue, not the job.
        ledger_.Finish(ticket, false, now);
        attempt.outcome = "queue_rejected";
        const std::string rejected_queue = attempt.queue;
        result.attempts.push_back(std::move(attempt));
        if (WorthRemembering(reply.message)) {
          cache_.RememberRejection(run->context.user, rejected_queue,
                                   "bsub refused it for " + run->context.user + ": " +
                                       reply.message +
                                       " (remembered until the next topology "
                                       "refresh)");
        }
        Attempt(std::move(run));
        return;
      }
      case lsf::BsubOutcome::kJobRejected:
        ledger_.Finish(ticket, false, now);
        attempt.outcome = "job_rejected";
        result.attempts.push_back(std::move(attempt));
        result.error = Error{ErrorCode::kRejected, "LSF rejected the job: " + reply.message};
        Finish(std::move(run));
        return;
      case lsf::BsubOutcome::kUnavailable:
        ledger_.Finish(ticket, false, now);
        attempt.outcome = "unavailable";
        result.attempts.push_back(std::move(attempt));
        result.error = Error{ErrorCode::kUnavailable, "LSF is unavailable: " + reply.message};
        Finish(std::move(run));
        return;
      case lsf::BsubOutcome::kUnknown:
        ledger_.Finish(ticket, false, now);
        attempt.outcome = "failed";
        result.attempts.push_back(std::move(attempt));
        result.error = Error{ErrorCode::kCommandFailed,
                             "bsub exited with status " + std::to_string(outcome->exit_code) +
                                 " and no recognisable reply: " + reply.message};
        Finish(std::move(run));
        return;
    }
  });
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
  run->done(std::move(run->result));
}

}  // namespace bplace
