#include "daemon/jobs/job_canceller.h"

#include <utility>

#include "lsf_adapter/command_failure.h"

namespace bplace {

JobCanceller::JobCanceller(lsf::CommandRunner& runner, const lsf::LsfInvoker& lsf)
    : runner_(runner), lsf_(lsf) {}

Result<std::vector<CancelResult>> MatchBkillReply(const std::vector<lsf::JobId>& ids,
                                                  const std::vector<lsf::BkillResult>& lines) {
  for (const lsf::BkillResult& line : lines) {
    if (line.job_id.empty() && line.outcome == lsf::BkillOutcome::kUnavailable) {
      return Fail(ErrorCode::kUnavailable, "bkill: " + line.message);
    }
  }
  std::vector<CancelResult> results;
  for (const lsf::JobId& id : ids) {
    CancelResult result{id, lsf::BkillOutcome::kUnknown, "bkill said nothing about this job"};
    for (const lsf::BkillResult& line : lines) {
      if (line.job_id == id.job_id && line.array_index == id.array_index) {
        result.outcome = line.outcome;
        result.message = line.message;
      }
    }
    results.push_back(std::move(result));
  }
  return results;
}

void JobCanceller::Cancel(const std::vector<lsf::JobId>& ids,
                          const std::optional<identity::UserIdentity>& run_as,
                          std::function<void(Result<std::vector<CancelResult>>)> done) {
  if (ids.empty()) {
    done(Fail(ErrorCode::kInvalidArgument, "ids: no job to cancel"));
    return;
  }
  std::vector<std::string> args;
  for (const lsf::JobId& id : ids) args.push_back(lsf::JobIdText(id));
  lsf::CommandSpec spec =
      run_as ? lsf_.SpecAs(*run_as, "bkill", std::move(args)) : lsf_.Spec("bkill", std::move(args));
  runner_.Run(std::move(spec), [ids, done = std::move(done)](Result<lsf::CommandResult> result) {
    if (!result) {
      done(Fail(ErrorCode::kUnavailable, "bkill could not be started: " + result.error().message));
      return;
    }
    const lsf::CommandFailure failure = lsf::ClassifyFailure(*result);
    if (failure.kind == lsf::CommandFailureKind::kTransient && result->timed_out) {
      done(Fail(ErrorCode::kTimeout, "bkill: " + failure.reason));
      return;
    }
    done(
        MatchBkillReply(ids, lsf::ClassifyBkillReply(result->exit_code, result->out, result->err)));
  });
}

void JobCanceller::RunBkill(std::vector<std::string> args,
                            const std::optional<identity::UserIdentity>& run_as,
                            std::function<void(Result<lsf::CommandResult>)> done) {
  lsf::CommandSpec spec =
      run_as ? lsf_.SpecAs(*run_as, "bkill", std::move(args)) : lsf_.Spec("bkill", std::move(args));
  runner_.Run(std::move(spec), [done = std::move(done)](Result<lsf::CommandResult> result) {
    if (!result) {
      done(Fail(ErrorCode::kUnavailable, "bkill could not be started: " + result.error().message));
      return;
    }
    done(std::move(*result));
  });
}

}  // namespace bplace
