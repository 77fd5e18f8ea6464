#include "api/http/request_id.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <random>

namespace bplace::api {

namespace {

constexpr std::size_t kMaxRequestIdLength = 128;

// The finaliser of splitmix64: a bijection on 64-bit values, so distinct
// counters give distinct ids, and consecutive ones look unrelated.
std::uint64_t Mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t RandomSeed() {
  try {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  } catch (const std::exception&) {
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
}

}  // namespace

bool IsValidRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

RequestIdGenerator::RequestIdGenerator() : seed_(RandomSeed()) {}

std::string RequestIdGenerator::Next() {
  const std::uint64_t n = counter_.fetch_add(1, std::memory_order_relaxed);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx",
                static_cast<unsigned long long>(Mix(seed_ + n * 0x9e3779b97f4a7c15ULL)));
  return text;
}

}  // namespace bplace::api
