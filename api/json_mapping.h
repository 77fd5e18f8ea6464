#pragma once

// JSON shapes of the API's answers (README "API"). Pure functions of the
// daemon's types; no I/O.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/placement.h"
#include "daemon/snapshot.h"
#include "daemon/submitter.h"

namespace bplace::api {

// Formats a time as RFC 3339 in UTC with milliseconds ("2026-11-30T12:00:00.123Z").
std::string FormatRfc3339(std::chrono::system_clock::time_point time);

// Seconds (with milliseconds) from `as_of` to now.
double AgeSeconds(SystemTime as_of);

// Sets `as_of` and `age_s` of `body` to `as_of`.
void AddAge(nlohmann::json& body, SystemTime as_of);

// Sets `as_of`/`age_s` (the load data) and `topology_as_of`/`topology_age_s`.
void AddAge(nlohmann::json& body, const ClusterSnapshot& snapshot);

// A limit column: the number, or null for LSF's "-" (unlimited).
nlohmann::json Limit(const std::optional<std::int64_t>& value);

// HOSTS/USERS tokens as printed.
nlohmann::json Tokens(const std::vector<MemberToken>& tokens);

// One refresh tier for /v1/cluster: as_of, age_s, last_attempt,
// last_duration_ms, last_error, consecutive_failures.
nlohmann::json TierJson(const TierStatus& status, SystemTime as_of);

// One queue for /v1/queues: definition, counters (from bqueues -w when
// present), in-flight slots, HOSTS/USERS tokens, admitted and usable hosts.
nlohmann::json QueueJson(const ClusterSnapshot& snapshot, const QueueTopology& queue,
                         const std::unordered_map<std::string, std::int64_t>& inflight);

// Why a queue admits a host: via, token, group_chain, preference, reason.
nlohmann::json AdmissionJson(const HostAdmission& admission);

// One ranked candidate of a placement.
nlohmann::json CandidateJson(const Candidate& candidate);

// Excluded queues: [{queue, code, reason}].
nlohmann::json ExclusionsJson(const std::vector<Exclusion>& excluded);

// One host's InfiniBand health: health, reasons, source, as_of, age_s
// (as_of/age_s null when never learnt).
nlohmann::json HostIbJson(const HostIbHealth& health, const IbHealthState* source);

// bsub calls of a submission: [{queue, outcome, message, elapsed_ms, bsub_argv}].
nlohmann::json AttemptsJson(const std::vector<SubmitAttempt>& attempts);

}  // namespace bplace::api
