#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "daemon/cluster/job_table.h"
#include "daemon/cluster/snapshot.h"
#include "daemon/placement/wait_coverage.h"
#include "daemon/placement/wait_model.h"
#include "daemon/placement/wait_predictor.h"

namespace bplace {

// A followed job seen started for the first time.
struct StartedJob {
  JobKey key;
  WaitObservation wait;  // queue, slots, LSF's submit and start times
  bool submitted_by_bplace = false;
  std::optional<StartPrediction> prediction;   // what its placement said
  std::optional<std::chrono::seconds> waited;  // RealisedWait
};

// The wait LSF gave `job`: its start time less its submit time (bjobs
// START_TIME and SUBMIT_TIME, with the year), in whole seconds. None until
// it has started, when its submit time is not known, and when it started
// before it was submitted (inconsistent times, which the predictor leaves
// out too). What a job's wait_s shows and its prediction is judged on.
std::optional<std::chrono::seconds> RealisedWait(const JobView& job);

// The jobs of `after` that have a start time (bjobs START_TIME) which they
// did not have in `before` (null: no table before), with LSF's submit and
// start times as the wait: how the jobs tier's own jobs teach the wait
// predictor when the event log cannot be read, and how bplace's jobs are
// compared with their predictions. A job without a submit time is left
// out. `could_start_at_submit` is true when its prediction said
// "starts_now". In key order. Pure.
std::vector<StartedJob> NewlyStarted(const JobTable* before, const JobTable& after);

// What a snapshot publish teaches (called with each publish, on the
// refresh thread): each queue whose bqueues status changed between
// dispatching (Active) and not tells the model (as of the load's time),
// and with each new load every queue's backlog share (QueueBacklogs) is
// recorded in the model (WaitModel::RecordBacklog), for the waits learned
// later of jobs submitted meanwhile;
// each job newly started (NewlyStarted) teaches the model its wait when
// `jobs_teach` (the event log is not read: docs/design.md "Wait
// prediction"), and a job bplace submitted with a prediction is counted
// in `coverage`. Returns the number of jobs newly started.
std::size_t LearnFromPublish(const ClusterSnapshot& before, const ClusterSnapshot& after,
                             bool jobs_teach, WaitModel& model, WaitCoverage& coverage);

// The record kept with a job of what its placement said (the chosen
// candidate's expected_start). Pure.
StartPrediction ToPrediction(const WaitEstimate& estimate);

// The estimate a kept record stands for (ToPrediction's inverse), to show
// a job's prediction as its placement showed it; none when the record's
// method is not one WaitMethodName gives (a damaged or foreign row). Pure.
std::optional<WaitEstimate> FromPrediction(const StartPrediction& prediction);

}  // namespace bplace
