#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace bplace::lsfsim {

// Job array index lists as LSF 10.1 writes them, in `bsub -J
// "name[1-10:2,15]%4"` and in job ids such as `1234[1-3]`: comma-separated
// items, each `i`, `start-end` or `start-end:step`. Pure functions.

struct IndexRange {
  long long start = 0;
  long long end = 0;
  long long step = 1;
};

// Parses an index list without its brackets ("1-10:2,15"). Returns nullopt
// on a syntax error (empty item, non-digit, missing bound). Bounds are not
// checked here: a range may be empty or start at 0 (see ParseArrayJobName).
std::optional<std::vector<IndexRange>> ParseIndexRanges(std::string_view text);

// Returns true when `index` is one of the indices `ranges` describe.
bool IndexInRanges(const std::vector<IndexRange>& ranges, long long index);

// A job array requested with `bsub -J`.
struct ArraySpec {
  std::string name;          // the job name before '['
  std::vector<int> indices;  // ascending, no duplicates
  int slot_limit = 0;        // %N: elements that may run at once; 0 = none
};

// Why mbatchd refused a job array; each maps to an LSF message.
enum class ArrayError {
  kBadJobName,  // "Bad job name": the brackets or %limit do not parse
  kBadIndex,    // "Job array index error": an index below 1, step below 1, start after end
  kTooLarge,    // "Job array index too large": more elements than MAX_JOB_ARRAY_SIZE
};

// Returns LSF's message for `error` (lsb.err.c wording), without the
// trailing ". Job not submitted.".
const char* ArrayErrorMessage(ArrayError error);

// Parses a -J value. Returns nullopt when it names no array (no '['), the
// array otherwise, or the error mbatchd reports. `max_array_size` is
// MAX_JOB_ARRAY_SIZE (lsb.params, LSF default 1000): the largest number of
// elements one array may have.
tl::expected<std::optional<ArraySpec>, ArrayError> ParseArrayJobName(std::string_view job_name,
                                                                     long long max_array_size);

}  // namespace bplace::lsfsim
