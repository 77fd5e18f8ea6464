#include "api/bjobs_list_answer.h"

#include <algorithm>
#include <charconv>

#include "api/lsf_answer.h"
#include "api/openlava_bjobs.h"
#include "api/routes_lsf.h"
#include "lsf_adapter/bjobs_list.h"

namespace bplace::api {
namespace {

// Where mbatchd lists a job: running and suspended first, then pending
// (PEND, PSUSP), then finished (lsfsim's bjobs, held to LSF 10.1's captures).
int Rank(const lsf::JobRecord& job) {
  if (lsf::IsTerminalJobStatus(job.status)) return 2;
  return job.status == "PEND" || job.status == "PSUSP" ? 1 : 0;
}

std::int64_t IdNumber(const lsf::JobRecord& job) {
  std::int64_t value = 0;
  std::from_chars(job.job_id.data(), job.job_id.data() + job.job_id.size(), value);
  return value;
}

int Priority(const Topology& topology, const std::string& queue) {
  const QueueTopology* found = topology.FindQueue(queue);
  return found ? found->definition.prio : 0;
}

// The -o fields whose value bplace knows for a job LSF accepted and has not
// dispatched, before bjobs lists it: what bsub said, and the fields empty
// while a job pends.
bool FreshJobHolds(const lsf::BjobsColumn& column, const lsf::JobRecord& job) {
  static constexpr std::string_view kKnown[] = {
      "jobid",      "jobindex",    "stat",      "user",       "queue",
      "start_time", "finish_time", "exec_host", "first_host", "exit_code"};
  if (column.field == "job_name") return !job.job_name.empty();
  return std::find(std::begin(kKnown), std::end(kKnown), column.field) != std::end(kKnown);
}

// The jobs bplace submitted that bjobs has not listed yet (read-your-
// writes), as LSF will list them (PEND), if `line` lists them; the reason
// to ask LSF when the form needs what bplace does not hold of them.
tl::expected<std::vector<lsf::JobRecord>, std::string> FreshJobs(const JobList& list,
                                                                 const JobTable& table,
                                                                 const lsf::BjobsCommandLine& line,
                                                                 const lsf::BjobsFormat* format,
                                                                 const ListOwner& owner) {
  std::vector<lsf::JobRecord> fresh;
  for (const auto& [key, view] : table.jobs) {
    if (view->lsf.status != kSubmittedStatus || list.Holds(key.job_id, key.array_index)) continue;
    if (owner.user && view->lsf.user != *owner.user) continue;
    lsf::JobRecord record = view->lsf;
    record.status = PrintedStatus(*view);
    if (line.job_name && record.job_name.empty()) {
      return tl::unexpected("job " + record.job_id + " was just submitted without a -J name");
    }
    if (!lsf::ListedBy(line, record)) continue;
    const bool holds =
        format != nullptr &&
        std::all_of(format->columns.begin(), format->columns.end(),
                    [&](const lsf::BjobsColumn& column) { return FreshJobHolds(column, record); });
    if (!holds) {
      return tl::unexpected("job " + record.job_id +
                            " was just submitted: LSF has its FROM_HOST and SUBMIT_TIME");
    }
    fresh.push_back(std::move(record));
  }
  return fresh;
}

// Puts `job` (pending) where mbatchd lists it among `jobs`: after the
// running ones, and after the pending ones of queues of a higher or the same
// priority and lower ids.
void InsertPending(std::vector<const lsf::JobRecord*>& jobs, const lsf::JobRecord& job,
                   const Topology& topology) {
  const int priority = Priority(topology, job.queue);
  const std::int64_t id = IdNumber(job);
  const auto at = std::find_if(jobs.begin(), jobs.end(), [&](const lsf::JobRecord* other) {
    const int rank = Rank(*other);
    if (rank != 1) return rank == 2;
    const int other_priority = Priority(topology, other->queue);
    if (other_priority != priority) return other_priority < priority;
    return IdNumber(*other) > id;
  });
  jobs.insert(at, &job);
}

// Why form `line` is left to LSF's bjobs whatever the view holds, or
// nullopt.
std::optional<std::string> FormLeftToLsf(const lsf::BjobsCommandLine& line,
                                         const lsf::BjobsFormat* format) {
  if (format == nullptr && (line.state_filter == 'p' || line.state_filter == 's')) {
    return "-p and -s tables add LSF's pending and suspending reasons";
  }
  if (line.job_name && line.job_name->find('[') != std::string::npos) {
    return "-J with an array index";
  }
  return std::nullopt;
}

// Why `line` is left to LSF's bjobs with this `list` and `topology`, or
// nullopt.
std::optional<std::string> LeftToLsf(const JobList& list, const Topology& topology,
                                     const lsf::BjobsCommandLine& line,
                                     const lsf::BjobsFormat* format) {
  if (auto left = FormLeftToLsf(line, format)) return left;
  if (line.queue && topology.FindQueue(*line.queue) == nullptr) {
    return "queue " + *line.queue + " is not one bplace knows (LSF says so)";
  }
  if (format != nullptr && list.table_form) {
    return "this bjobs has no -o -json: the table bplace reads lacks -o fields";
  }
  return std::nullopt;
}

}  // namespace

tl::expected<lsf::BjobsOutput, std::string> AnswerBjobsListFrom(
    const JobList& list, const JobTable* table, const Topology& topology,
    const lsf::BjobsCommandLine& line, const lsf::BjobsFormat* format, const ListOwner& owner) {
  if (auto left = LeftToLsf(list, topology, line, format)) return tl::unexpected(*left);
  lsf::BjobsSelection selection;
  const auto consider = [&](const lsf::JobRecord& job) {
    if (lsf::ListedBy(line, job)) selection.jobs.push_back(&job);
  };
  if (owner.user) {
    if (const auto it = list.by_user.find(*owner.user); it != list.by_user.end()) {
      for (const std::uint32_t at : it->second) consider(list.records[at]);
    }
  } else {
    for (const lsf::JobRecord& job : list.records) consider(job);
  }
  std::vector<lsf::JobRecord> fresh;
  if (table != nullptr) {
    auto found = FreshJobs(list, *table, line, format, owner);
    if (!found) return tl::unexpected(found.error());
    fresh = std::move(*found);
  }
  for (const lsf::JobRecord& job : fresh) InsertPending(selection.jobs, job, topology);
  return lsf::WriteBjobs(line, format, selection);
}

namespace {

bool SeesEveryJob(const Services& services, const Caller& caller) {
  return caller.is_admin || services.auth == nullptr ||
         services.auth->policy().job_visibility == JobVisibility::kAll;
}

// Whether `list` can answer a list of DONE/EXIT jobs too (`finished`) at
// `now`; the reason when it cannot.
std::optional<std::string> Unready(const Services& services, const JobList* list, bool finished) {
  if (list == nullptr) return "the jobs tier has not read the list of every job yet";
  const auto max_age = FrontDoorMaxAge(services.tracker->options().interval);
  const auto age = services.clock.SystemNow() - list->fetched_at;
  if (age > max_age) {
    return "the list of every job is " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(age).count()) +
           " s old (more than " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(max_age).count()) +
           " s)";
  }
  if (finished && !list->with_finished) return "the list of every job was read without -a";
  return std::nullopt;
}

