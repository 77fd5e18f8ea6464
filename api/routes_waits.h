#pragma once

// The wait predictor's read (docs/api.md "Expected start").

#include <cstddef>

#include <nlohmann/json.hpp>

#include "api/auth.h"
#include "api/http/message.h"
#include "api/router.h"
#include "api/services.h"

namespace bplace::api {

// The most recent waits an answer lists.
inline constexpr std::size_t kRecentWaitsShown = 50;

// GET /v1/queues/{name}/waits: queue; recent_waits_s (the newest
// kRecentWaitsShown waits learned, seconds, newest first); learned (every
// queue's waits learned since start); and estimates: per slot-count class
// {slots ("1", "2-4", "257+"), expected_start (ExpectedStartJson) of a job
// of its smallest size that must wait}. From the wait model alone: no LSF
// command. 404 for a queue not in bqueues -l; 503 before the first
// snapshot or without a model.
Response GetQueueWaits(const Services& services, const Caller& caller, const Request& req,
                       const RouteParams& params);

// The wait bounds' record on bplace's jobs for GET /v1/cluster
// (`wait_predictions`): learned (waits learned), predictions (jobs started
// whose placement gave a bound), within_bound, coverage (within_bound /
// predictions, null before the first). Null without a model.
nlohmann::json WaitRecordJson(const Services& services);

}  // namespace bplace::api
