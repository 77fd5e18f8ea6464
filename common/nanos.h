#pragma once

#include <chrono>
#include <cstdint>

#include "common/clock.h"

namespace bplace {

// A wall-clock time as integer nanoseconds since the Unix epoch, and back:
// exact round trips of SystemTime (how the state store's *_ns columns, the
// jobs' stored JSON and the GET /v1/jobs page cursor keep times). Pure.
inline std::int64_t ToNanos(SystemTime time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}
inline SystemTime FromNanos(std::int64_t nanos) {
  return SystemTime(
      std::chrono::duration_cast<SystemTime::duration>(std::chrono::nanoseconds(nanos)));
}

}  // namespace bplace
