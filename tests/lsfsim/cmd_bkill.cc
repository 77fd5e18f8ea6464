// bkill (LSF 10.1 messages and exit statuses; see lsf/FORMATS.md and
// lsf/openlava-samples.md).

#include <algorithm>
#include <cctype>
#include <set>

#include "tests/lsfsim/command_util.h"
#include "tests/lsfsim/commands.h"
#include "tests/lsfsim/job_state.h"
#include "tests/lsfsim/resolver.h"
#include "tests/lsfsim/util.h"
#include "tests/lsfsim/view.h"

namespace bplace::lsfsim {

CommandResult RunBkill(const Context& ctx, const std::vector<std::string>& args) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-s") {
      ++i;  // The signal does not matter: every job ends as EXIT.
    } else if (!arg.empty() && arg[0] == '-') {
      return Fail("Usage: bkill [-h] [-V] [-s signal_value] [jobId ...]");
    } else {
      ids.push_back(arg);
    }
  }
  if (ids.empty()) return Fail("Usage: bkill [-h] [-V] [-s signal_value] [jobId ...]");

  StateLock lock(*ctx.state);
  if (!lock.ok()) return InternalError(lock.error());
  auto loaded = LoadState(*ctx.state);
  if (!loaded) return InternalError(loaded.error());
  JobTable& table = loaded->jobs;
  const ClusterDef& cluster = *ctx.cluster;

  auto may_kill = [&](const Job& job) {
    if (job.user == ctx.user || cluster.IsLsfAdmin(ctx.user)) return true;
    std::optional<size_t> q = cluster.FindQueue(job.queue);
    if (!q) return false;
    for (const std::string& admin : cluster.queues[*q].administrators) {
      if (admin == ctx.user) return true;
    }
    return false;
  };

  CommandResult result;
  bool changed = false;
  for (const std::string& text : ids) {
    long long id = 0;
    if (!ParseInt(text, &id)) {
      result.err += text + ": Illegal job ID.\n";
      result.exit_code = 255;
      continue;
    }
    if (id == 0) {
      // `bkill 0` kills all of the caller's unfinished jobs.
      int killed = 0;
      for (Job& job : table.jobs) {
        if (job.user != ctx.user || IsFinished(job)) continue;
        job.status = "EXIT";
        job.end_time = ctx.now;
        result.out += StrPrintf("Job <%lld> is being terminated\n", job.id);
        ++killed;
        changed = true;
      }
      if (killed == 0) {
        result.err += "No unfinished job found\n";
        result.exit_code = 255;
      }
      continue;
    }
    Job* found = nullptr;
    for (Job& job : table.jobs) {
      if (job.id == id) found = &job;
    }
    if (found == nullptr) {
      result.err += StrPrintf("Job <%lld>: No matching job found\n", id);
      result.exit_code = 255;
    } else if (IsFinished(*found)) {
      result.err += StrPrintf("Job <%lld>: Job has already finished\n", id);
      result.exit_code = 255;
    } else if (!may_kill(*found)) {
      result.err += StrPrintf("Job <%lld>: User permission denied\n", id);
      result.exit_code = 255;
    } else {
      found->status = "EXIT";
      found->end_time = ctx.now;
      result.out += StrPrintf("Job <%lld> is being terminated\n", id);
      changed = true;
    }
  }
  if (changed) {
    if (auto saved = ctx.state->SaveJobs(table); !saved) return InternalError(saved.error());
  }
  return result;
}

}  // namespace bplace::lsfsim
