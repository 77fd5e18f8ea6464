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

// When `job` was submitted and when it started, as closely as bplace knows:
// submitted, bplace's own time for a job it submitted (submitted_at, when
// bsub answered), else LSF's SUBMIT_TIME; started, the latest moment that
// agrees with LSF's START_TIME (to the minute in bjobs tables and -o, "Nov
// 30 11:40": the whole minute when it has no seconds), with the last bjobs
// that listed the job not started (start_not_before) and the first that
// listed it started (start_seen_at). So the wait is never understated and
// overstated by at most a jobs interval. LSF's START_TIME alone when those
// disagree (clocks apart). None until it has started or when its submit
// time is not known.
struct JobTimes {
  SystemTime submitted;
  SystemTime started;
};
std::optional<JobTimes> StartTimesOf(const JobView& job);

// The wait of `job` (StartTimesOf: started - submitted), in whole seconds.
// None until it has started, when its submit time is not known, and when
// it started before it was submitted (inconsistent times, which the
// predictor leaves out too). What a job's wait_s shows until its
// prediction is judged (WaitCoverage::Judged) and, when LSF's event log is
// not read, what it is judged on.
std::optional<std::chrono::seconds> RealisedWait(const JobView& job);

// The jobs of `after` that have a start time (bjobs START_TIME) which they
// did not have in `before`, with StartTimesOf as the wait: how the jobs
// tier's own jobs teach the wait predictor when the event log cannot be
// read, and how bplace's jobs are compared with their predictions. None
// when there is no table before (`before` null): the first table, restored
// from the state store or the first bjobs after start, is where bplace
// starts watching, and a job already started in it was seen to start by an
// earlier run (or not at all). A job without a submit time is left out.
// What bplace knew at submission is added as AddSubmissionContext does.
// In key order. Pure.
std::vector<StartedJob> NewlyStarted(const JobTable* before, const JobTable& after);

// What a snapshot publish teaches (called with each publish, on the
// refresh thread): each queue whose bqueues status changed between
// dispatching (Active) and not tells the model (as of the load's time),
// and with each new load every queue's backlog share (QueueBacklogs) is
// recorded in the model (WaitModel::RecordBacklog), for the waits learned
// later of jobs submitted meanwhile. Unless `events_read` (LSF's event log
// is read, and its records teach the model and judge bplace's jobs:
// JudgeEventWaits), each job newly started (NewlyStarted) teaches the
// model its wait and, when bplace submitted it with a prediction, is
// counted in `coverage` (docs/design.md "Wait prediction"). Returns the
// number of jobs newly started; 0 when `events_read` (the jobs are not
// looked through then).
std::size_t LearnFromPublish(const ClusterSnapshot& before, const ClusterSnapshot& after,
                             bool events_read, WaitModel& model, WaitCoverage& coverage);

// Judges the waits LSF's event log gave (exact to the second) of the jobs
// bplace submitted with a prediction that `jobs` follows, into `coverage`:
// the event log's counterpart of LearnFromPublish's judging. An array
// element not in `jobs` yet is found by its array's row; a wait of another
// submission of the same job id (SameSubmission) is left out. Returns the
// number counted.
std::size_t JudgeEventWaits(const std::vector<WaitObservation>& waits, const JobTable& jobs,
                            WaitCoverage& coverage);

// The record kept with a job of what its placement said: the chosen
// candidate's expected_start and backlog share (BacklogShare). Pure.
StartPrediction ToPrediction(const WaitEstimate& estimate, std::optional<double> backlog);

// Tells `wait` what bplace knew when it submitted the job: whether it
// could start at once (its prediction said "starts_now") and the backlog
// it was submitted behind, in-flight submissions included (the load
// tier's history, WaitModel::RecordBacklog, knows only the counts of the
// last refresh, and a burst outruns them). Leaves `wait` as it is for a
// job `jobs` does not follow or bplace did not place, an array element
// (placement judged one element, not the rest behind it), a job no longer
// in the queue it was placed in (bswitch), and a wait submitted more than
// five minutes from bplace's submission (another job of that id). Pure.
void AddSubmissionContext(const JobTable& jobs, WaitObservation& wait);

// The estimate a kept record stands for (ToPrediction's inverse), to show
// a job's prediction as its placement showed it; none when the record's
// method is not one WaitMethodName gives (a damaged or foreign row). Pure.
std::optional<WaitEstimate> FromPrediction(const StartPrediction& prediction);

}  // namespace bplace
