#pragma once

// What the front door's bjobs makes up for on an OpenLava-family cluster
// when LSF's own bjobs answers (docs/lsf-front-door.md "OpenLava-family
// clusters"). Pure functions.

#include <string>
#include <vector>

#include "api/http/message.h"
#include "daemon/cluster/snapshot.h"
#include "lsf_adapter/bjobs_command_line.h"

namespace bplace::api {

// The `run_lsf` answer (RunRealLsf) for `line`, whose words after `bjobs`
// are `args`, with `reason`. On an OpenLava-family cluster (the snapshot's
// lsid) a `-json` list (no ids) also carries "exit_0_when_empty": true:
// volclava's bjobs exits 255 when it prints no record, where LSF 10.1
// exits 0 with an empty RECORDS list, and engines (Toil's `bjobs -json -o
// "jobid stat start_time"`) take 255 as a failure. With ids the exit
// statuses agree already (255 for an id LSF does not know).
Response RunRealBjobs(const ClusterSnapshot& snapshot, const lsf::BjobsCommandLine& line,
                      const std::vector<std::string>& args, const std::string& reason);

}  // namespace bplace::api
