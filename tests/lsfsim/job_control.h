#pragma once

#include <string>
#include <vector>

#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// Control subcommands that move jobs through their life as sbatchd and
// mbatchd would: a job ends, is suspended, or its host stops answering.
// Each takes the state lock, reads the clock from NowSeconds() (LSFSIM_NOW
// in tests), prints errors on stderr and returns the process exit status
// (0 ok, 2 bad usage, 1 other errors, e.g. no such job or a transition LSF
// cannot make). JOBID is "1234" (every element of an array) or "1234[7]".

// `finish JOBID [--exit N] [--reason TEXT]`: a dispatched job ends. Exit 0
// makes it DONE; any other N makes it EXIT with EXIT_CODE N and
// EXIT_REASON TEXT (default none). FINISH_TIME is now.
int FinishJobCommand(const StateDir& state, const std::vector<std::string>& args);

// `set-job JOBID STAT`: PSUSP and PEND for a pending job (held by its
// owner, released); USUSP, SSUSP, UNKWN (sbatchd lost) and RUN for a
// dispatched one; ZOMBI for a dispatched one that was killed while
// unreachable.
int SetJobCommand(const StateDir& state, const std::vector<std::string>& args);

}  // namespace bplace::lsfsim
