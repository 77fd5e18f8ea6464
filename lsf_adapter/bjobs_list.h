#pragma once

// bjobs lists (bjobs without job ids, LSF 10.1 bjobs(1)): the one query that
// reads every job of the cluster for the daemon's view of them, and which
// of those jobs a list form shows (docs/lsf-front-door.md "bjobs").
// Pure functions: safe from any thread.

#include <string>
#include <string_view>
#include <vector>

#include "lsf_adapter/bjobs_command_line.h"
#include "lsf_adapter/job_record.h"

namespace bplace::lsf {

// The argv (`bjobs_path` first) of the query that lists every job of the
// cluster, in mbatchd's order:
//   use_o_json: bjobs_path -u all [-a] -o "<BjobsOutputFields()>" -json
//   otherwise:  bjobs_path -u all -w [-a]   (the table: LSF before 10.1,
//               volclava; read with ParseBjobsTable)
// `with_finished` adds -a: DONE and EXIT jobs until CLEAN_PERIOD too.
// Read the answer with ReadBjobsReply (bjobs_command.h), whose empty answer
// ("No unfinished job found", exit 254/255) is an empty list.
std::vector<std::string> BjobsListArgv(const std::string& bjobs_path, bool with_finished,
                                       bool use_o_json);

// True when a list of `line` holds DONE and EXIT jobs: -a and -d.
bool ListShowsFinished(const BjobsCommandLine& line);

// Whether `job` passes the state filter of bjobs (BjobsCommandLine::
// state_filter): '\0' unfinished (not DONE/EXIT), 'a' every job, 'd' DONE
// or EXIT, 'p' PEND, 'r' RUN, 's' suspended (PSUSP, USUSP, SSUSP), as
// lsfsim's bjobs, which is held to LSF 10.1's captures.
bool PassesStateFilter(char state_filter, const JobRecord& job);

// Whether `job`'s name matches the -J pattern of LSF 10.1 ('*' any run of
// characters, anywhere): the name as bjobs prints it ("arr[3]" for an array
// element) or the array's name without the index.
bool JobNameMatches(std::string_view pattern, const JobRecord& job);

// What a list form asks for beyond the user: -q, -J and the state filter.
// True when `job` is listed by `line` (whose user filter the caller has
// applied already: the view indexes jobs by user).
bool ListedBy(const BjobsCommandLine& line, const JobRecord& job);

}  // namespace bplace::lsf
