#include "api/json_mapping.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace bplace::api {

using nlohmann::json;

std::string FormatRfc3339(std::chrono::system_clock::time_point time) {
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char result[48];
  std::snprintf(result, sizeof result, "%.*s.%03dZ", static_cast<int>(n), text,
                static_cast<int>(millis % 1000));
  return result;
}

double AgeSeconds(SystemTime as_of, SystemTime now) {
  const auto age = now - as_of;
  return std::chrono::duration_cast<std::chrono::milliseconds>(age).count() / 1000.0;
}

void AddAge(json& body, SystemTime as_of, SystemTime now) {
  body["as_of"] = FormatRfc3339(as_of);
  body["age_s"] = AgeSeconds(as_of, now);
}

void AddAge(json& body, const ClusterSnapshot& snapshot, SystemTime now) {
  AddAge(body, snapshot.as_of(), now);
  body["topology_as_of"] = FormatRfc3339(snapshot.topology_as_of);
  body["topology_age_s"] = AgeSeconds(snapshot.topology_as_of, now);
}

json Limit(const std::optional<std::int64_t>& value) {
  return value ? json(*value) : json(nullptr);
}

json Tokens(const std::vector<MemberToken>& tokens) {
  json list = json::array();
  for (const MemberToken& token : tokens) list.push_back(token.text);
  return list;
}

json TierJson(const TierStatus& status, SystemTime as_of, SystemTime now) {
  json tier;
  if (status.last_success) {
    AddAge(tier, as_of, now);
  } else {
    tier["as_of"] = nullptr;
    tier["age_s"] = nullptr;
  }
  tier["last_attempt"] = status.last_attempt ? json(FormatRfc3339(*status.last_attempt)) : json();
  tier["last_duration_ms"] = status.last_duration.count();
  tier["last_error"] = status.last_error.empty() ? json() : json(status.last_error);
  tier["consecutive_failures"] = status.consecutive_failures;
  return tier;
}

json ClusterCountsJson(const ClusterSnapshot& snapshot) {
  const Topology* topology = snapshot.topology.get();
  json counts;
  counts["queues"] = topology ? topology->queues().size() : 0;
  counts["hosts"] = snapshot.load ? snapshot.load->hosts.size() : 0;
  counts["host_groups"] = topology ? topology->host_groups().Names().size() : 0;
  counts["user_groups"] = topology ? topology->user_groups().Names().size() : 0;
  return counts;
}

json InflightJson(const std::unordered_map<std::string, std::int64_t>& slots) {
  json inflight = json::object();
  for (const auto& [queue, count] : slots) inflight[queue] = count;
  return inflight;
}

json QueueJson(const ClusterSnapshot& snapshot, const QueueTopology& queue,
               const std::unordered_map<std::string, std::int64_t>& inflight) {
  const lsf::QueueDefinition& definition = queue.definition;
  const lsf::QueueLoad* load = nullptr;
  if (const auto it = snapshot.load->queues.find(definition.name);
      it != snapshot.load->queues.end()) {
    load = &it->second;
  }
  const lsf::QueueStatus& status = load ? load->status : definition.status;
  json body;
  body["name"] = definition.name;
  body["description"] = definition.description;
  body["default"] = definition.is_default;
  body["prio"] = load ? load->prio : definition.prio;
  body["nice"] = definition.nice;
  body["status"] = status.text;
  body["open"] = status.open;
  body["active"] = status.active;
  body["max"] = Limit(load ? load->max : definition.max);
  body["jl_u"] = Limit(load ? load->jl_u : definition.jl_u);
  body["njobs"] = load ? load->njobs : definition.njobs;
  body["pend"] = load ? load->pend : definition.pend;
  body["run"] = load ? load->run : definition.run;
  body["susp"] = load ? load->susp : definition.ssusp + definition.ususp;
  const auto in = inflight.find(definition.name);
  body["inflight"] = in == inflight.end() ? 0 : in->second;
  body["hosts"] = Tokens(queue.hosts);
  body["users"] = Tokens(queue.users);
  body["administrators"] = definition.administrators;
  body["res_req"] = definition.res_req.empty() ? json() : json(definition.res_req);
  const auto counts = snapshot.host_counts.find(definition.name);
  body["hosts_admitted"] = counts == snapshot.host_counts.end() ? 0 : counts->second.admitted;
  body["hosts_usable"] = counts == snapshot.host_counts.end() ? 0 : counts->second.usable;
  const QueueHostCounts none;
  const QueueHostCounts& ib = counts == snapshot.host_counts.end() ? none : counts->second;
  body["hosts_ib"] = {
      {"healthy", ib.ib_healthy}, {"unhealthy", ib.ib_unhealthy}, {"unknown", ib.ib_unknown}};
  body["remote_hosts"] = queue.has_remote_hosts;
  return body;
}

