#pragma once

// A bsub command line turned into the body of POST /v1/jobs (the field table
// of api/job_request_decoder.h), so that the front door's bsub submits
// through the daemon's one submission path. Pure functions.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "lsf_adapter/bsub_command_line.h"

namespace bplace::api {

// What bsub hands to the job besides its options: the submitter's working
// directory, umask, environment, and the job script when bsub reads one on
// stdin (the command line names no command).
struct BsubSubmitter {
  std::string workdir;                        // absolute
  std::optional<std::string> umask;           // octal digits
  std::optional<nlohmann::json> environment;  // object of strings
  std::optional<std::string> script;          // stdin
};

// The POST /v1/jobs body for `line`:
//  - -q "a b c" (blanks or commas) is the candidate list `queues`, one -q
//    the only candidate (the user's choice, kept); -m with one host is
//    `host`;
//  - -J NAME[LIST] is `job_name` and `array`; -n a whole number is `slots`;
//    every -R goes to `resources` in order; -o -e -cwd -W -M -P -app fill
//    their fields (read from JobRequestFields()' bsub column: one table);
//  - every other option bsub takes (lsf::BsubOptionUse::kPassed) goes to
//    `extra_args` with its value;
//  - the command words, as bsub joins them (lsf::BsubCommandString: `bsub
//    sh -c 'exit 3'` runs `sh -c "exit 3"`), are `command`; none: `script`.
// Returns kInvalidArgument naming what bplace cannot express, so that the
// real bsub runs the command line as it is: -Jd (bplace tags jobs), an
// interactive or blocking option, -m with several hosts, -n min,max, an
// array limit (%N), an option given twice where bsub keeps only one, -q
// naming no queue (-q ''), no command and no script. The decoder judges the
// values afterwards.
Result<nlohmann::json> JobBodyFromBsub(const lsf::BsubCommandLine& line,
                                       const BsubSubmitter& submitter);

// Puts a -J value into a job request body: `job_name`, or for
// "name[LIST]" (LSF 10.1's job array form) `array` = LIST and `job_name`
// = name when there is one. Errors: kInvalidArgument for an array limit
// ("name[1-10]%5"), which bplace does not pass.
Result<void> PutJobName(const std::string& value, nlohmann::json& body);

// The words of the -q value (blanks or commas between names).
std::vector<std::string> SplitQueueList(const std::string& value);

}  // namespace bplace::api
