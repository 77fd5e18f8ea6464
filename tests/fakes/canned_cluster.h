#pragma once

// A small canned LSF cluster for unit tests, as LSF 10.1 prints it
// (docs/lsf-formats.md): three open queues qa, qb and qc with PEND 0, 4 and
// 10, two hosts, a user group, and lsid. The submitter's tests
// (tests/daemon/submit/submit_fixture.h) and the route tests
// (tests/api/handlers_fixture.h) answer their FakeCommandRunner with it
// (AnswerAsCannedCluster); each gives its own `bmgroup -w` (the host group
// hg_two), which differs on purpose.

#include <memory>
#include <string>
#include <vector>

#include "tests/fakes/fake_command_runner.h"

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

// The value following `flag` in `argv`, or "".
inline std::string ValueOf(const std::vector<std::string>& argv, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag) return argv[i + 1];
  }
  return "";
}

// Whether `spec` runs bsub.
inline bool IsBsub(const lsf::CommandSpec& spec) {
  return !spec.argv.empty() && spec.argv[0] == "bsub";
}

// Makes `fake` answer as the canned cluster: `bqueues -w` (also for `-u
// alice`), `bhosts -w`, `bqueues -l` (qa and qb on all hosts, qc on
// hg_two), `bmgroup -w` with `bmgroup_w`, `bugroup -w`, `lsid`; and bsub
// accepts every job into the queue it names, with job ids from 1000.
inline void AnswerAsCannedCluster(FakeCommandRunner& fake, const char* bmgroup_w) {
  fake.OnArgv({"bqueues", "-w"}, FakeCommandRunner::Output(kBqueuesW));
  fake.OnArgv({"bhosts", "-w"}, FakeCommandRunner::Output(kBhostsW));
  fake.OnArgv({"bqueues", "-l"},
              FakeCommandRunner::Output(QueueBlock("qa", "all") + QueueBlock("qb", "all") +
                                        QueueBlock("qc", "hg_two/")));
  fake.OnArgv({"bmgroup", "-w"}, FakeCommandRunner::Output(bmgroup_w));
  fake.OnArgv({"bugroup", "-w"}, FakeCommandRunner::Output(kBugroupW));
  fake.OnArgv({"lsid"}, FakeCommandRunner::Output(kLsid));
  fake.OnArgv({"bqueues", "-u", "alice", "-w"}, FakeCommandRunner::Output(kBqueuesW));
  auto next_id = std::make_shared<int>(1000);
  fake.On(IsBsub, [next_id](const lsf::CommandSpec& spec) {
    return FakeCommandRunner::Reply(
        FakeCommandRunner::Output("Job <" + std::to_string((*next_id)++) +
                                  "> is submitted to queue <" + ValueOf(spec.argv, "-q") + ">.\n"));
  });
}

}  // namespace bplace::testing
