#pragma once

// What the daemon takes over from before this start, read from the state
// store into the wiring before anything is served.

#include "bplaced/wiring.h"
#include "common/result.h"

namespace bplace {

// What the state store remembers from before this start: the jobs to
// follow, and the submissions whose outcome is not known (the daemon died
// between the intent and bsub's answer). Blocks on the disk, before serving.
// The jobs go to the jobs tier, the unsettled submissions to the
// reconciler. Returns the store's error, prefixed "state store: ".
Result<void> RestoreState(Wiring& wiring);

}  // namespace bplace
