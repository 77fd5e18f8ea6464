#include "daemon/submit/submission_service.h"

#include <charconv>
#include <utility>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "daemon/placement/job_waits.h"
#include "daemon/placement/placement.h"
#include "daemon/state/audit_log.h"
#include "daemon/submit/caller_jobs.h"

namespace bplace {
namespace {

SubmissionAnswer StateFailed(const Error& error) {
  SubmissionAnswer answer;
  answer.kind = SubmissionAnswer::Kind::kStateFailed;
  answer.error = Error{ErrorCode::kUnavailable,
                       "the state store failed, nothing was submitted: " + error.message};
  return answer;
}

SubmissionAnswer FromBegin(const BeginResult& begun) {
  SubmissionAnswer answer;
  switch (begun.outcome) {
    case BeginOutcome::kNew:
      answer.kind = SubmissionAnswer::Kind::kSubmitted;
      break;
    case BeginOutcome::kReplay:
      answer.kind = SubmissionAnswer::Kind::kReplay;
      answer.http_status = begun.submission.http_status.value_or(500);
      answer.body = begun.submission.response_body.value_or("{}");
      break;
    case BeginOutcome::kInProgress:
      answer.kind = SubmissionAnswer::Kind::kInProgress;
      break;
    case BeginOutcome::kBodyMismatch:
      answer.kind = SubmissionAnswer::Kind::kKeyReused;
      break;
  }
  return answer;
}

std::optional<std::int64_t> JobNumber(const std::string& job_id) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(job_id.data(), job_id.data() + job_id.size(), value);
  if (error != std::errc() || end != job_id.data() + job_id.size() || value <= 0) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

SubmissionService::SubmissionService(Submitter& submitter, JobTracker& tracker, JobJournal* journal,
                                     Clock& clock, lsf::CommandRunner& runner,
                                     const lsf::LsfInvoker& lsf, ExactlyOnceOptions options)
    : submitter_(submitter),
      tracker_(tracker),
      journal_(journal),
      clock_(clock),
      options_(options),
      tag_check_(runner, lsf, tracker.dialect()) {}

void SubmissionService::SetOnUnknown(
    std::function<void(const SubmissionCall&, SystemTime)> on_unknown) {
  on_unknown_ = std::move(on_unknown);
}

bool SubmissionService::InFlight(const std::string& tag) const {
  std::lock_guard lock(mutex_);
  return in_flight_.contains(tag);
}

void SubmissionService::Submit(SubmissionCall call, std::function<void(SubmissionAnswer)> done) {
  {
    std::lock_guard lock(mutex_);
    // The same key twice at once in this process: the second waits for the
    // first's answer (409), whatever the store says.
    if (!in_flight_.insert(call.context.tag).second) {
      SubmissionAnswer answer;
      answer.kind = SubmissionAnswer::Kind::kInProgress;
      done(std::move(answer));
      return;
    }
  }
  if (journal_ == nullptr) {
    Run(std::move(call), std::move(done));
    return;
  }
  SubmissionIntent intent{call.context.user, call.idempotency_key, call.context.request_id,
                          call.body_sha256,  call.context.tag,     call.labels,
                          clock_.SystemNow()};
  journal_->Post([this, intent = std::move(intent), call = std::move(call),
                  done = std::move(done)](JobStore& store) mutable {
    Result<BeginResult> begun = store.Begin(intent);
    SubmissionAnswer answer = begun ? FromBegin(*begun) : StateFailed(begun.error());
    if (answer.kind == SubmissionAnswer::Kind::kSubmitted) {
      // Durable now: bsub may run.
      LogAudit({{"event", "intent"},
                {"request_id", call.context.request_id},
                {"tag", call.context.tag},
                {"caller", call.context.user}});
      if (options_.check_lsf_for_key && call.idempotency_key) {
        CheckLsfThenRun(std::move(call), std::move(done));
      } else {
        Run(std::move(call), std::move(done));
      }
      return;
    }
    {
      std::lock_guard lock(mutex_);
      in_flight_.erase(call.context.tag);
    }
    done(std::move(answer));
  });
}

void SubmissionService::CheckLsfThenRun(SubmissionCall call,
                                        std::function<void(SubmissionAnswer)> done) {
  const std::string user = call.context.user;
  const std::string tag = call.context.tag;
  tag_check_.Find(
      user, tag,
      [this, call = std::move(call),
       done = std::move(done)](Result<std::optional<lsf::JobRecord>> found) mutable {
        if (!found) {
          // Unsure whether LSF has it: submitting could make a second job.
          {
            std::lock_guard lock(mutex_);
            in_flight_.erase(call.context.tag);
          }
          if (journal_)
            journal_->Post([tag = call.context.tag](JobStore& store) { (void)store.Release(tag); });
          SubmissionAnswer answer =
              StateFailed(Error{ErrorCode::kUnavailable,
                                "cannot check LSF for the key's job: " + found.error().message});
          return done(std::move(answer));
        }
        if (*found) return Adopt(call, **found, std::move(done));
        Run(std::move(call), std::move(done));
      });
}

void SubmissionService::Adopt(const SubmissionCall& call, const lsf::JobRecord& job,
                              std::function<void(SubmissionAnswer)> done) {
  SubmissionResult result;
  result.job_id = job.job_id;
  result.queue = job.queue;
  result.job_name = job.job_name.empty() ? call.job.job_name.value_or("") : job.job_name;
  Follow(call, result);
  const nlohmann::json body = {{"request_id", call.context.request_id},
                               {"user", call.context.user},
                               {"job_id", job.job_id},
                               {"queue", job.queue},
                               {"job_url", "/v1/jobs/" + job.job_id},
                               {"job_description", DescriptionTag(call.context.tag)},
                               {"idempotency_key", *call.idempotency_key},
                               {"reconciled", true}};
  SubmissionAnswer answer;
  answer.kind = SubmissionAnswer::Kind::kReplay;
  answer.http_status = 201;
  answer.body = body.dump();
  Record(call, result, answer.http_status, answer.body,
         [done = std::move(done), answer]() mutable { done(std::move(answer)); });
}

void SubmissionService::Run(SubmissionCall call, std::function<void(SubmissionAnswer)> done) {
  if (journal_ != nullptr) {
    call.context.on_bsub_started = [journal = journal_, tag = call.context.tag](pid_t pid) {
      journal->Post([tag, pid](JobStore& store) { (void)store.SetBsubPid(tag, pid); });
    };
  }
  JobRequest job = call.job;
  SubmitContext context = call.context;
  submitter_.Submit(std::move(job), std::move(context),
                    [done = std::move(done)](SubmissionResult result) {
                      SubmissionAnswer answer;
                      answer.kind = SubmissionAnswer::Kind::kSubmitted;
                      answer.result = std::move(result);
                      done(std::move(answer));
                    });
}

void SubmissionService::Record(const SubmissionCall& call, const SubmissionResult& result,
                               int http_status, std::string body, std::function<void()> stored) {
  Follow(call, result);
  auto release = [this, tag = call.context.tag, stored = std::move(stored)] {
    {
      std::lock_guard lock(mutex_);
      in_flight_.erase(tag);
    }
    stored();
  };
  if (journal_ == nullptr) {
    release();
    return;
  }
  const bool unknown = result.error && result.error->code == ErrorCode::kTimeout;
  SubmissionOutcome outcome;
  outcome.state = result.error ? SubmissionState::kFailed : SubmissionState::kSubmitted;
  outcome.job_id = JobNumber(result.job_id);
  outcome.http_status = http_status;
  outcome.response_body = std::move(body);
  journal_->Post([this, call, unknown, outcome = std::move(outcome),
                  release = std::move(release)](JobStore& store) {
    const SystemTime now = clock_.SystemNow();
    const std::string& tag = call.context.tag;
    auto written = unknown ? store.MarkUnknown(tag, now) : store.Finish(tag, outcome, now);
    if (!written) spdlog::error("state store: {}: {}", tag, written.error().message);
    release();
    if (unknown && written && on_unknown_) {
      auto row = store.FindByTag(tag);
      on_unknown_(call, row && *row ? (*row)->created_at : now);
    }
  });
}

void SubmissionService::Follow(const SubmissionCall& call, const SubmissionResult& result) {
  const auto number = JobNumber(result.job_id);
  if (result.error || !number) return;
  JobView view;
  view.lsf.job_id = result.job_id;
  view.lsf.status = kSubmittedStatus;
  view.lsf.user = call.context.user;
  view.lsf.queue = result.queue;
  view.lsf.job_name = result.job_name;
  view.lsf.job_description = DescriptionTag(call.context.tag);
  view.submitted_by_bplace = true;
  view.request_id = call.context.request_id;
  view.tag = call.context.tag;
  view.idempotency_key = call.idempotency_key.value_or("");
  view.labels = call.labels;
  view.requested_queue = result.requested_queue;
  if (result.placement) {
    for (const Candidate& candidate : result.placement->candidates) {
      if (candidate.queue == result.requested_queue) {
        view.predicted_start = ToPrediction(candidate.expected_start, BacklogShare(candidate));
        break;
      }
    }
  }
  view.submitted_at = clock_.SystemNow();
  view.updated_at = *view.submitted_at;
  tracker_.AddSubmitted(JobKey{*number, 0}, std::move(view));
}

}  // namespace bplace
