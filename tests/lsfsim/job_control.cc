#include "tests/lsfsim/job_control.h"

#include "tests/lsfsim/control.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

// Applies `change` to every unfinished job `ref_text` names, under the
// lock. `change` returns an error message to refuse a job (nothing is
// saved then).
template <typename Change>
int ChangeJobs(const StateDir& state, const std::string& ref_text, Change change) {
  std::optional<JobRef> ref = ParseJobRef(ref_text);
  if (!ref) return ControlUsageError("not a job id: " + ref_text);
  if (!state.HasLsfConf()) return ControlError(state.path() + ": not an lsfsim state directory");
  StateLock lock(state);
  if (!lock.ok()) return ControlError(lock.error());
  auto jobs = state.LoadJobs();
  if (!jobs) return ControlError(jobs.error());
  int changed = 0;
  for (Job& job : jobs->jobs) {
    if (!JobRefMatches(*ref, job) || IsFinished(job)) continue;
    if (std::string refused = change(&job); !refused.empty()) {
      return ControlError("job " + JobIdText(job) + ": " + refused);
    }
    ++changed;
  }
  if (changed == 0) return ControlError("no unfinished job " + ref_text);
  if (auto saved = state.SaveJobs(*jobs); !saved) return ControlError(saved.error());
  return 0;
}

// Whether a job in `from` may be put in `to` by set-job.
bool AllowedTransition(const Job& job, const std::string& to) {
  bool dispatched = HoldsSlots(job);
  if (IsPendingState(to)) return IsPending(job);
  if (to == "ZOMBI") return dispatched || job.status == "ZOMBI";
  return dispatched;  // RUN USUSP SSUSP UNKWN
}

}  // namespace

int FinishJobCommand(const StateDir& state, const std::vector<std::string>& args) {
  if (args.empty()) return ControlUsageError("usage: finish JOBID [--exit N] [--reason TEXT]");
  long long exit_code = 0;
  std::string reason;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--exit" && i + 1 < args.size()) {
      if (!ParseInt(args[++i], &exit_code) || exit_code > 255) {
        return ControlUsageError("finish: --exit takes 0-255");
      }
    } else if (args[i] == "--reason" && i + 1 < args.size()) {
      reason = args[++i];
    } else {
      return ControlUsageError("finish: unexpected argument '" + args[i] + "'");
    }
  }
  long long now = NowSeconds();
  return ChangeJobs(state, args[0], [&](Job* job) -> std::string {
    if (!HoldsSlots(*job) && job->status != "ZOMBI") return "has not been dispatched";
    job->status = exit_code == 0 ? "DONE" : "EXIT";
    job->exit_code = static_cast<int>(exit_code);
    job->exit_reason = reason;
    job->end_time = now;
    return "";
  });
}

int SetJobCommand(const StateDir& state, const std::vector<std::string>& args) {
  if (args.size() != 2)
    return ControlUsageError("usage: set-job JOBID PEND|PSUSP|RUN|USUSP|SSUSP|UNKWN|ZOMBI");
  const std::string& to = args[1];
  bool known = false;
  for (const char* s : kJobStates) known = known || to == s;
  if (!known || IsFinishedState(to)) {
    return ControlUsageError(
        "set-job: state must be PEND PSUSP RUN USUSP SSUSP UNKWN or ZOMBI (finish ends a job)");
  }
  return ChangeJobs(state, args[0], [&](Job* job) -> std::string {
    if (!AllowedTransition(*job, to)) return "cannot go from " + job->status + " to " + to;
    job->status = to;
    return "";
  });
}

}  // namespace bplace::lsfsim
