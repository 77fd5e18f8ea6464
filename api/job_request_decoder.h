#pragma once

#include <cstdint>
#include <string_view>

#include "daemon/common/result.h"
#include "daemon/submitter.h"

namespace bplace::api {

// Bounds on a job request.
struct JobRequestLimits {
  std::int64_t max_slots = 100000;
  std::size_t max_string_bytes = 4096;    // any single string field except command/script
  std::size_t max_command_bytes = 65536;  // command, each argv word, script
  std::size_t max_list_items = 256;       // queues, argv, extra_args
};

// Decodes the JSON body of POST /v1/jobs (fields of DESIGN §4 and the README)
// into a JobRequest. Never throws. Returns kInvalidArgument naming the field
// ("slots: expected a positive integer, got -1") when the body is not a JSON
// object, a field is unknown, has the wrong type or an out-of-range value, a
// string holds NUL (or a newline where LSF would misread it), none or more than
// one of command/argv/script is given, or extra_args holds a refused option.
// A `user` field is refused: the job runs as the caller, never as a name in
// the body.
Result<JobRequest> DecodeJobRequest(std::string_view body, const JobRequestLimits& limits);

}  // namespace bplace::api
