#include "daemon/submit/reconciler.h"

#include <signal.h>

#include <fstream>
#include <map>
#include <set>
#include <utility>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "daemon/submit/caller_jobs.h"

namespace bplace {
namespace {

// True when `pid` is a live process whose command line names bsub: the
// recorded pid of a bsub, not one the kernel has given to another program.
bool BsubAlive(std::optional<pid_t> pid) {
  if (!pid || *pid <= 0) return false;
  if (::kill(*pid, 0) != 0 && errno != EPERM) return false;
  std::ifstream cmdline("/proc/" + std::to_string(*pid) + "/cmdline");
  std::string argv0;
  std::getline(cmdline, argv0, '\0');
  return argv0.size() >= 4 && argv0.compare(argv0.size() - 4, 4, "bsub") == 0;
}

std::string AdoptedBody(const UnsettledSubmission& submission, const Settlement& settlement) {
  const nlohmann::json body = {
      {"request_id", submission.request_id},
      {"user", settlement.user.empty() ? submission.caller : settlement.user},
      {"job_id", settlement.job_id},
      {"queue", settlement.queue},
      {"job_url", "/v1/jobs/" + settlement.job_id},
      {"job_description", DescriptionTag(submission.tag)},
      {"idempotency_key",
       submission.idempotency_key ? nlohmann::json(*submission.idempotency_key) : nlohmann::json()},
      {"labels", submission.labels},
      {"reconciled", true}};
  return body.dump();
}

}  // namespace

Settlement Settle(const UnsettledSubmission& submission, const std::vector<lsf::JobRecord>& jobs,
                  bool bsub_alive, SystemTime now, std::chrono::milliseconds command_timeout) {
  Settlement settlement;
  if (const lsf::JobRecord* job = FindTagged(jobs, submission.tag)) {
    settlement.kind = Settlement::Kind::kAdopt;
    settlement.job_id = job->job_id;
    settlement.queue = job->queue;
    settlement.user = job->user;
    return settlement;
  }
  const bool old = now - submission.created_at > command_timeout;
  if (bsub_alive) {
    settlement.kill_bsub = old;
    return settlement;
  }
  settlement.kind = old ? Settlement::Kind::kRelease : Settlement::Kind::kWait;
  return settlement;
}

Reconciler::Reconciler(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                       Clock& clock, SnapshotStore& store, const lsf::LsfInvoker& lsf,
                       JobJournal& journal, SubmissionService& service, JobTracker& tracker,
                       std::chrono::milliseconds interval)
    : clock_(clock),
      lsf_(lsf),
      journal_(journal),
      service_(service),
      tracker_(tracker),
      tier_(executor, runner, clock, store, {"reconcile", interval, interval, nullptr},
            [this] { return Cycle(); }) {}

void Reconciler::Add(UnsettledSubmission submission) {
  {
    std::lock_guard lock(mutex_);
    for (const auto& known : pending_) {
      if (known.tag == submission.tag) return;
    }
    pending_.push_back(std::move(submission));
  }
  tier_.Refresh();
}

std::size_t Reconciler::Pending() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

TierCycle Reconciler::Cycle() {
  std::vector<UnsettledSubmission> pending;
  {
    std::lock_guard lock(mutex_);
    for (const auto& submission : pending_) {
      if (!service_.InFlight(submission.tag)) pending.push_back(submission);
    }
  }
  std::vector<std::string> callers;
  for (const auto& submission : pending) {
    if (std::find(callers.begin(), callers.end(), submission.caller) == callers.end()) {
      callers.push_back(submission.caller);
    }
  }
  // Where bjobs lacks -o/-json fields (volclava), the long form shows the
  // job description. Whoever learns it first (the jobs tier, the key
  // check, this) teaches the others: after a restart the jobs tier may
  // follow no unfinished job, and so run no bjobs.
  const bool long_form = tracker_.dialect().NeedsTableForm();
  TierCycle cycle;
  for (const std::string& caller : callers) {
    cycle.queries.push_back({"bjobs -a -u " + caller, CallerJobsQuery(lsf_, caller, long_form)});
  }
  cycle.build = [this, pending, callers, long_form](
                    auto& results, const CycleTimes& times) -> Result<SnapshotStore::Change> {
    std::map<std::string, std::vector<lsf::JobRecord>> jobs;
    for (std::size_t i = 0; i < callers.size(); ++i) {
      if (!long_form && results[i] && tracker_.dialect().LearnFrom(*results[i], "reconcile")) {
        continue;  // asked again in the long form next time
      }
      auto records = ReadCallerJobs(std::move(results[i]), long_form);
      // A caller LSF could not be asked about keeps waiting.
      if (!records) {
        spdlog::warn("reconcile: {}", records.error().message);
        continue;
      }
      jobs[callers[i]] = std::move(*records);
    }
    for (const UnsettledSubmission& submission : pending) {
      const auto found = jobs.find(submission.caller);
      if (found == jobs.end()) continue;
      Apply(submission, Settle(submission, found->second, BsubAlive(submission.bsub_pid),
                               times.started_wall, lsf_.timeout()));
    }
    return SnapshotStore::Change{};
  };
  return cycle;
}

void Reconciler::Apply(const UnsettledSubmission& submission, const Settlement& settlement) {
  if (settlement.kill_bsub && submission.bsub_pid) {
    spdlog::warn("reconcile: {}: killing the orphaned bsub (pid {}), past its timeout",
                 submission.tag, *submission.bsub_pid);
    ::kill(-*submission.bsub_pid, SIGKILL);
  }
  if (settlement.kind == Settlement::Kind::kWait) return;
  {
    std::lock_guard lock(mutex_);
    std::erase_if(pending_, [&](const auto& known) { return known.tag == submission.tag; });
  }
  if (settlement.kind == Settlement::Kind::kRelease) {
    spdlog::info("reconcile: {}: LSF has no such job; the key may be used again", submission.tag);
    journal_.Post([tag = submission.tag](JobStore& store) { (void)store.Release(tag); });
    return;
  }
  spdlog::info("reconcile: {}: LSF has it as job {}", submission.tag, settlement.job_id);
  SubmissionOutcome outcome;
  outcome.state = SubmissionState::kSubmitted;
  outcome.job_id = std::stoll(settlement.job_id);
  outcome.http_status = 201;
  outcome.response_body = AdoptedBody(submission, settlement);
  journal_.Post([tag = submission.tag, outcome, now = clock_.SystemNow()](JobStore& store) {
    if (auto done = store.Finish(tag, outcome, now); !done) {
      spdlog::error("reconcile: {}: {}", tag, done.error().message);
    }
  });
  JobView view;
  view.lsf.job_id = settlement.job_id;
  view.lsf.status = kSubmittedStatus;
  view.lsf.user = settlement.user;
  view.lsf.queue = settlement.queue;
  view.lsf.job_description = DescriptionTag(submission.tag);
  view.submitted_by_bplace = true;
  view.request_id = submission.request_id;
  view.tag = submission.tag;
  view.idempotency_key = submission.idempotency_key.value_or("");
  view.labels = submission.labels;
  view.submitted_at = submission.created_at;
  view.updated_at = clock_.SystemNow();
  tracker_.AddSubmitted(JobKey{*outcome.job_id, 0}, std::move(view));
}

}  // namespace bplace
