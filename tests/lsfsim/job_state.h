#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tests/lsfsim/job_array.h"
#include "tests/lsfsim/state.h"

namespace bplace::lsfsim {

// Job states and job ids as LSF 10.1 groups and writes them. Pure functions.

// Every state `bjobs` can print (LSF 10.1 bjobs man page, "Job states").
inline constexpr const char* kJobStates[] = {"PEND",  "PSUSP", "RUN",  "USUSP", "SSUSP",
                                             "UNKWN", "ZOMBI", "DONE", "EXIT"};

// Returns true for DONE and EXIT, the states a job never leaves.
bool IsFinishedState(std::string_view status);
bool IsFinished(const Job& job);  // IsFinishedState(job.status)

// Returns true for PEND and PSUSP: not dispatched yet.
bool IsPendingState(std::string_view status);
bool IsPending(const Job& job);  // IsPendingState(job.status)

// Returns true for RUN, USUSP, SSUSP and UNKWN: dispatched and holding its
// slots (a suspended job keeps them; UNKWN means sbatchd is unreachable, the
// job may well still run).
bool HoldsSlots(const Job& job);

// Returns true for PSUSP, USUSP and SSUSP.
bool IsSuspended(const Job& job);

// Returns true once mbatchd has forgotten a finished job: CLEAN_PERIOD
// seconds (or more) after it finished. Unfinished jobs are never cleaned.
bool IsCleaned(const Job& job, long long now, long long clean_period_s);

// The value of bsub option `option` ("-o") as the job was submitted with
// it; "" when it was not given.
std::string JobOption(const Job& job, const char* option);

// The job id as LSF prints it in messages: "1234", or "1234[7]" for an
// array element.
std::string JobIdText(const Job& job);

// The command as LSF shows and records it (bjobs -l and -o COMMAND, bacct,
// lsb.events JOB_NEW): a script from stdin on one line, its newlines
// shown as ';' and the last one dropped. The job still runs the script
// as submitted.
std::string CommandAsShown(const Job& job);

// JOB_NAME as bjobs prints it: the name, or "name[7]" for an array element.
std::string DisplayName(const Job& job);

// A job id on a command line: "1234" (the job, or every element of the
// array) or "1234[index_list]" (those elements).
struct JobRef {
  long long id = 0;
  std::optional<std::vector<IndexRange>> indices;  // nullopt: every element
  std::string text;                                // as given
};

// Parses a job id argument. Returns nullopt when it is not one.
std::optional<JobRef> ParseJobRef(std::string_view text);

// Returns true when `job` is one of the jobs `ref` names.
bool JobRefMatches(const JobRef& ref, const Job& job);

}  // namespace bplace::lsfsim
