#include "tests/lsfsim/chaos.h"

#include <cstdint>
#include <random>

namespace bplace::lsfsim {
namespace {

// A generator for one invocation: splitmix64 of the seed and the number, so
// that neighbouring invocations are unrelated.
std::mt19937_64 Generator(long long seed, long long invocation) {
  std::uint64_t z = static_cast<std::uint64_t>(seed) * 0x9e3779b97f4a7c15ULL +
                    static_cast<std::uint64_t>(invocation);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return std::mt19937_64(z ^ (z >> 31));
}

}  // namespace

Misbehaviour ChaosPick(long long seed, long long invocation) {
  std::mt19937_64 rng = Generator(seed, invocation);
  const int roll = static_cast<int>(rng() % 100);
  if (roll < 40) return Misbehaviour::kNone;
  if (roll < 50) return Misbehaviour::kSlow;
  if (roll < 60) return Misbehaviour::kDropIds;
  if (roll < 70) return Misbehaviour::kOtherIds;
  if (roll < 80) return Misbehaviour::kNotFound;
  if (roll < 89) return Misbehaviour::kGarbage;
  if (roll < 97) return Misbehaviour::kTruncate;
  return Misbehaviour::kHang;
}

const char* MisbehaviourName(Misbehaviour misbehaviour) {
  switch (misbehaviour) {
    case Misbehaviour::kNone:
      return "none";
    case Misbehaviour::kSlow:
      return "slow";
    case Misbehaviour::kDropIds:
      return "drop-ids";
    case Misbehaviour::kOtherIds:
      return "other-ids";
    case Misbehaviour::kNotFound:
      return "not-found";
    case Misbehaviour::kGarbage:
      return "garbage";
    case Misbehaviour::kTruncate:
      return "truncate";
    case Misbehaviour::kHang:
      return "hang";
  }
  return "?";
}

int ChaosSlowMs(long long seed, long long invocation) {
  std::mt19937_64 rng = Generator(seed, invocation);
  rng();  // the pick's draw
  return 300 + static_cast<int>(rng() % 501);
}

}  // namespace bplace::lsfsim
