#pragma once

// The answers the read routes share: "no complete snapshot yet" (503) and
// "no such name" (404), so that every route says them the same way.

#include <functional>
#include <string_view>

#include "api/http/message.h"
#include "api/services.h"
#include "daemon/cluster/snapshot.h"

namespace bplace::api {

// How long a client should wait before asking again while the first
// snapshot is being built (the Retry-After of WithSnapshot's 503).
inline constexpr int kSnapshotRetryAfterS = 5;

// Calls `read` with the current snapshot when it is complete (load and
// topology have both succeeded once) and returns its response. Otherwise
// returns, without calling `read`, the 503 kUnavailable problem with
// `Retry-After: 5` whose detail is "no LSF snapshot yet" followed by each
// tier's last error. Never runs an LSF command; holds the snapshot only
// during the call.
Response WithSnapshot(const Services& services,
                      const std::function<Response(const ClusterSnapshot& snapshot)>& read);

// The 503 of WithSnapshot for an incomplete `snapshot`. Pure.
Response NoSnapshotYet(const ClusterSnapshot& snapshot);

// The 404 kNotFound problem of a lookup by name that found nothing: detail
// "<kind> <name> <why>", e.g. NotFound("queue", "gpu", "does not exist
// (bqueues -l)"); `why` says where LSF lists the things of that kind. Pure.
Response NotFound(std::string_view kind, std::string_view name, std::string_view why);

}  // namespace bplace::api
