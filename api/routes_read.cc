#include "api/routes_read.h"

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/http/problem.h"
#include "api/json_mapping.h"
#include "api/read_answers.h"
#include "api/routes_waits.h"

namespace bplace::api {

using nlohmann::json;

Response GetCluster(const Services& services, const Caller&, const Request&, const RouteParams&) {
  const auto snapshot = services.cache.Current();
  const SystemTime now = services.clock.SystemNow();
  json body;
  body["cluster_name"] = snapshot->identity.cluster_name;
  body["master_name"] = snapshot->identity.master_name;
  body["lsf_version"] = snapshot->identity.version;
  body["bplace_version"] = services.version;
  body["user"] = services.user;
  if (snapshot->complete()) {
    AddAge(body, *snapshot, now);
  } else {
    body["as_of"] = nullptr;
    body["age_s"] = nullptr;
  }
  body["ready"] = snapshot->complete();
  body["load"] = TierJson(snapshot->load_status, snapshot->load_as_of, now);
  body["topology"] = TierJson(snapshot->topology_status, snapshot->topology_as_of, now);
  // The intervals, so that a poller (the status page) asks no faster than
  // the data changes.
  const CacheOptions& tiers = services.cache.options();
  body["load"]["refresh_s"] = std::chrono::duration<double>(tiers.load_interval).count();
  body["topology"]["refresh_s"] = std::chrono::duration<double>(tiers.topology_interval).count();
  body["counts"] = ClusterCountsJson(*snapshot);
  body["warnings"] =
      snapshot->topology ? snapshot->topology->warnings() : std::vector<std::string>{};
  body["inflight_slots"] = InflightJson(services.ledger.Counts());
  body["wait_predictions"] = WaitRecordJson(services);
  return MakeJson(200, body);
}

Response GetQueues(const Services& services, const Caller&, const Request&, const RouteParams&) {
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    const auto inflight = services.ledger.Counts();
    json queues = json::array();
    for (const QueueTopology& queue : snapshot.topology->queues()) {
      queues.push_back(QueueJson(snapshot, queue, inflight));
    }
    json body{{"queues", queues}};
    AddAge(body, snapshot, services.clock.SystemNow());
    return MakeJson(200, body);
  });
}

Response GetQueue(const Services& services, const Caller&, const Request&,
                  const RouteParams& params) {
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    const std::string name(params.Path("name"));
    const QueueTopology* queue = snapshot.topology->FindQueue(name);
    if (queue == nullptr) return NotFound("queue", name, "does not exist (bqueues -l)");
    json body = QueueJson(snapshot, *queue, services.ledger.Counts());
    AddAge(body, snapshot, services.clock.SystemNow());
    return MakeJson(200, body);
  });
}

Response GetHost(const Services& services, const Caller&, const Request&,
                 const RouteParams& params) {
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    const std::string host(params.Path("host"));
    const lsf::HostStatus* status = snapshot.load->FindHost(host);
    if (status == nullptr && !snapshot.topology->NamesHost(host)) {
      return NotFound("host", host,
                      "is not known to LSF (not in bhosts -w, no host group or HOSTS line "
                      "names it)");
    }
    const SystemTime now = services.clock.SystemNow();
    json body = HostQueuesJson(*snapshot.topology, host);
    body["host"] = host;
    body["in_bhosts"] = status != nullptr;
    body["status"] = status ? json(status->status) : json();
    body["takes_new_work"] = status != nullptr && HostTakesNewWork(status->status);
    body["max"] = status ? Limit(status->max) : json();
    body["njobs"] = status ? json(status->njobs) : json();
    body["run"] = status ? json(status->run) : json();
    body["ib"] = HostIbJson(HostIbOf(snapshot.ib.get(), status, host), snapshot.ib.get(), now);
    AddAge(body, snapshot, now);
    return MakeJson(200, body);
  });
}

Response GetHostGroup(const Services& services, const Caller&, const Request&,
                      const RouteParams& params) {
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    const std::string name(params.Path("name"));
    const GroupIndex& groups = snapshot.topology->host_groups();
    const lsf::Group* group = groups.Find(name);
    if (group == nullptr) return NotFound("host group", name, "does not exist (bmgroup -w)");
    json body = GroupJson(groups, *group, "hosts");
    AddAge(body, snapshot, services.clock.SystemNow());
    return MakeJson(200, body);
  });
}

Response GetIb(const Services& services, const Caller&, const Request&, const RouteParams&) {
  return WithSnapshot(services, [&](const ClusterSnapshot& snapshot) {
    const IbHealthState* ib = snapshot.ib.get();
    const SystemTime now = services.clock.SystemNow();
    json body = IbHostsJson(snapshot, now);
    body["source"] = IbSourceName(services.ib().source);
    body["require_ib"] = services.ib().require_ib;
    body["source_as_of"] =
        ib && ib->as_of != SystemTime{} ? json(FormatRfc3339(ib->as_of)) : json();
    body["source_error"] = ib && !ib->last_error.empty() ? json(ib->last_error) : json();
    AddAge(body, snapshot, now);
    return MakeJson(200, body);
  });
}

}  // namespace bplace::api