json AdmissionJson(const HostAdmission& admission) {
  json body;
  body["via"] = ViaName(admission.via);
  body["token"] = admission.token;
  json chain = json::array();
  for (const std::string& group : admission.chain) chain.push_back(group);
  body["group_chain"] = chain;
  body["preference"] = admission.preference;
  body["reason"] = DescribeAdmission(admission);
  return body;
}

json HostQueuesJson(const Topology& topology, const std::string& host) {
  json queues = json::array();
  json excluded = json::array();
  for (const QueueTopology& queue : topology.queues()) {
    const HostAdmission admission = topology.AdmitHost(queue, host);
    if (admission.admitted()) {
      json entry = AdmissionJson(admission);
      entry["queue"] = queue.definition.name;
      queues.push_back(std::move(entry));
    } else if (admission.via == HostAdmission::Via::kExcluded) {
      excluded.push_back({{"queue", queue.definition.name},
                          {"token", admission.token},
                          {"reason", DescribeAdmission(admission)}});
    }
  }
  return {{"queues", queues}, {"excluded_by", excluded}};
}

json ExpectedStartJson(const WaitEstimate& estimate) {
  json body;
  body["method"] = WaitMethodName(estimate.method);
  body["p50_s"] = estimate.p50 ? json(estimate.p50->count()) : json();
  body["bound_s"] = estimate.bound ? json(estimate.bound->count()) : json();
  body["quantile"] = estimate.quantile;
  body["confidence"] = estimate.confidence;
  body["samples"] = estimate.samples;
  body["summary"] = DescribeWait(estimate);
  return body;
}

json CandidateJson(const Candidate& candidate) {
  json body;
  body["queue"] = candidate.queue;
  body["status"] = candidate.status;
  body["pend"] = candidate.pend;
  body["inflight"] = candidate.inflight;
  body["run"] = candidate.run;
  body["prio"] = candidate.prio;
  body["slots"] = candidate.slots;
  body["starts_now"] = candidate.starts_now;
  body["free_slots"] = candidate.free_slots ? json(*candidate.free_slots) : json();
  body["limited_by"] =
      candidate.limited_by.empty() ? json() : json(std::string(candidate.limited_by));
  body["capacity"] = candidate.capacity;
  body["slots_to_free"] = candidate.slots_to_free();
  body["expected_start"] = ExpectedStartJson(candidate.expected_start);
  if (!candidate.lands_in.empty()) body["lands_in"] = candidate.lands_in;
  if (candidate.admission) {
    body["host_admission"] = AdmissionJson(*candidate.admission);
  } else {
    body["ib_healthy_hosts"] = candidate.ib_healthy_hosts;
    body["ib_unknown_hosts"] = candidate.ib_unknown_hosts;
  }
  return body;
}

json HostSummaryJson(const lsf::HostStatus& host, std::int32_t queues_admitting,
                     const IbHealthState* ib) {
  json body;
  body["host"] = host.name;
  body["status"] = host.status;
  body["takes_new_work"] = HostTakesNewWork(host.status);
  body["max"] = Limit(host.max);
  body["njobs"] = host.njobs;
  body["run"] = host.run;
  // NJOBS counts every slot held on the host (running, suspended, reserved).
  body["free_slots"] = host.max ? json(SlotsOf(host).free) : json();
  const HostIbHealth health = HostIbOf(ib, &host, host.name);
  body["ib"] = {{"health", IbHealthName(health.health)}, {"reasons", health.reasons}};
  body["queues_admitting"] = queues_admitting;
  return body;
}

