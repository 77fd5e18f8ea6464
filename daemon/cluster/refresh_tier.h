#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>

#include "common/clock.h"
#include "common/result.h"
#include "daemon/cluster/snapshot_store.h"
#include "lsf_adapter/command_runner.h"

namespace bplace {

// When a refresh cycle began, on both clocks.
struct CycleTimes {
  SteadyTime started;
  SystemTime started_wall;
};

// One LSF query of a refresh cycle.
struct TierQuery {
  std::string line;  // "bqueues -w": names the command in errors and logs
  lsf::CommandSpec spec;
};

// What one cycle of a tier does: run `queries` at once (mbatchd answers them
// independently, so the cycle takes as long as the slowest), then `build`.
struct TierCycle {
  std::vector<TierQuery> queries;
  // Turns the results (in the order of `queries`) into the snapshot change
  // to publish, or the error that fails the run (the last good data stays).
  // Runs on the tier's strand inside its exception boundary.
  std::function<Result<SnapshotStore::Change>(std::vector<Result<lsf::CommandResult>>& results,
                                              const CycleTimes& times)>
      build;
  // Optional: runs after the publish with the run's outcome (also inside
  // the boundary), e.g. to release in-flight slots LSF has now counted.
  std::function<void(const Result<void>& outcome, const CycleTimes& times)> after;
};

// How a tier is timed and where its status lives.
struct RefreshTierOptions {
  std::string name;                                // "load", "topology", "jobs"
  std::chrono::milliseconds interval{15000};       // between the starts of successful runs
  std::chrono::milliseconds retry_interval{5000};  // first retry after a failure
  // The tier's status in the snapshot (e.g. &ClusterSnapshot::load_status).
  TierStatus ClusterSnapshot::*status = nullptr;
};

// One refresh tier (docs/design.md "Refresh"), the engine every tier runs on: a
// timer, single flight (however many callers ask, one run at a time, and
// callers that ask during a run get its result), retry with backoff after a
// failure (retry_interval, doubling, never beyond the interval), and an
// exception boundary per cycle: a throw anywhere in building or publishing is
// recorded as the run's error and the last good snapshot stays. Every run,
// good or bad, is recorded in the tier's TierStatus in the same publish as
// its data. Times come from the injected Clock.
// Thread-safe: every method may be called from any thread; cycles run on
// the tier's strand.
class RefreshTier {
 public:
  using Done = std::function<void(Result<void>)>;

  // `make_cycle` is called at the start of every run (a tier's queries may
  // change, e.g. the job ids the jobs tier asks about). All references must
  // outlive the tier.
  RefreshTier(boost::asio::any_io_executor executor, lsf::CommandRunner& runner, Clock& clock,
              SnapshotStore& store, RefreshTierOptions options,
              std::function<TierCycle()> make_cycle);
  ~RefreshTier();

  RefreshTier(const RefreshTier&) = delete;
  RefreshTier& operator=(const RefreshTier&) = delete;

  // Runs now, then keeps running on the timer until Stop.
  void Start();
  // Cancels the timer; a run in progress finishes and publishes.
  void Stop();
  // Runs now (or joins the run in progress); `done` gets its result.
  void Refresh(Done done = {});

  // As Refresh, but a run never starts less than `min_gap` after the last
  // one started: asked sooner, the run is moved to that time, and everyone
  // who asks until then shares it. For runs callers trigger (a job id not
  // followed yet), so that a stream of requests costs at most one LSF query
  // per `min_gap`. Asked during a run, `done` gets the result of the next
  // run, not of that one: the caller changed what a run asks (e.g. added a
  // job id) after the running one had built its queries.
  void RefreshSoon(std::chrono::milliseconds min_gap, Done done = {});

  // Sets the interval between successful runs (SIGHUP reloads it). The run
  // on the timer moves to one new interval after the last run started (at
  // once if that has passed); a run in progress schedules the next with
  // the new interval. Retries after failures stay capped by it.
  void SetInterval(std::chrono::milliseconds interval);

  // Gives `done` the result of the next run to finish (the one in progress,
  // or the next on the timer), without starting one: for callers that wait
  // for fresher data instead of asking LSF (long polling).
  void WaitForNext(Done done);

  // How long after a run the next one starts: the interval after a success;
  // after the n-th failure in a row, retry_interval * 2^(n-1), at most the
  // interval. Pure.
  static std::chrono::milliseconds NextDelay(const RefreshTierOptions& options,
                                             int consecutive_failures);

  const std::string& name() const { return options_.name; }

 private:
  struct Run;

  void Soon(std::chrono::milliseconds min_gap, Done done);
  void Begin();
  void Finish(const std::shared_ptr<Run>& run);
  Result<void> BuildAndPublish(Run& run);
  void Schedule();

  boost::asio::strand<boost::asio::any_io_executor> strand_;
  lsf::CommandRunner& runner_;
  Clock& clock_;
  SnapshotStore& store_;
  RefreshTierOptions options_;  // interval changes on strand_ only (SetInterval)
  const std::function<TierCycle()> make_cycle_;
  std::unique_ptr<Timer> timer_;

  // Touched only on strand_.
  bool running_ = false;
  bool stopped_ = true;
  std::optional<SteadyTime> last_start_;
  bool soon_pending_ = false;  // a RefreshSoon run is on the timer
  int consecutive_failures_ = 0;
  std::vector<Done> waiters_;
  // RefreshSoon callers that arrived during a run: served by the next one,
  // which starts `again_gap_` after the last start.
  std::vector<Done> next_waiters_;
  std::optional<std::chrono::milliseconds> again_gap_;
};

}  // namespace bplace
