#pragma once

// A small canned LSF cluster for unit tests, as LSF 10.1 prints it
// (docs/lsf-formats.md): three open queues qa, qb and qc with PEND 0, 4 and
// 10, two hosts, a user group, and lsid. The submitter's tests
// (tests/daemon/submit/submit_fixture.h) and the route tests
// (tests/api/handlers_fixture.h) answer their FakeCommandRunner with it;
// each keeps its own `bmgroup -w` (the host group hg_two), which differs on
// purpose.

#include <string>

namespace bplace::testing {

// `bqueues -w` (and `bqueues -u alice -w`: alice may use all three).
inline constexpr char kBqueuesW[] =
    "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
    "qa               30  Open:Active       -    -    -    -     0     0     0     0\n"
    "qb               30  Open:Active       -    -    -    -     4     4     0     0\n"
    "qc               30  Open:Active       -    -    -    -    10    10     0     0\n";

// `bhosts -w`: two open hosts with 48 slots, none used.
inline constexpr char kBhostsW[] =
    "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV\n"
    "node001            ok              -     48      0      0      0      0      0\n"
    "node002            ok              -     48      0      0      0      0      0\n";

// One queue of `bqueues -l`: open, USERS all, HOSTS `hosts`.
inline std::string QueueBlock(const std::string& name, const std::string& hosts) {
  return "\n"
         "QUEUE: " +
         name +
         "\n"
         "  -- Test queue.\n"
         "\n"
         "PARAMETERS/STATISTICS\n"
         "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV\n"
         " 30   20  Open:Active       -    -    -    -     0     0     0     0     0    0\n"
         "Interval for a host to accept two jobs is 0 seconds\n"
         "\n"
         "USERS: all\n"
         "HOSTS:  " +
         hosts +
         "\n"
         "-------------------------------------------------------------------------------\n";
}

// `bugroup -w`.
inline constexpr char kBugroupW[] =
    "GROUP_NAME    USERS\n"
    "grp_chem     alice bob carol \n";

// `lsid` of LSF 10.1: cluster1, master lsfmaster01.
inline constexpr char kLsid[] =
    "IBM Spectrum LSF Standard 10.1.0.13, Jun 03 2022\n"
    "\n"
    "My cluster name is cluster1\n"
    "My master name is lsfmaster01\n";

}  // namespace bplace::testing
