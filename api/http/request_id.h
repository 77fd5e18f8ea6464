#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace bplace::api {

// Whether a client's X-Request-Id may be echoed and logged as it is: 1..128
// printable ASCII characters without spaces (0x21..0x7e), so it can neither
// split a log line nor grow without bound.
bool IsValidRequestId(std::string_view id);

// Makes the ids of requests that came without a usable X-Request-Id, and of
// the responses the server sends on its own (503 on overload).
// Thread safety: Next may be called from any thread.
class RequestIdGenerator {
 public:
  // Seeds from std::random_device (from the steady clock when there is
  // none), so that two processes do not hand out the same sequence.
  RequestIdGenerator();

  RequestIdGenerator(const RequestIdGenerator&) = delete;
  RequestIdGenerator& operator=(const RequestIdGenerator&) = delete;

  // Returns a fresh id: 16 lowercase hex digits, never the same twice in one
  // generator (until 2^64 calls). Does not block.
  std::string Next();

 private:
  const std::uint64_t seed_;
  std::atomic<std::uint64_t> counter_{0};
};

}  // namespace bplace::api
