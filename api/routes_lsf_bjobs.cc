// POST /v1/lsf/bjobs (api/routes_lsf.h).

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/lsf_answer.h"
#include "api/http/problem.h"
#include "api/routes_lsf.h"
#include "daemon/cluster/job_table.h"
#include "lsf_adapter/bjobs_command_line.h"
#include "lsf_adapter/bjobs_writer.h"

namespace bplace::api {
namespace {

using nlohmann::json;

// The records bjobs would print for one id: the job, or every element of an
// array job asked for by its id. Empty when the id is not followed yet.
std::vector<const JobView*> ViewsFor(const JobTable& table, const lsf::JobId& id) {
  const JobKey key{std::stoll(id.job_id), id.array_index};
  if (const JobView* view = table.Find(key)) return {view};
  if (id.array_index == 0) return table.Elements(key.job_id);
  return {};
}

// LSF's record of a followed job as bjobs prints it now. A job LSF accepted
// is PEND in LSF's vocabulary until bjobs shows it (bplace's SUBMITTED).
lsf::JobRecord AsLsfPrintsIt(const JobView& view) {
  lsf::JobRecord record = view.lsf;
  if (record.status == kSubmittedStatus) record.status = "PEND";
  return record;
}

// Why the jobs data cannot answer now, or nullopt when it can.
std::optional<std::string> TooOld(const Services& services, const ClusterSnapshot& snapshot) {
  if (!snapshot.jobs || !snapshot.jobs_status.last_success) {
    return "the jobs tier has not answered yet";
  }
  const auto max_age = FrontDoorMaxAge(services.tracker->options().interval);
  const auto age = services.clock->SystemNow() - *snapshot.jobs_status.last_success;
  if (age > max_age) {
    return "the jobs data is " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(age).count()) +
           " s old (more than " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(max_age).count()) +
           " s)";
  }
  return std::nullopt;
}

// The answer for the ids of `line`, or the reason to ask LSF instead. Ids
// the jobs tier does not follow are followed from now on.
struct Chosen {
  std::vector<lsf::JobRecord> records;
  std::vector<std::string> missing;
};
tl::expected<Chosen, std::string> ChooseByIds(const Services& services, const Caller& caller,
                                              const ClusterSnapshot& snapshot,
                                              const lsf::BjobsCommandLine& line) {
  const std::string self = caller.user.empty() ? services.user : caller.user;
  Chosen chosen;
  std::vector<lsf::JobId> unknown;
  for (const std::string& text : line.ids) {
    const std::optional<lsf::JobId> id = lsf::ParseJobId(text);
    if (!id) return tl::unexpected(text + " is not a job id bplace reads (LSF will say)");
    const std::vector<const JobView*> views = ViewsFor(*snapshot.jobs, *id);
    if (!views.empty() && views.front()->not_found) {
      chosen.missing.push_back(text);  // LSF said so in the tier's last answer
      continue;
    }
    if (views.empty() || views.front()->lsf.status.empty()) {
      unknown.push_back(*id);
      continue;
    }
    for (const JobView* view : views) {
      if (view->lsf.user != self && !caller.is_admin) {
        return tl::unexpected("job " + text + " is " + view->lsf.user +
                              "'s: LSF decides what others may see");
      }
      chosen.records.push_back(AsLsfPrintsIt(*view));
    }
  }
  if (!unknown.empty()) {
    services.tracker->Watch(unknown, {});
    return tl::unexpected("bplace did not follow job " + unknown.front().job_id +
                          " yet (it does from now on)");
  }
  return chosen;
}

}  // namespace

std::chrono::milliseconds FrontDoorMaxAge(std::chrono::milliseconds jobs_interval) {
  return 3 * jobs_interval;
}

void PostLsfBjobs(const Services& services, const Caller& caller, Request&& req,
                  const RequestContext&, const RouteParams&, Responder respond) {
  const json body = json::parse(req.body(), nullptr, false);
  auto argv = ArgvOf(body);
  if (!argv) return respond(MakeProblem(argv.error()));
  if (services.tracker == nullptr) return respond(RunRealLsf(*argv, "no jobs tier here"));
  auto line = lsf::ParseBjobsCommandLine(*argv);
  if (!line) return respond(RunRealLsf(*argv, line.error().message));
  std::optional<lsf::BjobsFormat> format;
  if (line->format) {
    auto parsed = lsf::ParseBjobsFormat(*line->format);
    if (!parsed) return respond(RunRealLsf(*argv, parsed.error().message));
    format = std::move(*parsed);
  }
  if (line->ids.empty()) {
    return respond(RunRealLsf(*argv, "a list without job ids: the jobs tier follows jobs by id"));
  }
  const auto snapshot = services.cache->Current();
  if (auto old = TooOld(services, *snapshot)) return respond(RunRealLsf(*argv, *old));
  auto chosen = ChooseByIds(services, caller, *snapshot, *line);
  if (!chosen) return respond(RunRealLsf(*argv, chosen.error()));
  lsf::BjobsSelection selection;
  for (const lsf::JobRecord& record : chosen->records) selection.jobs.push_back(&record);
  selection.missing = chosen->missing;
  const lsf::BjobsOutput output = lsf::WriteBjobs(*line, format ? &*format : nullptr, selection);
  respond(AnswerAsLsf({output.out, output.err, output.exit_code}));
}

}  // namespace bplace::api
