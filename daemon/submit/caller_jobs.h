#pragma once

// Finding a caller's jobs in LSF by their tag (-Jd bplace:<tag>, and the
// job name where [submit] tag_in_job_name puts it there too): the one query
// the reconciler and the cross-node check run. Pure functions.

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/command_runner.h"
#include "lsf_adapter/job_record.h"
#include "lsf_adapter/lsf_invoker.h"

namespace bplace {

// The query that lists `caller`'s jobs with their names and descriptions,
// finished ones too (until CLEAN_PERIOD): `bjobs -a -u CALLER -o "jobid
// stat queue user job_name job_description" -json`, or, where bjobs lacks
// those -o fields (`long_form`: volclava, old LSF), `bjobs -a -l -u
// CALLER`.
lsf::CommandSpec CallerJobsQuery(const lsf::LsfInvoker& lsf, const std::string& caller,
                                 bool long_form);

// The records of one CallerJobsQuery (job_id, array_index, user, status,
// queue, job_name, job_description filled). "No job found" is an empty
// list. Errors as lsf::ReadBjobsReply / lsf::QueryOutput.
Result<std::vector<lsf::JobRecord>> ReadCallerJobs(Result<lsf::CommandResult> result,
                                                   bool long_form);

// Whether `job` carries `tag`: its description is exactly
// DescriptionTag(tag), or its job name, an array element's "[N]" or an
// array's "[1-10]" aside, is TaggedJobName(name, tag) for some name: it is
// "bplace-<tag>" or ends in ".bplace-<tag>". Either, whatever
// tag_in_job_name says now: a job submitted before a change of the option
// is still found.
bool CarriesTag(const lsf::JobRecord& job, const std::string& tag);

// The job among `jobs` that carries `tag` (CarriesTag), or null.
const lsf::JobRecord* FindTagged(const std::vector<lsf::JobRecord>& jobs, const std::string& tag);

}  // namespace bplace
