#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "daemon/cluster/bjobs_dialect.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/job_record.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

// The cross-node check of a keyed submission (docs/operations.md "Several
// login nodes"): before the first bsub of a key this daemon has not seen,
// does LSF already hold the caller's job tagged with the key's tag (-Jd
// bplace:<tag>), submitted by another login node's bplaced? Asked with
// CallerJobsQuery, `bjobs -a -u CALLER -o ... -json`, or `bjobs -a -l -u
// CALLER` where the daemon's BjobsDialect needs the long form (the table
// form shows no job description). The first refused -o/-json answer teaches
// the dialect and the same batch is asked again at once in the long form.
//
// Cost: one bjobs per batch of one caller's checks. A check waits for a
// query that starts after it was asked (one already running may have
// started before another node's bsub ended), so the checks of a caller
// that arrive while a query runs share the next one: a burst of N keyed
// submissions of one caller costs at most 2 queries, one alone costs 1.
// Thread-safe.
class TagCheck {
 public:
  // The job with the tag, none (nullopt), or why LSF could not be asked
  // (the errors of ReadCallerJobs).
  using Done = std::function<void(Result<std::optional<lsf::JobRecord>>)>;

  // All references must outlive the check.
  TagCheck(lsf::CommandRunner& runner, const lsf::LsfInvoker& lsf, BjobsDialect& dialect);

  // Looks for `caller`'s job whose description is exactly
  // DescriptionTag(tag), in an answer of LSF to a query started after this
  // call; `done` is called once, on a runner thread.
  void Find(const std::string& caller, const std::string& tag, Done done);

  // bjobs run so far (each batch's, and the one repeat after a refusal).
  std::uint64_t queries() const;

 private:
  struct Waiter {
    std::string tag;
    Done done;
  };
  struct Caller {
    bool running = false;
    std::vector<Waiter> waiting;  // asked while a query ran: the next one's batch
  };
  // Runs one query for `batch` (mutex_ not held).
  void Ask(const std::string& caller, std::vector<Waiter> batch);
  // Answers `batch`, then starts the next batch of `caller` or ends.
  void Answer(const std::string& caller, std::vector<Waiter> batch,
              const Result<std::vector<lsf::JobRecord>>& jobs);

  lsf::CommandRunner& runner_;
  const lsf::LsfInvoker& lsf_;
  BjobsDialect& dialect_;
  mutable std::mutex mutex_;
  std::map<std::string, Caller> callers_;  // callers with a query running
  std::uint64_t queries_ = 0;
};

}  // namespace bplace
