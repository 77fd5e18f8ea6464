#include "tests/lsfsim/job_state.h"

namespace bplace::lsfsim {

bool IsFinished(const Job& job) { return job.status == "DONE" || job.status == "EXIT"; }

}  // namespace bplace::lsfsim