Response ListReply(const Services& services, const std::vector<std::string>& argv,
                   const lsf::BjobsCommandLine& line, const lsf::BjobsFormat* format,
                   const ListOwner& owner) {
  const auto list = services.tracker->list_view().Current();
  if (auto unready = Unready(services, list.get(), lsf::ListShowsFinished(line))) {
    return RunRealBjobs(*services.cache.Current(), line, argv, *unready);
  }
  const auto snapshot = services.cache.Current();
  if (!snapshot->topology)
    return RunRealBjobs(*snapshot, line, argv, "bplace has not read the queues yet");
  auto output =
      AnswerBjobsListFrom(*list, snapshot->jobs.get(), *snapshot->topology, line, format, owner);
  if (!output) return RunRealBjobs(*snapshot, line, argv, output.error());
  return AnswerAsLsf({output->out, output->err, output->exit_code});
}

}  // namespace

void AnswerBjobsList(const Services& services, const Caller& caller,
                     const std::vector<std::string>& argv, const lsf::BjobsCommandLine& line,
                     std::optional<lsf::BjobsFormat> format, Responder respond) {
  const std::string self = caller.user.empty() ? services.user : caller.user;
  const std::string asked = line.user.value_or(self);
  ListOwner owner;
  if (asked == "all") {
    if (!SeesEveryJob(services, caller)) {
      return respond(RunRealBjobs(*services.cache.Current(), line, argv,
                                  "-u all: others' jobs are LSF's to show ([auth] "
                                  "job_visibility = \"own\")"));
    }
  } else if (asked != self) {
    return respond(RunRealBjobs(*services.cache.Current(), line, argv,
                                "-u " + asked + ": another user's (or a user group's) jobs"));
  } else {
    owner.user = self;
  }
  // A form the view never answers starts no reading of it.
  if (auto left = FormLeftToLsf(line, format ? &*format : nullptr)) {
    return respond(RunRealBjobs(*services.cache.Current(), line, argv, *left));
  }
  const bool finished = lsf::ListShowsFinished(line);
  const bool tried = services.tracker->list_view().Ask(services.clock.SystemNow(), finished);
  const auto list = services.tracker->list_view().Current();
  if (tried || !Unready(services, list.get(), finished)) {
    return respond(ListReply(services, argv, line, format ? &*format : nullptr, owner));
  }
  // The first list request since none came: the jobs tier's next run (at
  // most a second away) reads the list, and this request is answered then.
  services.tracker->RefreshSoon([s = &services, argv, line, format = std::move(format), owner,
                                 respond = std::move(respond)](Result<void>) {
    respond(ListReply(*s, argv, line, format ? &*format : nullptr, owner));
  });
}

}  // namespace bplace::api
