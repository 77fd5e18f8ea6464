#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "identity/user_identity.h"
#include "lsf_adapter/bkill_reply.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/job_record.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

// What became of one id of a cancel request.
struct CancelResult {
  lsf::JobId id;
  lsf::BkillOutcome outcome = lsf::BkillOutcome::kUnknown;
  std::string message;  // LSF's words
};

// Runs `bkill` for a caller (docs/design.md "Jobs"): one bkill for a whole
// batch of ids, as the caller in multi-user mode (a child that drops to them,
// like bsub), else as the daemon. LSF decides who may kill what; its answer is
// classified per id. Thread-safe.
class JobCanceller {
 public:
  // References must outlive the canceller.
  JobCanceller(lsf::CommandRunner& runner, const lsf::LsfInvoker& lsf);

  // Kills `ids` (each checked with lsf::ParseJobId by the caller) as
  // `run_as` (null: as the daemon). `done` gets one result per id, on a
  // runner thread; an id the reply does not mention is kUnknown. Errors:
  // kUnavailable when bkill could not start or LSF is down, kTimeout when it
  // did not answer within the command timeout, kInvalidArgument for no ids.
  void Cancel(const std::vector<lsf::JobId>& ids,
              const std::optional<identity::UserIdentity>& run_as,
              std::function<void(Result<std::vector<CancelResult>>)> done);

  // Runs one `bkill ARGS...` (checked by lsf::ParseBkillCommandLine) as
  // `run_as` (null: as the daemon) and hands `done` bkill's own output and
  // exit status, on a runner thread: the front door prints them as they
  // are. Errors: kUnavailable when bkill could not be started.
  void RunBkill(std::vector<std::string> args, const std::optional<identity::UserIdentity>& run_as,
                std::function<void(Result<lsf::CommandResult>)> done);

 private:
  lsf::CommandRunner& runner_;
  const lsf::LsfInvoker& lsf_;
};

// The per-id results of one bkill reply for `ids` (pure): each id gets the
// line about it; a whole-call kUnavailable makes the call an error.
Result<std::vector<CancelResult>> MatchBkillReply(const std::vector<lsf::JobId>& ids,
                                                  const std::vector<lsf::BkillResult>& lines);

}  // namespace bplace
