#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/job_paths.h"
#include "tests/lsfsim/job_spool.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// How sbatchd starts one job, decided before the fork so that the child
// only makes system calls. Plain data.
struct ExecPlan {
  bool drop_privileges = false;  // we are root and the job belongs to another user
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user;                      // for initgroups
  std::string home;                      // the user's home directory ("/" when unknown)
  std::string cwd;                       // ExecCwd(job)
  int umask = 022;                       // the submitter's
  JobOutputFile out;                     // -o/-oo; empty path: /dev/null (LSF would mail it)
  JobOutputFile err;                     // -e/-eo; empty path: into `out`, as LSF does
  std::vector<std::string> environment;  // "KEY=value"
  std::vector<std::string> argv;         // {"/bin/sh", "-c", command}
};

// Builds the plan for `job` (dispatched: exec_host set) from its spool: the
// submitter's environment plus LSF's job variables (LSB_JOBID,
// LSB_JOBINDEX for an array element, LSB_JOBNAME, LSB_QUEUE, LSB_HOSTS and
// LSB_MCPU_HOSTS for the execution host, LSB_DJOB_NUMPROC, LSB_SUB_HOST,
// LSB_EXEC_CLUSTER, LS_SUBCWD), which win over the submitter's. The job
// runs as its user: when we are root and the user is someone else, the
// plan drops to that user (as `setpriv --reuid --regid --init-groups`);
// otherwise it runs as ourselves. Error: we are root and the user is
// unknown (a root-owned job for a name we cannot resolve is refused).
tl::expected<ExecPlan, std::string> MakeExecPlan(const Job& job, const JobSpool& spool,
                                                 const ClusterDef& cluster);

// In the forked child: becomes its own process group leader, resets signal
// dispositions and the mask, drops privileges, applies the umask, enters
// the directory (/tmp when it cannot), connects stdin to /dev/null and
// stdout/stderr to the output files (opened as the job's user; /dev/null
// when they cannot be opened), closes every other descriptor and execs the
// shell. Exit status 126 when privileges cannot be dropped, 127 when the
// exec fails. Never returns.
[[noreturn]] void ExecJobChild(const ExecPlan& plan);

}  // namespace bplace::lsfsim
