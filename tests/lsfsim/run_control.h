#pragma once

#include <string>
#include <vector>

#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// Control subcommands that drive the simulated mbatchd and sbatchd: a
// dispatch turn, the same in a loop, and a wait for jobs to end. Each
// prints errors on stderr and returns the process exit status (0 ok, 2 bad
// usage, 1 other errors).

// `schedule [--finish] [--run]`: one dispatch turn (scheduler.h). --finish
// first turns RUN jobs that no process runs into DONE; --run then starts
// every RUN job that has not been started yet as a real process
// (job_runner.h) and returns without waiting for it. Prints
// "dispatched N job(s), finished N job(s)" (and ", started N job(s)").
int ScheduleCommand(const StateDir& state, const std::vector<std::string>& args);

// `daemon [--interval-ms N]`: `schedule --run` every N ms (default 200)
// until SIGTERM or SIGINT (exit 0), or until the state directory is gone
// or unreadable (exit 1). Jobs it started keep running after it exits.
int DaemonCommand(const StateDir& state, const std::vector<std::string>& args);

// `wait JOBID... [--running] [--timeout-ms N]`: returns 0 once every named job (every
// element of an array) is DONE or EXIT and, when it ran for real, its
// process has ended and its runner has written the report (Job::pgid 0),
// 1 when one is not in the table or
// when N ms (default 30000) pass first. With --running it returns as soon
// as each job's process runs (or the job is over). Event-driven: it re-reads the
// table when jobs.json is replaced (inotify), not on a timer.
int WaitCommand(const StateDir& state, const std::vector<std::string>& args);

}  // namespace bplace::lsfsim