json GroupJson(const GroupIndex& groups, const lsf::Group& group, std::string_view expanded_key) {
  json body;
  body["name"] = group.name;
  body["members"] = group.members;
  body["all"] = groups.IsAll(group.name);
  body[std::string(expanded_key)] = groups.Expand(group.name);
  return body;
}

json HostIbJson(const HostIbHealth& health, const IbHealthState* source, SystemTime now) {
  json body;
  body["health"] = IbHealthName(health.health);
  body["reasons"] = health.reasons;
  body["source"] = source ? json(source->source) : json("none");
  if (health.as_of == SystemTime{}) {
    body["as_of"] = nullptr;
    body["age_s"] = nullptr;
  } else {
    AddAge(body, health.as_of, now);
  }
  return body;
}

namespace {

// The hosts /v1/ib lists, in its order (see IbHostsJson).
std::vector<std::string> IbHostNames(const LoadState& load, const IbHealthState* ib) {
  std::vector<std::string> names;
  for (const lsf::HostStatus& host : load.hosts) names.push_back(host.name);
  if (ib == nullptr) return names;
  std::vector<std::string> extra;
  for (const auto& [name, health] : ib->hosts) {
    if (!load.FindHost(name)) extra.push_back(name);
  }
  std::sort(extra.begin(), extra.end());
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

}  // namespace

json IbHostsJson(const ClusterSnapshot& snapshot, SystemTime now) {
  const IbHealthState* ib = snapshot.ib.get();
  json groups = {
      {"healthy", json::array()}, {"unhealthy", json::array()}, {"unknown", json::array()}};
  for (const std::string& name : IbHostNames(*snapshot.load, ib)) {
    const HostIbHealth health = HostIbOf(ib, snapshot.load->FindHost(name), name);
    json item = HostIbJson(health, ib, now);
    // The group says the health, and the source is the same for all.
    item.erase("health");
    item.erase("source");
    item["host"] = name;
    groups[IbHealthName(health.health)].push_back(std::move(item));
  }
  return groups;
}

json PlacementJson(const PlacementRequest& request, const Placement& placement,
                   const IbHealthState* ib, SystemTime now) {
  json candidates = json::array();
  for (const Candidate& candidate : placement.candidates) {
    candidates.push_back(CandidateJson(candidate));
  }
  json body;
  body["user"] = request.user;
  body["host"] = request.host ? json(*request.host) : json();
  body["permission_source"] = placement.permission_source;
  body["require_ib"] = request.require_ib;
  if (placement.host_ib) body["host_ib"] = HostIbJson(*placement.host_ib, ib, now);
  body["candidates"] = candidates;
  body["chosen"] = placement.candidates.empty() ? json() : json(placement.candidates[0].queue);
  body["excluded"] = ExclusionsJson(placement.excluded);
  return body;
}

json ExclusionsJson(const std::vector<Exclusion>& excluded) {
  json list = json::array();
  for (const Exclusion& exclusion : excluded) {
    json item = {{"queue", exclusion.queue},
                 {"code", ExclusionCodeName(exclusion.code)},
                 {"reason", exclusion.reason}};
    if (const auto& refusal = exclusion.refusal) {
      item["cause"] = refusal->cause;
      item["until"] = refusal->until ? json(FormatRfc3339(*refusal->until)) : json();
      item["until_refresh"] =
          refusal->until_refresh.empty() ? json() : json(refusal->until_refresh);
    }
    list.push_back(std::move(item));
  }
  return list;
}

json AttemptsJson(const std::vector<SubmitAttempt>& attempts) {
  json list = json::array();
  for (const SubmitAttempt& attempt : attempts) {
    list.push_back({{"queue", attempt.queue},
                    {"outcome", attempt.outcome},
                    {"message", attempt.message},
                    {"elapsed_ms", attempt.elapsed.count()},
                    {"bsub_argv", attempt.argv}});
  }
  return list;
}

}  // namespace bplace::api
