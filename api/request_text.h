#pragma once

// The strings of a JSON request body that end up on a bsub command line:
// what characters each kind may hold, the readers that check them, their
// JSON Schema, and how a value or a key is shown in an error message. Used
// by the job request decoder (api/job_request_decoder.h). Pure; never throws.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace bplace::api {

// What characters a string field may hold. bsub takes each option value, and
// the command string, as one line: a line break would split it (and, in the
// job file LSF writes, start a new shell line), a NUL would cut it short.
// Other control characters have no use there and would reach the terminals
// of whoever reads bjobs output, so they are refused too; a tab is allowed.
enum class Text {
  kMultiLine,    // script: anything but NUL
  kLine,         // one line: argv words after the first, extra_args words
  kOptionValue,  // one line, not starting with '-': bsub reads it after an option
  kName,         // an option value without blanks: host, queue, project, app names
};

// kInvalidArgument with the message "<field>: <message>".
Error FieldError(std::string_view field, std::string message);

// `value` as a string of kind `text`, non-empty and at most `max_bytes`
// bytes. Errors: FieldError naming `field` and the fault ("expected a string,
// got number", "longer than 255 bytes (300)", "contains a line break",
// "contains the control character U+001B", "starts with '-' (...)").
Result<std::string> GetString(const nlohmann::json& value, std::string_view field,
                              std::size_t max_bytes, Text text);

// `value` as a list of 0..`max_items` strings, each as GetString reads it;
// an item's errors name it as "<field>[i]".
Result<std::vector<std::string>> GetStringList(const nlohmann::json& value, std::string_view field,
                                               std::size_t max_items, std::size_t max_bytes,
                                               Text text);

// The JSON Schema (draft 2020-12) of a string GetString accepts as `text` of
// at most `max_bytes`: the same characters as a `pattern` (ECMA-262, as JSON
// Schema reads it). A schema counts characters, not bytes, so it is the
// looser of the two for non-ASCII text.
nlohmann::json StringSchema(Text text, std::size_t max_bytes);

// The JSON Schema of a list GetStringList accepts, with at least one item
// (a field that may be empty sets its own minItems).
nlohmann::json StringListSchema(std::size_t max_items, std::size_t max_bytes, Text text);

// A value for an error message: scalars as JSON cut to 64 characters,
// containers by type only ("a JSON object": dumping a deeply nested value
// would recurse once per level).
std::string Describe(const nlohmann::json& value);

// A key of a body as an error message shows it: as is when at most 64 bytes
// and free of control characters, else JSON-escaped and cut, so that a
// megabyte key or a terminal escape never reaches a response or a log line.
std::string ShownKey(const std::string& key);

}  // namespace bplace::api
