#pragma once

// Paired trials of the wait predictor, live (bench/README.md "Wait
// prediction (issue 23)", paired trials): the goal "a job placed by
// bplace in the queue with the smaller bound starts first in >= 80% of
// paired trials", on the LSF simulator with a scheduling clock.

#include <string>
#include <vector>

#include "tests/integration/harness.h"

namespace bplace::bench {

// A queue of the bench's cluster, its size, and the run times of its
// background jobs (`sleep min_run_s..max_run_s`, uniform, whole seconds).
struct LoadedQueue {
  std::string name;
  int slots = 1;
  int min_run_s = 2;
  int max_run_s = 6;
};

struct PairedOptions {
  std::vector<LoadedQueue> queues;  // exactly two
  int pairs = 100;                  // trials to run (pairs submitted)
  int warmup_s = 90;                // background load only, before the first pair
  int pair_gap_ms = 3000;           // between pairs
  int interval_ms = 500;            // between dispatch sessions
  int phase_s = 20;                 // the background load changes every phase
  int seed = 1;
  // When set, one tab-separated line per pair is written here (header
  // first): both queues' backlog share, PEND, bound_s, p50_s, method and
  // dispatch session, in bplace's order. For finding why a judge missed.
  std::string dump_path;
};

// Runs the trials against `daemon` (which follows `sim`) and prints their
// table on stdout. Meanwhile a scheduling clock runs `lsfsim schedule
// --run` every interval_ms, and a background load submits `sleep` jobs
// (LoadedQueue's run times) straight to LSF (not through bplace: they
// teach bplace through lsb.events only) to each queue at a rate that
// changes every phase_s (a load of 0.3, 0.6, 1.0 or 1.4 of the queue's
// slots, drawn per queue), so that which queue is slower changes over time.
//
// A trial: at one moment, between two dispatch sessions, GET
// /v1/placement for the two queues; when both candidates must wait
// (starts_now false) and have a bound, two identical jobs (`sleep 1`) are
// submitted through POST /v1/jobs, one pinned to each queue, before the
// next session. The pair counts for bplace when the job in the queue
// bplace ranked first (RanksBefore: the smaller backlog share, then the
// smaller bound) is dispatched in an earlier session than the other; in
// the same session it is a tie, counted apart and left out of the ratio.
// Other ways of choosing (fewer PEND, smaller backlog share, smaller
// bound_s, smaller p50_s) are judged on the same pairs. A moment where a queue could start the job
// now, or has no bound, is skipped (counted) and tried again a second
// later. Returns 0 when at least one pair was decided, 1 otherwise or when
// the dump could not be written, 2 when its file cannot be opened (before
// anything starts); judges no figure.
int RunPairedTrials(const testing::SimCluster& sim, const testing::DaemonProcess& daemon,
                    const PairedOptions& options);

}  // namespace bplace::bench
