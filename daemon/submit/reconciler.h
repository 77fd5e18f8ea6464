#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "common/clock.h"
#include "daemon/cluster/refresh_tier.h"
#include "daemon/jobs/job_tracker.h"
#include "daemon/state/job_journal.h"
#include "daemon/submit/submission_service.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

// A submission whose outcome is not known: the daemon died between the
// intent and bsub's answer, or bsub timed out. The request's key and labels
// come along so that an adopted job is found by `?label=`, cancelled by
// label and shown with its key, as a job whose bsub answered is.
struct UnsettledSubmission {
  std::string caller;
  std::string tag;
  std::string request_id;
  SystemTime created_at{};
  std::optional<pid_t> bsub_pid;
  std::optional<std::string> idempotency_key;
  std::map<std::string, std::string> labels;
};

// What to do with an unsettled submission after one look at LSF.
struct Settlement {
  enum class Kind {
    kAdopt,    // LSF has a job with the tag: that is the answer
    kWait,     // a bsub may still be running or about to: look again later
    kRelease,  // LSF provably has no such job and no bsub is left: forget the intent
  };
  Kind kind = Kind::kWait;
  std::string job_id;
  std::string queue;
  std::string user;
  bool kill_bsub = false;  // the orphaned bsub ran past the command timeout: kill its group
};

// Decides one submission (pure): `jobs` are the caller's jobs LSF listed
// (bjobs -a -u CALLER, finished ones too), `bsub_alive` whether its
// recorded bsub still runs. A job whose description is exactly
// DescriptionTag(tag) is adopted. Otherwise the intent is released only
// when no bsub of it can still submit: none recorded as running, and the
// intent older than `command_timeout` (a bsub not yet recorded has been
// killed by then, or is running unrecorded in a daemon that died: give it
// that long). A live bsub older than the timeout is killed first.
Settlement Settle(const UnsettledSubmission& submission, const std::vector<lsf::JobRecord>& jobs,
                  bool bsub_alive, SystemTime now, std::chrono::milliseconds command_timeout);

// Reconciles unsettled submissions through LSF by their tag (docs/design.md
// "Submit"), at start-up and after every bsub that timed out, on the
// RefreshTier engine: one `bjobs -a -u CALLER -o "jobid stat queue user
// job_description" -json` per caller with unsettled submissions, per
// interval, until each is adopted (stored as the key's answer: a retry
// gets the job) or released (the key may be tried again). Where bjobs
// refuses those fields (volclava, LSF before 10.1) it asks `bjobs -a -l -u
// CALLER` instead: from the start when the daemon's BjobsDialect says so
// (learned by whichever asked first), else from its own first refused
// query on.
// Thread-safe.
class Reconciler {
 public:
  // All references must outlive the reconciler.
  Reconciler(boost::asio::any_io_executor executor, lsf::CommandRunner& runner, Clock& clock,
             SnapshotStore& store, const lsf::LsfInvoker& lsf, JobJournal& journal,
             SubmissionService& service, JobTracker& tracker, std::chrono::milliseconds interval);

  // Adds a submission to settle; it is looked at in the next run.
  void Add(UnsettledSubmission submission);
  void Start() { tier_.Start(); }
  void Stop() { tier_.Stop(); }
  void Refresh(RefreshTier::Done done = {}) { tier_.Refresh(std::move(done)); }
  // Sets how often unsettled submissions are looked for (jobs.refresh_s),
  // as RefreshTier::SetInterval. Thread-safe.
  void SetInterval(std::chrono::milliseconds interval) { tier_.SetInterval(interval); }
  // Submissions not settled yet.
  std::size_t Pending() const;

 private:
  TierCycle Cycle();
  void Apply(const UnsettledSubmission& submission, const Settlement& settlement);

  Clock& clock_;
  const lsf::LsfInvoker& lsf_;
  JobJournal& journal_;
  SubmissionService& service_;
  JobTracker& tracker_;
  mutable std::mutex mutex_;
  std::vector<UnsettledSubmission> pending_;
  RefreshTier tier_;
};

}  // namespace bplace
