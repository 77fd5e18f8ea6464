#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "common/clock.h"
#include "daemon/jobs/job_tracker.h"
#include "daemon/options.h"
#include "daemon/state/job_journal.h"
#include "daemon/submit/submitter.h"
#include "daemon/submit/tag_check.h"

namespace bplace {

// One POST /v1/jobs, decoded and identified by the API.
struct SubmissionCall {
  JobRequest job;
  SubmitContext context;  // context.tag must be set (the API derives it)
  // The client's key (Idempotency-Key, else its own X-Request-Id); unset:
  // every call is a new submission.
  std::optional<std::string> idempotency_key;
  std::string body_sha256;  // hex SHA-256 of the canonical body: "the same body"
  std::map<std::string, std::string> labels;
};

// What became of a call.
struct SubmissionAnswer {
  enum class Kind {
    kSubmitted,    // bsub ran (or the request was refused): render `result`, then Record
    kReplay,       // the key was answered before: send `http_status` and `body` again
    kInProgress,   // the key's first call has not been answered yet: 409 + Retry-After
    kKeyReused,    // the key came with another body: 422
    kStateFailed,  // the state store failed: `error` (503), nothing was submitted
  };
  Kind kind = Kind::kStateFailed;
  SubmissionResult result;
  int http_status = 0;
  std::string body;
  std::optional<Error> error;
};

// Exactly-once submission (docs/design.md "Submit"): the intent is written
// durably before bsub runs and the answer after it, so that the same caller +
// key + body gets the same answer and never a second bsub, and a crash or a
// timeout is reconciled through LSF by the job's tag (Reconciler). Without
// a state store (journal null) every call is a new submission, and only the
// in-process single-flight of a key holds. Submitted jobs are handed to the
// jobs tier. Thread-safe.
class SubmissionService {
 public:
  // All references must outlive the service; `journal` may be null.
  SubmissionService(Submitter& submitter, JobTracker& tracker, JobJournal* journal, Clock& clock,
                    lsf::CommandRunner& runner, const lsf::LsfInvoker& lsf,
                    ExactlyOnceOptions options = {});

  // Writes the intent, then submits; `done` gets the answer (on the
  // journal's worker or a runner thread). Never blocks the caller.
  void Submit(SubmissionCall call, std::function<void(SubmissionAnswer)> done);

  // Stores the answer rendered for a kSubmitted call (status and body, to be
  // replayed), follows the job when there is one, and then calls `stored`.
  // A timed-out bsub (kTimeout: the job may exist) is marked for
  // reconciliation instead of stored. Call exactly once per kSubmitted.
  void Record(const SubmissionCall& call, const SubmissionResult& result, int http_status,
              std::string body, std::function<void()> stored);

  // bjobs run by the cross-node key check so far (TagCheck::queries).
  std::uint64_t key_check_queries() const { return tag_check_.queries(); }

  // Tags of calls this process is submitting now: the reconciler leaves
  // them alone.
  bool InFlight(const std::string& tag) const;

  // Called (once, after the store marked it) for every call whose bsub
  // timed out: the composition root hands it to the Reconciler. Set before
  // the first Submit.
  void SetOnUnknown(std::function<void(const SubmissionCall&, SystemTime created_at)> on_unknown);

 private:
  void Run(SubmissionCall call, std::function<void(SubmissionAnswer)> done);
  // check_lsf_for_key: the job of the key's tag if LSF has one (another
  // login node's, adopted as the answer), else Run; LSF not answering is a
  // 503 (submitting could make a second job).
  void CheckLsfThenRun(SubmissionCall call, std::function<void(SubmissionAnswer)> done);
  void Adopt(const SubmissionCall& call, const lsf::JobRecord& job,
             std::function<void(SubmissionAnswer)> done);
  void Follow(const SubmissionCall& call, const SubmissionResult& result);

  Submitter& submitter_;
  JobTracker& tracker_;
  JobJournal* journal_;
  Clock& clock_;
  const ExactlyOnceOptions options_;
  TagCheck tag_check_;  // the cross-node check's batched bjobs
  std::function<void(const SubmissionCall&, SystemTime)> on_unknown_;
  mutable std::mutex mutex_;
  std::set<std::string> in_flight_;  // tags
};

}  // namespace bplace
