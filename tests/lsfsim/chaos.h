#pragma once

// `lsfsim fault --chaos SEED`: a command that misbehaves at random, one
// way per invocation, as an unlucky site's LSF does now and then. The
// choice is a pure function of the seed and the invocation's number, so a
// run is repeated exactly by its seed and the order of calls.

#include <string>

namespace bplace::lsfsim {

// How one invocation misbehaves.
enum class Misbehaviour {
  kNone,      // answers correctly
  kSlow,      // answers correctly after 300-800 ms
  kDropIds,   // exits 0 and lists none of the jobs asked for (bjobs only)
  kOtherIds,  // exits 0 and lists jobs other than those asked for (bjobs only)
  kNotFound,  // says "Job <N> is not found" for every job asked for, live ones too (bjobs only)
  kGarbage,   // 512 random bytes on stdout, exit 0
  kTruncate,  // stdout cut inside a line
  kHang,      // "LSF is down. Please wait..." and never returns
};

// The misbehaviour of invocation `invocation` (1, 2, ...) under chaos
// `seed`: kNone about 40% of the time, kHang about 3%, each other about 8-10%.
Misbehaviour ChaosPick(long long seed, long long invocation);

// "none", "slow", "drop-ids", "other-ids", "not-found", "garbage",
// "truncate", "hang".
const char* MisbehaviourName(Misbehaviour misbehaviour);

// The delay of a kSlow invocation, in milliseconds.
int ChaosSlowMs(long long seed, long long invocation);

}  // namespace bplace::lsfsim
