// POST /v1/lsf/bjobs (api/routes_lsf.h).

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/bjobs_list_answer.h"
#include "api/http/problem.h"
#include "api/job_access.h"
#include "api/lsf_answer.h"
#include "api/routes_lsf.h"
#include "daemon/cluster/job_table.h"
#include "daemon/jobs/job_lookups.h"
#include "daemon/jobs/long_forms.h"
#include "lsf_adapter/bjobs_command_line.h"
#include "lsf_adapter/bjobs_writer.h"

namespace bplace::api {
namespace {

using nlohmann::json;

// The records bjobs would print for one id: the job, or every element of an
// array job asked for by its id. Empty when the id is not followed yet.
std::vector<const JobView*> ViewsFor(const JobTable& table, const lsf::JobId& id) {
  const JobKey key = KeyOf(id);
  if (const JobView* view = table.Find(key)) return {view};
  if (id.array_index == 0) return table.Elements(key.job_id);
  return {};
}

// LSF's record of a followed job as bjobs prints it now (PrintedStatus).
lsf::JobRecord AsLsfPrintsIt(const JobView& view) {
  lsf::JobRecord record = view.lsf;
  record.status = PrintedStatus(view);
  return record;
}

// Why the jobs data cannot answer now, or nullopt when it can.
std::optional<std::string> TooOld(const Services& services, const ClusterSnapshot& snapshot) {
  if (!snapshot.jobs || !snapshot.jobs_status.last_success) {
    return "the jobs tier has not answered yet";
  }
  const auto max_age = FrontDoorMaxAge(services.tracker->options().interval);
  const auto age = services.clock.SystemNow() - *snapshot.jobs_status.last_success;
  if (age > max_age) {
    return "the jobs data is " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(age).count()) +
           " s old (more than " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(max_age).count()) +
           " s)";
  }
  return std::nullopt;
}

