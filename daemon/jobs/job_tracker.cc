#include "daemon/jobs/job_tracker.h"

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

#include "lsf_adapter/bjobs_command.h"
#include "lsf_adapter/bjobs_list.h"
#include "lsf_adapter/bjobs_long_parser.h"
#include "lsf_adapter/command_failure.h"
#include "lsf_adapter/lsf_time.h"

namespace bplace {
namespace {

// At most this many `bjobs -l` lookups of exit codes per refresh.
constexpr std::size_t kMaxExitLookups = 200;
// At most this many per-id bjobs per refresh confirm that LSF no longer
// knows a job; the rest wait for the next refresh (they keep their state).
constexpr std::size_t kMaxConfirmations = 20;

std::shared_ptr<const JobTable> TableOf(const ClusterSnapshot& snapshot) {
  return snapshot.jobs ? snapshot.jobs : std::make_shared<const JobTable>();
}

// The job blocks of the cycle's `bjobs -a -l`; nullopt when the call failed
// (what it was for is asked again next time). A job LSF no longer knows
// has no block: bjobs says "Job <N> is not found" on stderr and exits 255
// while printing the others, so that exit is read as an answer.
std::optional<std::vector<lsf::BjobsLongBlock>> ReadLongForm(Result<lsf::CommandResult> result) {
  if (result && result->exit_code == 255 && !result->timed_out && !result->out.empty()) {
    result->exit_code = 0;
  }
  auto text = lsf::QueryOutput("bjobs -a -l", std::move(result));
  if (!text) {
    spdlog::warn("jobs: bjobs -a -l: {}", text.error().message);
    return std::nullopt;
  }
  auto blocks = lsf::SplitBjobsLong(*text);
  if (!blocks) {
    spdlog::warn("jobs: bjobs -a -l: {}", blocks.error().message);
    return std::nullopt;
  }
  return std::move(*blocks);
}

// The exit codes of `exits` in `blocks`, each marked looked up (a job LSF
// printed no code for keeps none); nothing when the call failed: they are
// asked again next time.
ExitCodes ExitCodesIn(const std::vector<std::string>& exits,
                      const std::optional<std::vector<lsf::BjobsLongBlock>>& blocks) {
  ExitCodes codes;
  if (exits.empty() || !blocks) return codes;
  codes.asked = exits;
  for (const lsf::BjobsLongBlock& block : *blocks) {
    codes.codes[JobKey{std::stoll(block.job.job_id), block.job.array_index}] = block.job.exit_code;
  }
  return codes;
}

// Adds to `answer` what the per-id bjobs of `confirm` said (results from
// `first` on): the records of a job listed after all, the ids LSF said it
// does not know. Any other answer concludes nothing: the job is asked about
// again next time.
void ReadConfirmations(std::vector<Result<lsf::CommandResult>>& results, std::size_t first,
                       const std::vector<std::string>& confirm, bool use_o_json,
                       BjobsAnswer& answer) {
  for (std::size_t i = 0; i < confirm.size(); ++i) {
    auto confirmation =
        lsf::ReadBjobsConfirmation(std::move(results[first + i]), confirm[i], use_o_json);
    if (!confirmation) {
      spdlog::info("jobs: {} is missing from bjobs, not confirmed: {}", confirm[i],
                   confirmation.error().message);
      continue;
    }
    if (confirmation->not_found) answer.confirmed_gone.push_back(confirm[i]);
    for (auto& record : confirmation->records) answer.records.push_back(std::move(record));
  }
}

}  // namespace

JobTracker::JobTracker(boost::asio::any_io_executor executor, lsf::CommandRunner& runner,
                       Clock& clock, SnapshotStore& store, const lsf::LsfInvoker& lsf,
                       JobJournal* journal, JobTrackerOptions options, BjobsDialect& dialect)
    : clock_(clock),
      store_(store),
      lsf_(lsf),
      journal_(journal),
      options_(options),
      dialect_(dialect),
      lookups_(options.lookups),
      tier_(executor, runner, clock, store,
            {"jobs", options.interval, std::min(options.interval, std::chrono::milliseconds(5000)),
             &ClusterSnapshot::jobs_status},
            [this] { return Cycle(); }) {}

void JobTracker::Load(const std::vector<TrackedJob>& rows) {
  auto table = std::make_shared<JobTable>();
  for (const TrackedJob& row : rows) {
    auto job = FromTracked(row);
    if (!job) {
      spdlog::warn("jobs: {}", job.error().message);
      continue;
    }
    table->jobs[job->first] = std::make_shared<const JobView>(std::move(job->second));
  }
  spdlog::info("jobs: {} followed jobs read from the state store", table->jobs.size());
  store_.Publish([&](ClusterSnapshot& snapshot) { snapshot.jobs = table; });
}

void JobTracker::AddSubmitted(const JobKey& key, JobView job) {
  const JobView stored = job;
  store_.Publish([&](ClusterSnapshot& snapshot) {
    snapshot.jobs = WithJob(*TableOf(snapshot), key, std::move(job));
  });
  if (journal_) {
    journal_->Post([row = ToTracked(key, stored)](JobStore& store) {
      if (auto done = store.UpsertJobs({row}); !done)
        spdlog::error("jobs: {}", done.error().message);
    });
  }
}

void JobTracker::Watch(const std::vector<lsf::JobId>& ids, Done done) {
  const SystemTime now = clock_.SystemNow();
  store_.Publish([&](ClusterSnapshot& snapshot) {
    auto table = std::make_shared<JobTable>(*TableOf(snapshot));
    for (const lsf::JobId& id : ids) {
      const JobKey key = KeyOf(id);
      if (table->jobs.contains(key)) continue;
      if (key.array_index == 0 && !table->Elements(key.job_id).empty()) continue;
      JobView view;
      view.lsf.job_id = id.job_id;
      view.lsf.array_index = id.array_index;
      view.submitted_at = now;  // first asked: a lookup never answered ends from here
      view.updated_at = now;
      table->jobs[key] = std::make_shared<const JobView>(std::move(view));
    }
    snapshot.jobs = std::move(table);
  });
  // The first bjobs ever run may be the one that finds out bjobs refuses
  // -o/-json (volclava, LSF before 10.1): that run fails. Then the ids are
  // asked again at once in the table form (callers who asked together share
  // the run) instead of answering them with the failure. An answer that
  // left an id out without a word (the table form lists every job, so it
  // never names an unknown id) is followed by the bjobs of that id alone.
  const bool table_form = dialect_.NeedsTableForm();
  tier_.RefreshSoon(std::chrono::seconds(1),
                    [this, ids, table_form, done = std::move(done)](Result<void> outcome) mutable {
                      AfterWatch(ids, table_form, 2, std::move(done), std::move(outcome));
                    });
}

void JobTracker::AfterWatch(const std::vector<lsf::JobId>& ids, bool table_form, int rounds_left,
                            Done done, Result<void> outcome) {
  const bool again = rounds_left > 0 && ((!outcome && !table_form && dialect_.NeedsTableForm()) ||
                                         (outcome && AwaitsConfirmation(ids)));
  if (!again) {
    if (done) done(std::move(outcome));
    return;
  }
  tier_.Refresh([this, ids, rounds_left, done = std::move(done)](Result<void> next) mutable {
    AfterWatch(ids, dialect_.NeedsTableForm(), rounds_left - 1, std::move(done), std::move(next));
  });
}

bool JobTracker::AwaitsConfirmation(const std::vector<lsf::JobId>& ids) const {
  const auto table = TableOf(*store_.Current());
  for (const lsf::JobId& id : ids) {
    const JobView* view = table->Find(KeyOf(id));
    if (view != nullptr && view->lsf.status.empty() && !view->not_found && view->misses > 0) {
      return true;
    }
  }
  return false;
}

TierCycle JobTracker::Cycle() {
  const auto table = TableOf(*store_.Current());
  const bool table_form = dialect_.NeedsTableForm();
  TierCycle cycle;
  CycleQueries queries;
  queries.asked = table->IdsToAsk();
  if (!queries.asked.empty()) {
    auto chunks = lsf::BjobsArgvChunks(lsf_.Path("bjobs"), queries.asked, !table_form);
    if (!chunks) throw std::runtime_error(chunks.error().message);
    for (auto& argv : *chunks) {
      lsf::CommandSpec spec = lsf_.Spec("bjobs", {});
      spec.argv = std::move(argv);
      cycle.queries.push_back(
          {table_form ? "bjobs -a -w -u all" : "bjobs -a -o ... -json", std::move(spec)});
    }
  }
  queries.chunks = cycle.queries.size();
  // The table has no exit codes: ask `bjobs -l` once for jobs that ended EXIT.
  if (table_form) queries.exits = table->IdsNeedingExitCode();
  if (queries.exits.size() > kMaxExitLookups) queries.exits.resize(kMaxExitLookups);
  // The long forms the front door's callers wait for, in the same bjobs.
  queries.long_forms = long_forms_.ToFetch(*table, clock_.SystemNow());
  if (queries.long_query()) {
    std::vector<std::string> args = {"-a", "-l"};
    args.insert(args.end(), queries.exits.begin(), queries.exits.end());
    for (const std::string& id : queries.long_forms) {
      if (std::find(queries.exits.begin(), queries.exits.end(), id) == queries.exits.end()) {
        args.push_back(id);
      }
    }
    cycle.queries.push_back({"bjobs -a -l", lsf_.Spec("bjobs", std::move(args))});
  }
  // A job missing from several answers is asked about alone before bplace
  // says LSF no longer knows it.
  queries.confirm = table->IdsToConfirm();
  if (queries.confirm.size() > kMaxConfirmations) queries.confirm.resize(kMaxConfirmations);
  for (const std::string& id : queries.confirm) {
    cycle.queries.push_back(
        {"bjobs " + id, lsf_.Spec("bjobs", lsf::BjobsConfirmArgs(id, !table_form))});
  }
  // Every job of the cluster, for bjobs lists, while callers ask for them.
  queries.list_with_finished = list_view_.Wanted(clock_.SystemNow());
  if (queries.list_with_finished) {
    lsf::CommandSpec spec = lsf_.Spec("bjobs", {});
    spec.argv = lsf::BjobsListArgv(lsf_.Path("bjobs"), *queries.list_with_finished, !table_form);
    cycle.queries.push_back({"bjobs -u all", std::move(spec)});
  }
  cycle.build = [this, queries = std::move(queries), table_form](auto& results,
                                                                 const CycleTimes& times) {
    if (table_form != dialect_.NeedsTableForm()) {
      return Result<SnapshotStore::Change>(SnapshotStore::Change{});
    }
    return Build(results, queries, table_form, times);
  };
  return cycle;
}

Result<SnapshotStore::Change> JobTracker::Build(std::vector<Result<lsf::CommandResult>>& results,
                                                const CycleQueries& queries, bool table_form,
                                                const CycleTimes& times) {
  if (queries.list_with_finished) {
    ReadList(results.back(), *queries.list_with_finished, table_form, times);
  }
  BjobsAnswer answer;
  answer.asked = queries.asked;
  answer.now = times.started_wall;
  answer.utc_offset_minutes = lsf::LocalUtcOffsetMinutes(times.started_wall);
  answer.records.reserve(queries.asked.size());  // one record per id, mostly
  for (std::size_t i = 0; i < queries.chunks; ++i) {
    Result<lsf::CommandResult>& result = results[i];
    if (!table_form && result && dialect_.LearnFrom(*result, "jobs")) {
      return Fail(ErrorCode::kCommandFailed,
                  "bjobs refused -o/-json; the next refresh uses the table form");
    }
    auto records = lsf::ReadBjobsReply(std::move(result), !table_form);
    if (!records) return tl::unexpected(records.error());
    for (auto& record : *records) answer.records.push_back(std::move(record));
  }
  ExitCodes exit_codes;
  if (queries.long_query()) {
    auto blocks = ReadLongForm(std::move(results[queries.chunks]));
    exit_codes = ExitCodesIn(queries.exits, blocks);
    if (blocks && !queries.long_forms.empty()) {
      long_forms_.Store(std::move(*blocks), times.started_wall);
    }
  }
  const std::size_t first_confirmation = queries.chunks + (queries.long_query() ? 1 : 0);
  ReadConfirmations(results, first_confirmation, queries.confirm, !table_form, answer);
  // Once an hour, forget the rows whose lifetime ended, here and on disk.
  const bool prune = !last_prune_ || times.started_wall - *last_prune_ > std::chrono::hours(1);
  if (prune) last_prune_ = times.started_wall;
  const SystemTime cutoff = times.started_wall - options_.retention;
  if (prune && journal_) {
    journal_->Post([cutoff](JobStore& store) {
      if (auto pruned = store.Prune(cutoff); !pruned) {
        spdlog::error("jobs: pruning the state store: {}", pruned.error().message);
      }
    });
  }
  return [this, answer = std::move(answer), exit_codes = std::move(exit_codes), prune,
          cutoff](ClusterSnapshot& snapshot) {
    const auto before = TableOf(snapshot);
    auto after = MergeBjobs(*before, answer);
    if (!exit_codes.asked.empty()) after = WithExitCodes(*after, exit_codes);
    // After the merge, so that a job this answer listed is never dropped
    // (a daemon stopped for longer than the retention).
    if (prune) after = WithoutOldJobs(*after, cutoff);
    Persist(*before, *after);
    snapshot.jobs = std::move(after);
  };
}

void JobTracker::ReadList(Result<lsf::CommandResult>& result, bool with_finished, bool table_form,
                          const CycleTimes& times) {
  list_view_.Attempted(times.started_wall, with_finished);
  // A refusal teaches every reader of the dialect; the next cycle asks in
  // the table form.
  if (!table_form && result && dialect_.LearnFrom(*result, "jobs list")) return;
  auto records = lsf::ReadBjobsReply(std::move(result), !table_form);
  if (!records) {
    spdlog::warn("jobs: the list of every job: {}", records.error().message);
    return;
  }
  list_view_.Publish(
      MakeJobList(std::move(*records), times.started_wall, with_finished, table_form));
}

void JobTracker::Persist(const JobTable& before, const JobTable& after) {
  if (!journal_) return;
  std::vector<TrackedJob> rows;
  std::vector<JobSeen> seen;
  for (const auto& [key, view] : after.jobs) {
    const auto it = before.jobs.find(key);
    // An id LSF never knew costs no row on disk (docs/api.md "Jobs: following and cancelling").
    if (view->not_found) continue;
    switch (it == before.jobs.end() ? StoreWrite::kRow : StoreWriteFor(key, *it->second, *view)) {
      case StoreWrite::kNothing:
        break;
      case StoreWrite::kSeen:
        seen.push_back({key.job_id, key.array_index, *view->last_seen_in_lsf, view->updated_at});
        break;
      case StoreWrite::kRow:
        rows.push_back(ToTracked(key, *view));
        break;
    }
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> gone;
  for (const auto& [key, view] : before.jobs) {
    if (!after.jobs.contains(key)) gone.emplace_back(key.job_id, key.array_index);
  }
  if (rows.empty() && seen.empty() && gone.empty()) return;
  journal_->Post(
      [rows = std::move(rows), seen = std::move(seen), gone = std::move(gone)](JobStore& store) {
        if (!rows.empty()) {
          if (auto done = store.UpsertJobs(rows); !done) {
            spdlog::error("jobs: {}", done.error().message);
          }
        }
        if (!seen.empty()) {
          if (auto done = store.MarkSeen(seen); !done) {
            spdlog::error("jobs: {}", done.error().message);
          }
        }
        if (!gone.empty()) {
          if (auto done = store.DeleteJobs(gone); !done) {
            spdlog::error("jobs: {}", done.error().message);
          }
        }
      });
}

}  // namespace bplace
