#include "tests/lsfsim/job_array.h"

#include <algorithm>
#include <set>

#include "tests/lsfsim/util.h"

namespace bplace::lsfsim {
namespace {

// LSF's index values are positive 32-bit integers.
constexpr long long kMaxIndex = 2147483646;

std::optional<IndexRange> ParseItem(std::string_view item) {
  IndexRange range;
  size_t colon = item.find(':');
  std::string_view bounds = item.substr(0, colon);
  if (colon != std::string_view::npos && !ParseInt(item.substr(colon + 1), &range.step)) {
    return std::nullopt;
  }
  size_t dash = bounds.find('-');
  if (!ParseInt(bounds.substr(0, dash), &range.start)) return std::nullopt;
  range.end = range.start;
  if (dash != std::string_view::npos && !ParseInt(bounds.substr(dash + 1), &range.end)) {
    return std::nullopt;
  }
  // A step only makes sense on a range.
  if (dash == std::string_view::npos && colon != std::string_view::npos) return std::nullopt;
  return range;
}

}  // namespace

std::optional<std::vector<IndexRange>> ParseIndexRanges(std::string_view text) {
  std::vector<IndexRange> ranges;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::optional<IndexRange> item = ParseItem(text.substr(start, comma - start));
    if (!item) return std::nullopt;
    ranges.push_back(*item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return ranges;
}

bool IndexInRanges(const std::vector<IndexRange>& ranges, long long index) {
  for (const IndexRange& r : ranges) {
    if (index >= r.start && index <= r.end && r.step > 0 && (index - r.start) % r.step == 0) {
      return true;
    }
  }
  return false;
}

const char* ArrayErrorMessage(ArrayError error) {
  switch (error) {
    case ArrayError::kBadJobName:
      return "Bad job name";
    case ArrayError::kBadIndex:
      return "Job array index error";
    case ArrayError::kTooLarge:
      return "Job array index too large";
  }
  return "Bad job name";
}

tl::expected<std::optional<ArraySpec>, ArrayError> ParseArrayJobName(std::string_view job_name,
                                                                     long long max_array_size) {
  size_t open = job_name.find('[');
  if (open == std::string_view::npos) return std::optional<ArraySpec>();
  size_t close = job_name.find(']', open);
  if (close == std::string_view::npos) return tl::unexpected(ArrayError::kBadJobName);
  ArraySpec spec;
  spec.name = std::string(job_name.substr(0, open));
  std::string_view tail = job_name.substr(close + 1);
  if (!tail.empty()) {
    long long limit = 0;
    if (tail[0] != '%' || !ParseInt(tail.substr(1), &limit) || limit < 1) {
      return tl::unexpected(ArrayError::kBadJobName);
    }
    spec.slot_limit = static_cast<int>(std::min(limit, kMaxIndex));
  }
  auto ranges = ParseIndexRanges(job_name.substr(open + 1, close - open - 1));
  if (!ranges) return tl::unexpected(ArrayError::kBadJobName);
  // As mbatchd: check every range, then the total size against the limit.
  long long count = 0;
  for (const IndexRange& r : *ranges) {
    if (r.start < 1 || r.step < 1 || r.start > r.end) return tl::unexpected(ArrayError::kBadIndex);
    if (r.end > kMaxIndex) return tl::unexpected(ArrayError::kTooLarge);
    count += (r.end - r.start) / r.step + 1;
    if (count > max_array_size) return tl::unexpected(ArrayError::kTooLarge);
  }
  std::set<int> indices;
  for (const IndexRange& r : *ranges) {
    for (long long i = r.start; i <= r.end; i += r.step) indices.insert(static_cast<int>(i));
  }
  spec.indices.assign(indices.begin(), indices.end());
  return std::optional<ArraySpec>(std::move(spec));
}

}  // namespace bplace::lsfsim
