#pragma once

#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// Job states and how LSF 10.1 groups them. Pure functions of a Job.

// Returns true for DONE and EXIT, the states a job never leaves.
bool IsFinished(const Job& job);

}  // namespace bplace::lsfsim
