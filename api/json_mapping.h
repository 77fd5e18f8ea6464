#pragma once

// JSON shapes of the API's answers (docs/api.md). Pure functions of the
// daemon's types: no I/O, no locks, and no clock (ages are measured to the
// `now` the caller passes, which handlers take from Services::clock).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/cluster/snapshot.h"
#include "daemon/placement/placement.h"
#include "daemon/submit/submitter.h"

namespace bplace::api {

// Formats a time as RFC 3339 in UTC with milliseconds ("2026-11-30T12:00:00.123Z").
std::string FormatRfc3339(std::chrono::system_clock::time_point time);

// Seconds (with milliseconds) from `as_of` to `now`; negative when the wall
// clock has stepped back since `as_of`.
double AgeSeconds(SystemTime as_of, SystemTime now);

// Sets `as_of` (RFC 3339) and `age_s` (AgeSeconds to `now`) of `body`.
void AddAge(nlohmann::json& body, SystemTime as_of, SystemTime now);

// Sets `as_of`/`age_s` of the load data and `topology_as_of`/`topology_age_s`
// of the topology, both measured to `now`.
void AddAge(nlohmann::json& body, const ClusterSnapshot& snapshot, SystemTime now);

// A limit column: the number, or null for LSF's "-" (unlimited).
nlohmann::json Limit(const std::optional<std::int64_t>& value);

// HOSTS/USERS tokens as printed.
nlohmann::json Tokens(const std::vector<MemberToken>& tokens);

// One refresh tier for /v1/cluster: as_of, age_s (to `now`; both null before
// the tier's first success), last_attempt, last_duration_ms, last_error
// (null when the last run succeeded), consecutive_failures.
nlohmann::json TierJson(const TierStatus& status, SystemTime as_of, SystemTime now);

// The `counts` of /v1/cluster: queues, hosts, host_groups, user_groups; 0 for
// a tier that has not succeeded yet.
nlohmann::json ClusterCountsJson(const ClusterSnapshot& snapshot);

// Slots per queue (the in-flight ledger's counts) as a JSON object, {} when
// none.
nlohmann::json InflightJson(const std::unordered_map<std::string, std::int64_t>& slots);

// One queue for /v1/queues: definition, counters (from bqueues -w when
// present), in-flight slots, HOSTS/USERS tokens, admitted and usable hosts.
nlohmann::json QueueJson(const ClusterSnapshot& snapshot, const QueueTopology& queue,
                         const std::unordered_map<std::string, std::int64_t>& inflight);

// Why a queue admits a host: via, token, group_chain, preference, reason.
nlohmann::json AdmissionJson(const HostAdmission& admission);

// The queues of `topology` that admit `host` and those whose HOSTS take it
// out, for /v1/hosts/{host}: {"queues": [AdmissionJson + queue, ...],
// "excluded_by": [{queue, token, reason}, ...]}, both in queue order. Queues
// that neither admit nor exclude it are in neither list.
nlohmann::json HostQueuesJson(const Topology& topology, const std::string& host);

// One host of GET /v1/hosts: host, status, takes_new_work, max, njobs, run
// (as bhosts -w gave them; max null for "-"), free_slots (max - njobs, at
// least 0; null when max is unlimited), ib ({health, reasons}: HostIbOf of
// `ib`, which may be null: unknown) and queues_admitting (queues whose HOSTS admit
// the host).
nlohmann::json HostSummaryJson(const lsf::HostStatus& host, std::int32_t queues_admitting,
                               const IbHealthState* ib);

// One group of bmgroup -w or bugroup -w: name, members (as LSF printed
// them), all (the group is "all") and, under `expanded_key` ("hosts" or
// "users"), its members with nested groups resolved, sorted.
nlohmann::json GroupJson(const GroupIndex& groups, const lsf::Group& group,
                         std::string_view expanded_key);

// When a job can expect to start (docs/api.md "Expected start"): method
// (WaitMethodName), p50_s and bound_s (seconds, null when not known),
// quantile, confidence, samples, and summary (DescribeWait's words).
nlohmann::json ExpectedStartJson(const WaitEstimate& estimate);

// One ranked candidate of a placement: queue, status, pend, inflight, run,
// prio, and what ranked it (Candidate): slots, starts_now, free_slots (null:
// no limit known), limited_by (null: none), capacity, slots_to_free,
// expected_start (ExpectedStartJson); then
// lands_in (known esub rewrite), and host_admission (with a host) or the
// usable hosts' ib_healthy_hosts / ib_unknown_hosts.
nlohmann::json CandidateJson(const Candidate& candidate);

// Excluded queues: [{queue, code, reason}], with cause, until (RFC 3339 or
// null) and until_refresh ("topology", "load" or null) for a remembered
// bsub refusal (code rejected_by_lsf).
nlohmann::json ExclusionsJson(const std::vector<Exclusion>& excluded);

// One host's InfiniBand health: health, reasons, source ("none" without
// one), as_of, age_s to `now` (as_of/age_s null when never learnt).
nlohmann::json HostIbJson(const HostIbHealth& health, const IbHealthState* source, SystemTime now);

// Every host's InfiniBand health for /v1/ib, grouped: {"healthy": [...],
// "unhealthy": [...], "unknown": [...]}, each entry {host, reasons, as_of,
// age_s}, the verdict as HostIbOf judges it against bhosts. Hosts are the bhosts hosts in bhosts
// order (those no source mentions are unknown), then, sorted by name, the hosts only the source
// knows (the login node the local probe runs on may be an LSF client, not
// in bhosts). Needs a complete snapshot (load set).
nlohmann::json IbHostsJson(const ClusterSnapshot& snapshot, SystemTime now);

// The body of /v1/placement without its ages: user, host, permission_source,
// require_ib, host_ib (when a host was asked for), candidates, chosen (the
// first candidate, or null), excluded.
nlohmann::json PlacementJson(const PlacementRequest& request, const Placement& placement,
                             const IbHealthState* ib, SystemTime now);

// bsub calls of a submission: [{queue, outcome, message, elapsed_ms, bsub_argv}].
nlohmann::json AttemptsJson(const std::vector<SubmitAttempt>& attempts);

}  // namespace bplace::api
