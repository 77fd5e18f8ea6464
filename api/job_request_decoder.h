#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/options.h"
#include "common/result.h"
#include "daemon/submit/submitter.h"

namespace bplace::api {

// One field of the POST /v1/jobs body, as documented (docs/api.md "POST
// /v1/jobs" field table, the OpenAPI document).
struct JobRequestField {
  std::string_view name;   // JSON key
  std::string_view bsub;   // the bsub option or input it becomes ("-m", "stdin")
  std::string_view type;   // JSON type(s): "string", "array of strings", ...
  std::string_view notes;  // a short note for people
  // The field's JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it): type,
  // bounds from the limits JobRequestFields was given, and the characters
  // the decoder allows as a `pattern`. Lengths are in bytes for the
  // decoder and in characters for a schema, so the schema is the looser of
  // the two for non-ASCII text; checks a schema cannot say (blank commands,
  // brackets, extra_args options) are only in `description`.
  nlohmann::json schema;
};

// Every field DecodeJobRequest accepts, in documentation order: the one
// list the decoder reads through; docs, tests and the OpenAPI document's
// POST /v1/jobs body schema (api/openapi_document.h) are made from it.
// `limits` gives the schemas' bounds (the daemon's submit.max_slots, ...).
std::vector<JobRequestField> JobRequestFields(const JobRequestLimits& limits = {});

// Decodes the JSON body of POST /v1/jobs (the fields of docs/api.md "POST
// /v1/jobs") into a JobRequest. Pure; never throws. Returns kInvalidArgument
// with a message that starts with the field ("slots: expected an integer from 1
// to 100000, got 2.0", "queues[2]: longer than 255 bytes (300)", "body: not
// valid JSON") when:
// - the body is not a JSON object, repeats a key, has an unknown field, or a
//   `user` field (the job runs as the caller, never as a name in the body);
// - a field has the wrong JSON type, or a string or list item is empty;
// - a string is longer than its bound in `limits`, or a list has more than
//   max_list_items items;
// - any string holds NUL; any field except `script` holds a line break (CR or
//   LF: bsub takes each option value, and the command, as one line) or
//   another control character (U+0001-U+001F except tab, U+007F); names
//   (host, queues, project, app) hold a blank;
// - a value bsub reads after an option (host, queues, job_name, resources,
//   output, error, cwd, project, app), `command` or the first `argv` word
//   starts with '-' (bsub could take it for an option; write "./-x" for such
//   a path);
// - `slots` is not a JSON integer from 1 to max_slots (2.0 is refused: LSF
//   takes a whole number and JSON writes it without a fraction);
// - walltime or memory is not in a form bsub -W / -M takes;
// - none or more than one of command/argv/script is given;
// - extra_args holds a refused option (lsf::CheckExtraArgs);
// - `script` has a #BSUB line bplace refuses (lsf::ParseEmbeddedOptions,
//   lsf::CheckEmbeddedOptions: "script: line 3: #BSUB -q is set by bplace
//   (use the queues field)"), or a #BSUB -n as well as `slots`, or a #BSUB
//   -J as well as `array`; a #BSUB -n is kept in script_slots;
// - job_name holds [ or ] (LSF would make an array: use `array`);
// - `array` is not an LSF index list (start[-end[:step]], commas; indices
//   from 1) or has more than max_array_elements elements (counted per item);
// - require_ib is not a JSON boolean.
// Paths (output, error, cwd) are plain strings for the execution host: no
// expansion, no check that they exist. `script` may hold any byte but NUL.
Result<JobRequest> DecodeJobRequest(std::string_view body, const JobRequestLimits& limits);

}  // namespace bplace::api
