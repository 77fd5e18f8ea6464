#pragma once

// The wait-prediction replay (its evaluation): a Standard Workload
// Format log replayed in time order through bplace's WaitPredictor and
// three baselines, every job predicted at its submission from what was
// known then, and the predictions scored against the waits the log records.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/swf.h"
#include "common/result.h"
#include "daemon/placement/wait_predictor.h"

namespace bplace::bench {

struct ReplayOptions {
  // bplace's predictor; the plain-QBETS baseline uses the same options
  // without the starts-now knowledge, the backlog or the adaptive correction.
  WaitPredictorOptions predictor;
  // Whether a job "could start now" at submission compares the free
  // processors with the pending work of the job's queue only (false), as
  // placement compares a queue's free slots with its PEND, or of the whole
  // machine (true).
  bool machine_wide_pending = false;
  // Whether bplace's predictor is told each job's backlog (WaitQuery::backlog).
  bool use_backlog = true;
  // Waits and bounds under this are taken as this in bound/actual: a wait
  // of 0 s would make any bound infinitely loose.
  std::int64_t ratio_floor_s = 60;
  std::size_t window_jobs = 1000;
  double window_goal = 0.93;
};

// One method's scores over the evaluated jobs.
struct MethodFigures {
  std::string name;
  std::size_t jobs = 0;
  double coverage = 0;                  // share with wait <= bound
  std::size_t windows = 0;              // whole windows of window_jobs
  double windows_meeting_goal = 0;      // share of them with coverage >= window_goal
  std::vector<double> window_coverage;  // each whole window's coverage, in order
  double median_ratio = 0;              // median of max(bound, floor) / max(wait, floor)
  double median_ratio_must_wait = 0;    // the same over jobs that could not start at once
  double median_bound_s = 0;
  double pinball_s = 0;  // mean pinball loss at the quantile, seconds
};

// One replayed job, for a closer look (wait_replay replay --jobs-csv).
struct ReplayedJob {
  std::int64_t submit_s = 0;
  std::string queue;
  std::int64_t slots = 0;
  std::int64_t wait_s = 0;
  std::int64_t queue_pending = 0;  // processors pending in its queue at submission
  std::int64_t free_procs = 0;     // processors free at submission
  bool could_start = false;
  std::vector<std::optional<std::int64_t>> bounds;  // per method, in report order
  std::string bplace_method;
};

struct ReplayReport {
  std::size_t jobs_in_log = 0;
  std::size_t jobs_with_wait = 0;  // replayed: submit, wait and run known
  std::size_t jobs_evaluated = 0;  // every method had a bound for them
  std::int64_t machine_procs = 0;
  std::string machine_from;  // "MaxProcs", "MaxNodes" or "peak use"
  double quantile = 0;
  double confidence = 0;
  std::size_t starts_now_jobs = 0;                  // evaluated jobs judged able to start at once
  double starts_now_started_within_60s = 0;         // share of those that did
  std::map<std::string, std::size_t> methods_used;  // bplace's WaitMethod names
  std::vector<MethodFigures> methods;               // bplace first, then the baselines
  std::vector<ReplayedJob> jobs;                    // every replayed job, in submit order
};

// Replays `trace`. Jobs without a submit time or wait are left out (not
// replayed, not evaluated). The machine size is the header's MaxProcs, else
// MaxNodes, else the peak of processors in use in the log. Occupancy model
// for "could start now": at a job's submission, the processors of the jobs
// the log shows running then, and the processors of the jobs submitted and
// not yet started (machine-wide or the job's queue, per
// options.machine_wide_pending); the job could start now when the free
// processors cover those pending and its own. Errors: kInvalidArgument when
// no job has a known wait.
Result<ReplayReport> Replay(const SwfTrace& trace, const ReplayOptions& options);

// The report as a Markdown table with a few lines of context.
std::string FormatReport(const ReplayReport& report);

// The report as JSON (one object; methods as an array).
std::string ReportJson(const ReplayReport& report);

}  // namespace bplace::bench