// The answer for the ids of `line` from `snapshot`, or the reason to ask
// LSF instead. `unknown`: ids the jobs tier does not follow yet (no answer
// until they are looked up).
struct Chosen {
  std::vector<lsf::JobRecord> records;
  std::vector<std::string> missing;
  std::vector<lsf::JobId> unknown;
};
tl::expected<Chosen, std::string> ChooseByIds(const Services& services, const Caller& caller,
                                              const ClusterSnapshot& snapshot,
                                              const lsf::BjobsCommandLine& line) {
  const std::string self = caller.user.empty() ? services.user : caller.user;
  Chosen chosen;
  for (const std::string& text : line.ids) {
    const std::optional<lsf::JobId> id = lsf::ParseJobId(text);
    if (!id) return tl::unexpected(text + " is not a job id bplace reads (LSF will say)");
    const std::vector<const JobView*> views = ViewsFor(*snapshot.jobs, *id);
    if (!views.empty() && views.front()->not_found) {
      chosen.missing.push_back(text);  // LSF said so in the tier's last answer
      continue;
    }
    if (views.empty() || views.front()->lsf.status.empty()) {
      chosen.unknown.push_back(*id);
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
  return chosen;
}

// The jobs tier's copies of the `bjobs -l` blocks of `records` (LongForms),
// in order, or the keys of those it lacks (asked for, so that the tier's
// next cycle fetches them).
tl::expected<std::vector<std::string>, std::vector<JobKey>> LongBlocks(
    const Services& services, const std::vector<lsf::JobRecord>& records) {
  LongForms& forms = services.tracker->long_forms();
  const SystemTime now = services.clock.SystemNow();
  std::vector<std::string> blocks;
  std::vector<JobKey> lacking;
  for (const lsf::JobRecord& record : records) {
    const JobKey key{std::stoll(record.job_id), record.array_index};
    if (auto block = forms.Find(key, record.status, now)) {
      blocks.push_back(std::move(*block));
    } else {
      lacking.push_back(key);
    }
  }
  if (lacking.empty()) return blocks;
  forms.Ask(lacking, now);
  return tl::unexpected(std::move(lacking));
}

// The answer to `line`: from the jobs tier, or the real bjobs to run.
// `not_found`: ids LSF told this caller's lookups it does not know
// (JobLookups' negative cache), answered as bjobs answers them. For -l,
// `lacking` (when given) receives the jobs whose `bjobs -l` block the tier
// has not read yet; the answer is then the real bjobs.
Response Answer(const Services& services, const Caller& caller,
                const std::vector<std::string>& argv, const lsf::BjobsCommandLine& line,
                const lsf::BjobsFormat* format, const std::vector<lsf::JobId>& not_found = {},
                std::vector<JobKey>* lacking = nullptr) {
  const auto snapshot = services.cache.Current();
  if (auto old = TooOld(services, *snapshot)) return RunRealLsf(argv, *old);
  auto chosen = ChooseByIds(services, caller, *snapshot, line);
  if (!chosen) return RunRealLsf(argv, chosen.error());
  std::erase_if(chosen->unknown, [&](const lsf::JobId& id) {
    const bool said = std::any_of(not_found.begin(), not_found.end(), [&](const lsf::JobId& gone) {
      return gone.job_id == id.job_id && gone.array_index == id.array_index;
    });
    if (said) chosen->missing.push_back(lsf::JobIdText(id));
    return said;
  });
  if (!chosen->unknown.empty()) {
    return RunRealLsf(
        argv, "LSF has not answered bplace about job " + chosen->unknown.front().job_id + " yet");
  }
  lsf::BjobsSelection selection;
  for (const lsf::JobRecord& record : chosen->records) selection.jobs.push_back(&record);
  selection.missing = chosen->missing;
  std::vector<std::string> blocks;
  if (line.long_form) {
    auto read = LongBlocks(services, chosen->records);
    if (!read) {
      if (lacking != nullptr) *lacking = read.error();
      return RunRealLsf(argv, "bplace has not read LSF's bjobs -l of job " +
                                  std::to_string(read.error().front().job_id) + " yet");
    }
    blocks = std::move(*read);
    selection.long_blocks.assign(blocks.begin(), blocks.end());
  }
  const lsf::BjobsOutput output = lsf::WriteBjobs(line, format, selection);
  return AnswerAsLsf({output.out, output.err, output.exit_code});
}

// Answers `line` (Answer); for -l, when the tier lacks a job's `bjobs -l`
// block, waits once for the tier's next cycle, which fetches it, then
// answers from it or runs the real bjobs.
void AnswerOrWait(const Services& services, const Caller& caller,
                  const std::vector<std::string>& argv, const lsf::BjobsCommandLine& line,
                  const std::optional<lsf::BjobsFormat>& format,
                  const std::vector<lsf::JobId>& not_found, Responder respond) {
  std::vector<JobKey> lacking;
  Response response =
      Answer(services, caller, argv, line, format ? &*format : nullptr, not_found, &lacking);
  if (lacking.empty()) return respond(std::move(response));
  services.tracker->RefreshSoon([s = &services, caller, argv, line, format, not_found,
                                 respond = std::move(respond)](Result<void>) {
    respond(Answer(*s, caller, argv, line, format ? &*format : nullptr, not_found));
  });
}

// Looks `ids` up within the caller's budget of lookups (JobLookups, as GET
// /v1/jobs/{id}: one bjobs shared by everyone asking, a negative cache per
// caller), then calls `done` once the jobs tier has asked LSF, with the ids
// the negative cache answered; at once, with the reason, when the budget
// refuses.
using LookedUp =
    std::function<void(std::optional<std::string> refused, std::vector<lsf::JobId> not_found)>;
void LookUp(const Services& services, const Caller& caller, const std::vector<lsf::JobId>& ids,
            LookedUp done) {
  JobLookups& lookups = services.tracker->lookups();
  const std::string who = LookupCallerName(services, caller);
  std::vector<lsf::JobId> begun;
  std::vector<lsf::JobId> not_found;
  for (const lsf::JobId& id : ids) {
    const JobKey key = KeyOf(id);
    const auto verdict = lookups.Begin(who, key, services.clock.SystemNow());
    if (verdict.admission == JobLookups::Admission::kLookUp) {
      begun.push_back(id);
    } else if (verdict.admission == JobLookups::Admission::kNotFound) {
      not_found.push_back(id);
    } else {
      for (const lsf::JobId& started : begun) {
        lookups.Finish(who, KeyOf(started), false, services.clock.SystemNow());
      }
      return done("too many lookups of jobs bplace does not follow in progress", {});
    }
  }
  if (begun.empty()) return done(std::nullopt, std::move(not_found));
  services.tracker->Watch(
      begun, [s = &services, who, begun, not_found, done = std::move(done)](Result<void>) {
        const auto snapshot = s->cache.Current();
        for (const lsf::JobId& id : begun) {
          const JobKey key = KeyOf(id);
          const JobView* job = snapshot->jobs ? snapshot->jobs->Find(key) : nullptr;
          s->tracker->lookups().Finish(who, key, job != nullptr && job->not_found,
                                       s->clock.SystemNow());
        }
        done(std::nullopt, not_found);
      });
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
    return AnswerBjobsList(services, caller, *argv, *line, std::move(format), std::move(respond));
  }
  const auto snapshot = services.cache.Current();
  if (auto old = TooOld(services, *snapshot)) return respond(RunRealLsf(*argv, *old));
  auto chosen = ChooseByIds(services, caller, *snapshot, *line);
  if (!chosen || chosen->unknown.empty()) {
    return AnswerOrWait(services, caller, *argv, *line, format, {}, std::move(respond));
  }
  // Ids bplace does not follow (a job submitted without it): looked up once,
  // then answered like the others; an engine polling them is answered from
  // then on.
  LookUp(services, caller, chosen->unknown,
         [s = &services, caller, argv = *argv, line = *line, format, respond = std::move(respond)](
             std::optional<std::string> refused, std::vector<lsf::JobId> not_found) {
           if (refused) return respond(RunRealLsf(argv, *refused));
           AnswerOrWait(*s, caller, argv, line, format, not_found, std::move(respond));
         });
}

}  // namespace bplace::api
