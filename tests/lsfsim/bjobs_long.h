#pragma once

#include <string>
#include <vector>

#include "tests/lsfsim/cluster.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// `bjobs -l`: one block per job, in the order given. Pure function.
//
// LSF 10.1 (the layout of tests/testdata/lsf/lsf10/bjobs_l.txt, the one
// lsf_adapter/bjobs_long_parser.cc reads): a blank line, the header "Job
// <ID>, [Job Name <..>, ]User <..>, Project <..>, Status <..>, Queue <..>,
// Command <..>[, Job Description <..>]", then event lines "Tue Dec  1
// 10:40:47: Submitted from host <..>, CWD <..>[, Output File <..>][, Error
// File <..>][, N Task(s)][, Specified Hosts <..>];", "...: Started N
// Task(s) on Host(s) <..>, Allocated N Slot(s) on Host(s) <..>, Execution
// Home <..>, Execution CWD <..>;", "...: Done successfully. The CPU time
// used is X seconds." and "...: Post job process done successfully.", or
// "...: Exited with exit code N. The CPU time used is X seconds." (a plain
// "Exited" for a job killed before it ran) and "...: Completed <exit>[;
// REASON].", " PENDING REASONS:" for a pending job, " MEMORY USAGE:" with
// "MAX MEM: N Mbytes;" when the job's memory is known (Job::max_mem_kb:
// a job that runs or ran for real), and the
// SCHEDULING PARAMETERS and RESOURCE REQUIREMENT DETAILS blocks. The
// header, event and Combined/Effective lines are cut at 79 columns as
// Platform's prtLine cuts them (anywhere, continuation lines indented by
// 21 blanks, a blank that would open one dropped). Blocks are separated by
// a line of 78 dashes; the output ends with a blank line.
//
// OpenLava dialect (volclava 2.2, tests/testdata/lsf/openlava/bjobs_l_*.txt):
// no line is cut, "Started on <host>, Execution Home <..>, Execution CWD
// <..>;", no "Post job process" or "Completed" line, "MAX MEM: N Mbytes;
// AVG MEM: N Mbytes" without the efficiency.
std::string FormatBjobsLong(const std::vector<const Job*>& jobs, const ClusterDef& cluster);

}  // namespace bplace::lsfsim
