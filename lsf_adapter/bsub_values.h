#pragma once

// The syntax of the values bsub options take (LSF 10.1 bsub(1)): run limits,
// memory limits, the brackets of a resource requirement and the index list of
// a job array. The job request decoder (api/job_request_decoder.h) checks a
// request's fields with these before any bsub runs, so that a caller hears
// what is wrong with a value by name instead of LSF's one-line refusal. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bplace::lsf {

// Whether `value` is a run limit as bsub -W takes it: "[hour:]minute", at
// most 9 digits of minutes alone, or at most 7 digits of hours and 1 or 2 of
// minutes below 60 ("90", "1:30", "01:05").
bool IsRunLimit(std::string_view value);

// The same set as IsRunLimit, as an ECMA-262 regular expression (the JSON
// Schema `pattern` of the request field).
inline constexpr std::string_view kRunLimitPattern = "^([0-9]{1,9}|[0-9]{1,7}:[0-5]?[0-9])$";

// Whether `value` is a memory limit as bsub -M takes it: a whole number,
// then optionally a unit letter K M G T P E (any case) and an optional B
// ("4096", "8GB", "512m"). A bare number is in the cluster's
// LSF_UNIT_FOR_LIMITS; bplace passes the value on as it is.
bool IsMemoryLimit(std::string_view value);

// The same set as IsMemoryLimit, as an ECMA-262 regular expression.
inline constexpr std::string_view kMemoryLimitPattern = "^[0-9]+([KMGTPEkmgtpe][Bb]?)?$";

// Why the brackets of a bsub -R string do not balance, or nullopt when they
// do. Sections (`select[...]`, `rusage[...]`, `span[...]`), the expressions
// in them (`defined(x)`, `(a || b)`) and compound or alternative
// requirements (`2*{select[a]} + {select[b]}`, `{...} || {...}`) nest [ ],
// ( ) and { }; anything inside single or double quotes is a string value and
// not counted, but the quote itself must close. LSF answers every such
// string with "Bad resource requirement syntax" and no position; the text
// returned names the first bracket at fault, counting characters from 1
// ("']' at position 12 does not close '(' at position 8").
std::optional<std::string> ResReqBracketProblem(std::string_view res_req);

// The largest array index bplace passes on. LSF's own bound is the cluster's
// MAX_JOB_ARRAY_SIZE (lsb.params), which LSF checks.
inline constexpr std::int64_t kMaxArrayIndex = 2147483646;

// One item of a job array's index list (bsub -J "name[LIST]", LSF 10.1 "Job
// arrays"): `start`, `start-end` or `start-end:step`.
struct ArrayIndexItem {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t step = 1;

  // How many indices the item makes: (end - start) / step + 1.
  std::int64_t count() const { return (end - start) / step + 1; }
};

// `item` read as an ArrayIndexItem; nullopt when it is not one: indices and
// the step are 1..kMaxArrayIndex in decimal, start <= end, and a step needs a
// range ("5:2" is refused).
std::optional<ArrayIndexItem> ParseArrayIndexItem(std::string_view item);

}  // namespace bplace::lsf
