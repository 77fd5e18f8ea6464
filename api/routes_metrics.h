#pragma once

// GET /metrics: Prometheus metrics (docs/api.md "GET /metrics").

#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// Adds GET /metrics to `router`: services.metrics rendered in the text
// exposition format 0.0.4 (common/metrics.h), 200 with Content-Type
// metrics::kExpositionContentType, or a 404 problem when services.metrics
// is null. Who may read it is options.metrics_access: anyone
// (kAnonymous), or the `read` scope as the other reads (kRead: 401/403 as
// api/route_access.h). Computed from the cached snapshot and in-memory
// counters; never runs an LSF command. `services` must outlive the router.
void AddMetricsRoute(Router& router, const Services& services);

// The answer of GET /metrics for `services` (see AddMetricsRoute).
Response GetMetrics(const Services& services);

}  // namespace bplace::api
