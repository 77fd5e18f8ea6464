#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "common/clock.h"
#include "daemon/cluster/bjobs_dialect.h"
#include "daemon/cluster/job_table.h"
#include "daemon/cluster/refresh_tier.h"
#include "daemon/cluster/snapshot_store.h"
#include "daemon/jobs/job_list_view.h"
#include "daemon/jobs/job_lookups.h"
#include "daemon/jobs/long_forms.h"
#include "daemon/options.h"
#include "daemon/state/job_journal.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

// The jobs tier (docs/design.md "Jobs"), the third RefreshTier: one `bjobs -a
// -o "<fields>" -json <ids>` per interval (ids in chunks under ARG_MAX) for
// every job bplace submitted and every id a caller asked about, never one
// per request, client or job. Where bjobs refuses -o/-json (LSF before 10.1,
// volclava, which lacks fields) the tracker falls back to the `bjobs -a -w
// -u all` table, detected once and shared (BjobsDialect). While callers ask
// for bjobs lists (list_view()), each cycle also runs one `bjobs -u all
// [-a]` for the view of every job of the cluster (lsf::BjobsListArgv), read
// on the tier's strand. The table of jobs is published in the
// snapshot (ClusterSnapshot::jobs); changed rows go to the state store.
// Thread-safe: every method may be called from any thread.
class JobTracker {
 public:
  using Done = RefreshTier::Done;

  // All references must outlive the tracker; `journal` may be null (no
  // state store: nothing survives a restart). `dialect` is the daemon's one
  // BjobsDialect: what this tier learns, the reconciler and the key check
  // read, and the other way round.
  JobTracker(boost::asio::any_io_executor executor, lsf::CommandRunner& runner, Clock& clock,
             SnapshotStore& store, const lsf::LsfInvoker& lsf, JobJournal* journal,
             JobTrackerOptions options, BjobsDialect& dialect);

  // Publishes `jobs` (read from the state store at start-up) and keeps
  // following those that are not finished.
  void Load(const std::vector<TrackedJob>& rows);
  void Start() { tier_.Start(); }
  void Stop() { tier_.Stop(); }

  // A job bplace just submitted (bsub printed its id): SUBMITTED until
  // bjobs shows it; published at once and written to the state store.
  void AddSubmitted(const JobKey& key, JobView job);

  // Follows `ids` (lsf::ParseJobId forms) from now on and runs a refresh
  // soon (at most one a second however many callers ask: RefreshSoon);
  // `done` gets its outcome, after which the snapshot says what LSF knows
  // of them. Callers asking about new ids at once share one bjobs. When
  // that bjobs is the one that finds bjobs refusing -o/-json, the ids are
  // asked again at once in the table form and `done` gets that outcome;
  // when it left an id out without saying it is unknown (the table form
  // never says), one more refresh asks about that id alone first. Callers
  // bound what their lookups cost with lookups().
  void Watch(const std::vector<lsf::JobId>& ids, Done done);

  // The budget of callers' lookups (negative cache, lookups in flight).
  JobLookups& lookups() { return lookups_; }

  // The view of every job of the cluster, for bjobs lists: who wants it,
  // the last one read. A caller that needs a fresher one calls
  // RefreshSoon after JobListView::Ask.
  JobListView& list_view() { return list_view_; }

  // The copies of `bjobs -l` blocks for the front door's `bjobs -l ID`,
  // fetched by this tier's cycles (one `bjobs -a -l` with the exit-code
  // lookups). A caller that lacks one calls LongForms::Ask, then
  // RefreshSoon.
  LongForms& long_forms() { return long_forms_; }
  // Runs the tier now (or joins the run in progress).
  void Refresh(Done done = {}) { tier_.Refresh(std::move(done)); }
  // A refresh soon (at most one a second), e.g. after a bkill.
  void RefreshSoon(Done done = {}) { tier_.RefreshSoon(std::chrono::seconds(1), std::move(done)); }
  // `done` after the next refresh on the timer, starting none (long polls).
  void WaitForNext(Done done) { tier_.WaitForNext(std::move(done)); }

  const JobTrackerOptions& options() const { return options_; }

  // Sets the interval of the jobs tier (SIGHUP reloads jobs.refresh_s), as
  // RefreshTier::SetInterval. Thread-safe. options() keeps the start-up one.
  void SetInterval(std::chrono::milliseconds interval) { tier_.SetInterval(interval); }

  // True once bjobs refused -o/-json (here or to another reader of the
  // dialect): the table form is used from then on.
  bool UsesTableForm() const { return dialect_.NeedsTableForm(); }
  // The daemon's bjobs dialect, shared with the reconciler and the key check.
  BjobsDialect& dialect() const { return dialect_; }

 private:
  // The queries of one cycle, in the order of its results: `chunks`
  // bjobs of the `asked` ids, one `bjobs -a -l` of `exits` and `long_forms`
  // when there are any, then one bjobs per id of `confirm`.
  struct CycleQueries {
    std::vector<std::string> asked;
    std::size_t chunks = 0;
    std::vector<std::string> exits;
    std::vector<std::string> long_forms;  // LongForms::ToFetch
    bool long_query() const { return !exits.empty() || !long_forms.empty(); }
    std::vector<std::string> confirm;
    // The view's `bjobs -u all` (last of the cycle) and whether with -a.
    std::optional<bool> list_with_finished;
  };

  TierCycle Cycle();
  Result<SnapshotStore::Change> Build(std::vector<Result<lsf::CommandResult>>& results,
                                      const CycleQueries& queries, bool table_form,
                                      const CycleTimes& times);
  void Persist(const JobTable& before, const JobTable& after);
  // After a refresh run for Watch(ids): `done` gets `outcome`, unless the
  // ids must be asked again (the run found bjobs refusing -o/-json, or left
  // a watched id to a per-id bjobs) and `rounds_left` allows another run.
  void AfterWatch(const std::vector<lsf::JobId>& ids, bool table_form, int rounds_left, Done done,
                  Result<void> outcome);
  // True when a watched id is left to a per-id bjobs (IdsToConfirm).
  bool AwaitsConfirmation(const std::vector<lsf::JobId>& ids) const;
  // Reads the view's query (the cycle's last result, asked in the table
  // form when `table_form`) and publishes the list.
  void ReadList(Result<lsf::CommandResult>& result, bool with_finished, bool table_form,
                const CycleTimes& times);

  Clock& clock_;
  SnapshotStore& store_;
  const lsf::LsfInvoker& lsf_;
  JobJournal* journal_;
  const JobTrackerOptions options_;
  BjobsDialect& dialect_;
  std::optional<SystemTime> last_prune_;  // on the tier's strand
  JobLookups lookups_;
  JobListView list_view_;
  LongForms long_forms_;
  RefreshTier tier_;
};

}  // namespace bplace
