#pragma once

// The front door's answer to bjobs lists, bjobs without job ids (plain
// `bjobs`, -u, -q, -J, -a/-d/-p/-r/-s, with the table, -w, -noheader, -o,
// -json), from the jobs tier's view of every job of the cluster
// (daemon/jobs/job_list_view.h), byte for byte as LSF 10.1's bjobs prints
// them (docs/lsf-front-door.md "bjobs lists").

#include <optional>
#include <string>
#include <vector>

#include "api/auth.h"
#include "api/router.h"
#include "api/services.h"
#include "common/result.h"
#include "daemon/cluster/job_table.h"
#include "daemon/cluster/topology.h"
#include "daemon/jobs/job_list_view.h"
#include "lsf_adapter/bjobs_command_line.h"
#include "lsf_adapter/bjobs_writer.h"

namespace bplace::api {

// Whose jobs a list shows: `user`'s, or every user's (nullopt, -u all).
struct ListOwner {
  std::optional<std::string> user;
};

// The output of list form `line` (no ids; `format` parsed from line.format,
// or null) for `owner`, from `list`, with the jobs of `table` that bplace
// submitted and bjobs has not listed yet (SUBMITTED, not in `list`: read-
// your-writes) placed where mbatchd lists a new PEND job (after the PEND
// jobs of queues of the same or a higher priority, from `topology`).
// Returns the reason to run LSF's bjobs instead when the answer could
// differ from LSF's: -q of a queue `topology` does not know (LSF says "No
// such queue"), -p/-s in the table (LSF adds pending or suspending
// reasons), -o from a table-form list (it lacks fields), a -J pattern with
// '[' (array indexes), a just-submitted job the form needs fields of that
// bplace does not hold yet (FROM_HOST, SUBMIT_TIME, a name LSF chooses).
// Pure.
tl::expected<lsf::BjobsOutput, std::string> AnswerBjobsListFrom(
    const JobList& list, const JobTable* table, const Topology& topology,
    const lsf::BjobsCommandLine& line, const lsf::BjobsFormat* format, const ListOwner& owner);

// Answers list form `line` (argv as the engine gave it) for `caller` with
// `respond`: from the view when it is at most FrontDoorMaxAge old (and
// fetched with -a for -a/-d); otherwise, the first list request since no
// one asked waits for the jobs tier's next run (which fetches the view,
// RefreshSoon) and is answered then; LSF's bjobs to run in every other
// case. Another user's jobs (-u NAME, or -u all without [auth]
// job_visibility = "all" or the admin scope) are left to LSF's bjobs: a
// name may also be a user group the view cannot resolve.
void AnswerBjobsList(const Services& services, const Caller& caller,
                     const std::vector<std::string>& argv, const lsf::BjobsCommandLine& line,
                     std::optional<lsf::BjobsFormat> format, Responder respond);

}  // namespace bplace::api
