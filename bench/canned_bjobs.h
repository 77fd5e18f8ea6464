#pragma once

// Canned `bjobs -o "<lsf::BjobsOutputFields()>" -json` answers for the
// benches that time bplace's own reading of them (jobs_view_bench,
// jobs_refresh_bench), in LSF 10.1's layout (docs/lsf-formats.md "bjobs -o
// -json"): two-space indent, every value a string.

#include <cstdint>
#include <functional>
#include <string>

namespace bplace::bench {

// Job `i` of a canned cluster: id 1000000 + i.
std::int64_t CannedJobId(int i);

// The STAT job `i` has by default: 40% RUN, 55% PEND, 5% EXIT (by i % 20).
std::string CannedStatus(int i);

// The answer listing jobs [first, first + count): job i of user
// "user<i % users>", with the STAT `status(i)` (CannedStatus when empty);
// RUN and EXIT jobs hold 4 slots on one host, EXIT ones exit 1.
std::string CannedBjobsJson(int first, int count, int users,
                            const std::function<std::string(int)>& status = {});

}  // namespace bplace::bench
