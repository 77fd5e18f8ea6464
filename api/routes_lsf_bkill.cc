// POST /v1/lsf/bkill (api/routes_lsf.h).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/job_access.h"
#include "api/lsf_answer.h"
#include "api/routes_lsf.h"
#include "daemon/cluster/job_table.h"
#include "lsf_adapter/bkill_command_line.h"

namespace bplace::api {
namespace {

using nlohmann::json;

// Whether every id is a job the jobs tier follows, of `self` (or the caller
// is an admin), and whether all of them are finished. The reason when the
// daemon cannot answer for them.
struct Known {
  bool all_finished = true;
};
tl::expected<Known, std::string> Check(const JobTable& table, const std::vector<lsf::JobId>& ids,
                                       const std::string& self, bool is_admin) {
  Known known;
  for (const lsf::JobId& id : ids) {
    const JobView* view = table.Find(KeyOf(id));
    if (view == nullptr || view->lsf.status.empty() || view->not_found) {
      return tl::unexpected("bplace does not follow job " + lsf::JobIdText(id));
    }
    if (view->lsf.user != self && !is_admin) {
      return tl::unexpected("job " + lsf::JobIdText(id) + " is " + view->lsf.user + "'s");
    }
    known.all_finished = known.all_finished && view->terminal;
  }
  return known;
}

// What bkill prints for jobs that have all finished (LSF 10.1, lsb_perror's
// form; docs/lsf-formats.md "bkill"): a line each on stderr, exit 255.
LsfOutput AllFinished(const std::vector<lsf::JobId>& ids) {
  LsfOutput output;
  for (const lsf::JobId& id : ids)
    output.err += "Job <" + lsf::JobIdText(id) + ">: Job has already finished\n";
  output.exit_code = 255;
  return output;
}

}  // namespace

void PostLsfBkill(const Services& services, const Caller& caller, Request&& req,
                  const RequestContext&, const RouteParams&, Responder respond) {
  const json body = json::parse(req.body(), nullptr, false);
  auto argv = ArgvOf(body);
  if (!argv) return respond(MakeProblem(argv.error()));
  if (services.tracker == nullptr || services.canceller == nullptr) {
    return respond(RunRealLsf(*argv, "no jobs tier here"));
  }
  auto line = lsf::ParseBkillCommandLine(*argv);
  if (!line) return respond(RunRealLsf(*argv, line.error().message));
  if (CancelRefusal(caller)) return respond(RunRealLsf(*argv, "the caller may not cancel here"));
  if (line->ids.empty() && !services.multi_user()) {
    // bkill 0 and -J act on every job of the LSF user, which is the service
    // account's for all callers here: LSF's bkill, run by the caller as
    // their own user, decides.
    return respond(
        RunRealLsf(*argv, "bkill 0 and -J are answered by bplace only in multi-user mode"));
  }
  if (!line->ids.empty()) {
    const std::string self = caller.user.empty() ? services.user : caller.user;
    const auto snapshot = services.cache.Current();
    if (!snapshot->jobs) return respond(RunRealLsf(*argv, "the jobs tier has not answered yet"));
    auto known = Check(*snapshot->jobs, line->ids, self, caller.is_admin);
    if (!known) return respond(RunRealLsf(*argv, known.error()));
    if (known->all_finished) return respond(AnswerAsLsf(AllFinished(line->ids)));
  }
  auto killer = KillerIdentity(services, caller);
  if (!killer) return respond(RunRealLsf(*argv, killer.error().message));
  services.canceller->RunBkill(
      *argv, *killer,
      [s = &services, args = *argv,
       respond = std::move(respond)](Result<lsf::CommandResult> result) mutable {
        if (!result || result->timed_out) {
          // Nothing printed for the engine yet: the real bkill gives LSF's answer.
          return respond(RunRealLsf(args, result ? "bkill timed out" : result.error().message));
        }
        s->tracker->RefreshSoon();
        respond(AnswerAsLsf({result->out, result->err, result->exit_code}));
      });
}

}  // namespace bplace::api
